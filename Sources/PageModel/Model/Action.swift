/// What a widget event (`tap`, `change`, …) asks the client to do. A closed set of built-ins plus `unknown`.
///
/// Wire form: an object with a `type` discriminator, e.g. `{"type": "toast", "message": "Saved"}`.
/// Unknown types decode to ``unknown(type:body:)`` with a warning, so newer servers never break older clients.
public enum Action: Sendable, Hashable {
    /// `{"type": "toast", "message": String}` — show a transient message.
    case toast(message: String)
    /// `{"type": "dismiss"}` — close the presenting sheet or screen.
    case dismiss
    /// `{"type": "refresh_page"}` — ``PageStore/refresh()`` the current page.
    case refreshPage
    /// `{"type": "open_bottom_sheet", "pageID": String, "parameters"?: {String: String}}` — present another page.
    case openBottomSheet(pageID: String, parameters: [String: String] = [:])
    /// `{"type": "api", "name": String, "payload"?: JSON}` — `POST /v1/actions/{name}` and apply the response.
    case api(name: String, payload: JSONValue? = nil)
    /// `{"type": "deeplink", "url": String}` — handed to the host's deeplink handler; there is no router.
    case deeplink(url: String)
    /// A type this codec does not know, kept verbatim.
    case unknown(type: String, body: JSONObject)

    /// The wire `type` discriminator.
    public var type: String {
        switch self {
        case .toast: ActionType.toast
        case .dismiss: ActionType.dismiss
        case .refreshPage: ActionType.refreshPage
        case .openBottomSheet: ActionType.openBottomSheet
        case .api: ActionType.api
        case .deeplink: ActionType.deeplink
        case .unknown(let type, _): type
        }
    }
}

/// The wire names of the built-in action types.
public enum ActionType {
    public static let toast = "toast"
    public static let dismiss = "dismiss"
    public static let refreshPage = "refresh_page"
    public static let openBottomSheet = "open_bottom_sheet"
    public static let api = "api"
    public static let deeplink = "deeplink"

    public static let all = [toast, dismiss, refreshPage, openBottomSheet, api, deeplink]
}
