/// One difference between a baseline run of `verify` and the current one (``ReportDiff``), classified by
/// docs/contract.md § 16 from an app's point of view.
public struct ReportChange: Sendable, Hashable, Codable {
    /// Whether apps already in users' hands keep working.
    public enum Severity: String, Sendable, Hashable, Codable {
        /// Apps already released lose something they key on: widget state, analytics, an action they send.
        case breaking
        /// Nothing a released app relies on is gone (§ 16: "additive, non-breaking").
        case additive
    }

    /// Stable snake_case code (``ReportChangeKind``), e.g. `widget_removed`.
    public var kind: String
    public var severity: Severity
    /// The page target, as the reports name it (`product?productID=p-1`).
    public var page: String
    /// What changed: a section or widget key, `widgetKey event`, or the page target for page changes.
    public var id: String
    /// One line: what changed.
    public var message: String
    /// The baseline's side, when there is one to show (a widget's type, an event's action, a requirement).
    public var before: String?
    /// The current side.
    public var after: String?

    public init(
        _ kind: ReportChangeKind, page: String, id: String, message: String, before: String? = nil,
        after: String? = nil
    ) {
        self.kind = kind.code
        severity = kind.severity
        self.page = page
        self.id = id
        self.message = message
        self.before = before
        self.after = after
    }

    /// `message (before → after)`, or just the message.
    public var detail: String {
        guard before != nil || after != nil else { return message }
        return "\(message) (\(before ?? "none") → \(after ?? "none"))"
    }
}

/// The kinds of ``ReportChange``, each with its severity: an open set of stable codes.
public struct ReportChangeKind: Sendable, Hashable {
    public let code: String
    public let severity: ReportChange.Severity

    public init(code: String, severity: ReportChange.Severity) {
        self.code = code
        self.severity = severity
    }

    /// A page target the baseline loaded is gone (neither crawled nor kept out by limits, and its page id not
    /// crawled under other parameters either).
    public static let pageRemoved = ReportChangeKind(code: "page_removed", severity: .breaking)
    /// A section id is gone. Analytics key on section ids (§ 10) and a renamed section is a removed one.
    public static let sectionRemoved = ReportChangeKind(code: "section_removed", severity: .breaking)
    /// A widget id is gone (removed or renamed): its widget state and analytics break.
    public static let widgetRemoved = ReportChangeKind(code: "widget_removed", severity: .breaking)
    /// The same id now holds another widget type: state and analytics kept under it mean something else.
    public static let widgetTypeChanged = ReportChangeKind(code: "widget_type_changed", severity: .breaking)
    /// A widget no longer declares an event it declared.
    public static let eventRemoved = ReportChangeKind(code: "event_removed", severity: .breaking)
    /// An event that fired an api action fires another one (or no api action): apps holding the page send the
    /// old name.
    public static let actionRemoved = ReportChangeKind(code: "action_removed", severity: .breaking)
    /// A new `requires` entry or a raised `minAppVersion` on an element that was there: released apps lose it.
    public static let requirementAdded = ReportChangeKind(code: "requirement_added", severity: .breaking)

    public static let pageAdded = ReportChangeKind(code: "page_added", severity: .additive)
    public static let sectionAdded = ReportChangeKind(code: "section_added", severity: .additive)
    public static let widgetAdded = ReportChangeKind(code: "widget_added", severity: .additive)
    /// A widget declares a new event (of any action type but api).
    public static let eventAdded = ReportChangeKind(code: "event_added", severity: .additive)
    /// A widget fires a new api action: on a new event, or on an event that fired another action type.
    public static let actionAdded = ReportChangeKind(code: "action_added", severity: .additive)
    /// An event fires another action type than before, neither being an api action (`deeplink` → `toast`).
    public static let actionChanged = ReportChangeKind(code: "action_changed", severity: .additive)
    /// A `requires` entry dropped or a lowered `minAppVersion`: more apps see the element.
    public static let requirementRemoved = ReportChangeKind(code: "requirement_removed", severity: .additive)
}
