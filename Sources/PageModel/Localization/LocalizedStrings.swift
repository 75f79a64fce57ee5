/// A page's localized strings: `locale → key → text`, with a default locale. A string anywhere in a page's
/// titles, widget content or action messages that reads `"$l10n:key"` is replaced by the key's text in the
/// negotiated locale, falling back to the default locale (docs/contract.md § 18, pages/README.md).
public struct LocalizedStrings: Sendable, Hashable {
    public var defaultLocale: String
    /// Locale tag (as authored, e.g. `en`, `de`, `pt-BR`) → key → text.
    public var tables: [String: [String: String]]

    /// The marker prefix of a localized string.
    public static let marker = "$l10n:"

    public init(defaultLocale: String, tables: [String: [String: String]]) {
        self.defaultLocale = defaultLocale
        self.tables = tables
    }

    /// Locales with a table, sorted.
    public var locales: [String] { tables.keys.sorted() }

    /// The key of a marker string (`"$l10n:cart.title"` → `cart.title`), else `nil`.
    public static func key(of text: String) -> Substring? {
        // Byte-wise: asked of every string of every checked page, nearly always about one that is not a marker.
        let bytes = text.utf8
        guard bytes.first == UInt8(ascii: "$"), bytes.starts(with: marker.utf8) else { return nil }
        return Substring(bytes.dropFirst(marker.utf8.count))
    }

    /// The text for `key` in `locale`, else in the default locale.
    public func text(_ key: some StringProtocol, locale: String) -> String? {
        let key = String(key)
        return tables[locale]?[key] ?? tables[defaultLocale]?[key]
    }

    /// The locale to serve for an `Accept-Language` value: the available locale with the highest q-value, a
    /// language range matching a locale exactly or as a prefix (`de-AT` → `de`, `en` → `en-GB`); else the default.
    public func negotiate(acceptLanguage: String?) -> String {
        guard let acceptLanguage else { return defaultLocale }
        for range in AcceptLanguage.ranges(acceptLanguage) {
            if range == "*" { return defaultLocale }
            if let exact = locales.first(where: { $0.lowercased() == range }) { return exact }
            let language = range.split(separator: "-").first.map(String.init) ?? range
            if let primary = locales.first(where: { $0.lowercased() == language }) { return primary }
            if let regional = locales.first(where: { $0.lowercased().hasPrefix(language + "-") }) { return regional }
        }
        return defaultLocale
    }

    /// `unknown_string_key` errors for markers whose key the default locale lacks, `missing_translation`
    /// warnings for keys another locale lacks (they fall back to the default locale's text).
    public func check(_ page: PageModel, at path: JSONPointer = "/page") -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        LocalizedStrings.forEachMarker(in: page, at: path) { key, pointer, widgetID in
            let key = String(key)
            guard tables[defaultLocale]?[key] != nil else {
                diagnostics.append(
                    .error(
                        "unknown_string_key", pointer, widgetID: widgetID,
                        "\"\(key)\" is not in the default locale's strings (server.strings.\(defaultLocale))"))
                return
            }
            for locale in locales where locale != defaultLocale && tables[locale]?[key] == nil {
                diagnostics.append(
                    .warning(
                        "missing_translation", pointer, widgetID: widgetID,
                        "\"\(key)\" has no \(locale) text; \(locale) clients see the \(defaultLocale) text"))
            }
        }
        return diagnostics
    }

    /// Calls `body` with every marker's key, its JSON Pointer and its widget id, in document order.
    public static func forEachMarker(
        in page: PageModel, at path: JSONPointer, _ body: (Substring, JSONPointer, String?) -> Void
    ) {
        // The path is a stack of steps, spelled out as a pointer only for a marker: most pages have none, and a
        // pointer built per node cost more than the walk (a provider page is checked on every request).
        var trail: [Step] = []
        func report(_ key: Substring, _ widgetID: String?) {
            body(key, trail.reduce(path) { $1.extend($0) }, widgetID)
        }
        func walk(_ value: JSONValue, _ widgetID: String) {
            switch value {
            case .string(let text):
                if let key = key(of: text) { report(key, widgetID) }
            case .array(let items):
                for (index, item) in items.enumerated() {
                    trail.append(.index(index))
                    walk(item, widgetID)
                    trail.removeLast()
                }
            case .object(let object):
                for member in object.members {
                    trail.append(.key(member.key))
                    walk(member.value, widgetID)
                    trail.removeLast()
                }
            default: break
            }
        }
        func widget(_ item: Widget) {
            trail.append(.key("content"))
            walk(item.content, item.id)
            trail.removeLast()
            if !item.actions.isEmpty {
                for event in item.actions.keys.sorted() {
                    if case .toast(let message) = item.actions[event]!, let key = key(of: message) {
                        trail += [.key("actions"), .key(event), .key("message")]
                        report(key, item.id)
                        trail.removeLast(3)
                    }
                }
            }
            if !item.children.isEmpty { widgets(item.children, "children") }
            if case .widget(let replacement) = item.compatibility.fallback {
                trail += [.key("fallback"), .key("widget")]
                widget(replacement)
                trail.removeLast(2)
            }
        }
        func widgets(_ list: [Widget], _ name: String) {
            trail.append(.key(name))
            for (index, item) in list.enumerated() {
                trail.append(.index(index))
                widget(item)
                trail.removeLast()
            }
            trail.removeLast()
        }
        func section(_ item: Section) {
            if let title = item.title, let key = key(of: title) {
                trail.append(.key("title"))
                report(key, nil)
                trail.removeLast()
            }
            widgets(item.widgets, "widgets")
            if case .section(let replacement) = item.compatibility.fallback {
                trail += [.key("fallback"), .key("section")]
                section(replacement)
                trail.removeLast(2)
            }
        }
        if let title = page.title, let key = key(of: title) { body(key, path / "title", nil) }
        widgets(page.header, "header")
        trail.append(.key("sections"))
        for (index, item) in page.sections.enumerated() {
            trail.append(.index(index))
            section(item)
            trail.removeLast()
        }
        trail.removeLast()
        widgets(page.footer, "footer")
    }

    /// One step of a path below a pointer.
    private enum Step {
        case key(String)
        case index(Int)

        func extend(_ pointer: JSONPointer) -> JSONPointer {
            switch self {
            case .key(let key): pointer / key
            case .index(let index): pointer / index
            }
        }
    }
}
