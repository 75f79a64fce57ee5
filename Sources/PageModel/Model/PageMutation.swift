/// A change to a loaded document, sent in ``ActionResponse/mutations``. Apply with ``PageModel/applying(_:)``.
///
/// Wire form: an object with a `type` discriminator, e.g. `{"type": "removeWidget", "id": "promo"}`.
public enum PageMutation: Sendable, Hashable {
    /// `{"type": "replacePage", "page": Page}` — the whole document.
    case replacePage(PageModel)
    /// `{"type": "appendSections", "sections": [Section]}`.
    case appendSections([Section])
    /// `{"type": "prependSections", "sections": [Section]}`.
    case prependSections([Section])
    /// `{"type": "replaceWidget", "id": String, "widget": Widget}` — the widget with that id, at any depth.
    case replaceWidget(id: String, widget: Widget)
    /// `{"type": "removeWidget", "id": String}`.
    case removeWidget(id: String)

    public var type: String {
        switch self {
        case .replacePage: MutationType.replacePage
        case .appendSections: MutationType.appendSections
        case .prependSections: MutationType.prependSections
        case .replaceWidget: MutationType.replaceWidget
        case .removeWidget: MutationType.removeWidget
        }
    }
}

/// The wire names of the mutation types.
public enum MutationType {
    public static let replacePage = "replacePage"
    public static let appendSections = "appendSections"
    public static let prependSections = "prependSections"
    public static let replaceWidget = "replaceWidget"
    public static let removeWidget = "removeWidget"

    public static let all = [replacePage, appendSections, prependSections, replaceWidget, removeWidget]
}
