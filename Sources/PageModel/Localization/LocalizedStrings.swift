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
        guard text.hasPrefix(marker) else { return nil }
        return text.dropFirst(marker.count)
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
        if let title = page.title, let key = key(of: title) { body(key, path / "title", nil) }
        func walk(_ value: JSONValue, _ at: JSONPointer, _ widgetID: String) {
            switch value {
            case .string(let text): if let key = key(of: text) { body(key, at, widgetID) }
            case .array(let items): for (index, item) in items.enumerated() { walk(item, at / index, widgetID) }
            case .object(let object): for member in object.members { walk(member.value, at / member.key, widgetID) }
            default: break
            }
        }
        func widget(_ item: Widget, _ at: JSONPointer) {
            walk(item.content, at / "content", item.id)
            for event in item.actions.keys.sorted() {
                if case .toast(let message) = item.actions[event]!, let key = key(of: message) {
                    body(key, at / "actions" / event / "message", item.id)
                }
            }
            widgets(item.children, at / "children")
            if case .widget(let replacement) = item.compatibility.fallback {
                widget(replacement, at / "fallback" / "widget")
            }
        }
        func widgets(_ list: [Widget], _ at: JSONPointer) {
            for (index, item) in list.enumerated() { widget(item, at / index) }
        }
        func section(_ item: Section, _ at: JSONPointer) {
            if let title = item.title, let key = key(of: title) { body(key, at / "title", nil) }
            widgets(item.widgets, at / "widgets")
            if case .section(let replacement) = item.compatibility.fallback {
                section(replacement, at / "fallback" / "section")
            }
        }
        widgets(page.header, path / "header")
        for (index, item) in page.sections.enumerated() { section(item, path / "sections" / index) }
        widgets(page.footer, path / "footer")
    }
}
