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

    /// The id of the widget a `replaceWidget` or `removeWidget` acts on; `nil` for the others.
    public var targetID: String? {
        switch self {
        case .replaceWidget(let id, _), .removeWidget(let id): id
        case .replacePage, .appendSections, .prependSections: nil
        }
    }

    /// The top-level widgets this mutation brings into the document (their children come with them): a replaced
    /// page's header, section widgets and footer, the new sections' widgets, a replacement widget.
    public var broughtWidgets: [Widget] {
        switch self {
        case .replacePage(let page): page.header + page.sections.flatMap(\.widgets) + page.footer
        case .appendSections(let sections), .prependSections(let sections): sections.flatMap(\.widgets)
        case .replaceWidget(_, let widget): [widget]
        case .removeWidget: []
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
