import PageModel

/// Widget type → headless renderer, plus the policy for types it does not know.
///
/// Register on the main actor before the first page appears. Every type falls back to
/// ``WidgetRenderer/outline``, so a registry with no registrations still draws the whole page; "unknown"
/// means unknown to the codec's catalog (``Widget/Rendering/unknownType``) and not registered here.
public struct WidgetRegistry: Sendable {
    public var unknownWidgetPolicy: UnknownWidgetPolicy
    /// Used for every type without a registration.
    public var fallback: WidgetRenderer
    private var renderers: [String: WidgetRenderer] = [:]

    /// - Parameter unknownWidgetPolicy: default ``UnknownWidgetPolicy/default`` (placeholder in debug builds).
    public init(unknownWidgetPolicy: UnknownWidgetPolicy = .default, fallback: WidgetRenderer = .outline) {
        self.unknownWidgetPolicy = unknownWidgetPolicy
        self.fallback = fallback
    }

    /// Registers (or replaces) the renderer of `type`.
    public mutating func register(_ type: String, renderer: WidgetRenderer) {
        renderers[type] = renderer
    }

    /// True when `type` has its own renderer.
    public func isRegistered(_ type: String) -> Bool { renderers[type] != nil }

    /// The renderer for `type`: its registration, else ``fallback``.
    public func renderer(for type: String) -> WidgetRenderer { renderers[type] ?? fallback }

    /// Draws `page` as an indented text outline: the page line, then `header`, each `section` and `footer`
    /// with their widgets two spaces deeper, children deeper still, and a `pagination` line when more follows.
    ///
    /// Widgets with invalid content draw as `placeholder #id (type) code`; unknown types follow
    /// ``unknownWidgetPolicy``. Reading widget state here is a tracked read.
    @MainActor
    public func outline(of page: PageModel, state: WidgetStateStore, dispatcher: ActionDispatcher? = nil) -> String {
        var lines = ["page #\(page.id)" + (page.title.map { " " + JSONValue.string($0).description } ?? "")]
        func draw(_ widgets: [Widget], depth: Int) {
            for widget in widgets {
                let indent = String(repeating: "  ", count: depth + 1)
                switch widget.rendering {
                case .placeholder(let code):
                    lines.append(indent + "placeholder #\(widget.id) (\(widget.type)) \(code)")
                    continue
                case .unknownType where !isRegistered(widget.type):
                    if unknownWidgetPolicy == .placeholder {
                        lines.append(indent + "placeholder #\(widget.id) (\(widget.type)) unknown_type")
                    }
                    continue
                case .content, .unknownType:
                    let context = WidgetContext(widgetID: widget.id, state: state, depth: depth, dispatcher: dispatcher)
                    lines.append(indent + renderer(for: widget.type).line(widget, context))
                    draw(widget.children, depth: depth + 1)
                }
            }
        }
        if !page.header.isEmpty {
            lines.append("header")
            draw(page.header, depth: 0)
        }
        for section in page.sections {
            lines.append(
                "section #\(section.id)" + (section.title.map { " " + JSONValue.string($0).description } ?? ""))
            draw(section.widgets, depth: 0)
        }
        if !page.footer.isEmpty {
            lines.append("footer")
            draw(page.footer, depth: 0)
        }
        if page.hasMore { lines.append("pagination hasMore") }
        return lines.joined(separator: "\n") + "\n"
    }
}
