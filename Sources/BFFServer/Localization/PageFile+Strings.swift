import PageModel

/// `server.strings` and `server.defaultLocale` of a page file (pages/README.md): read, then every `$l10n:` marker
/// of the page is checked against them.
extension PageFile {
    static let localeTag = "[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*"

    static func isLocaleTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...8).contains(first.count),
            first.utf8.allSatisfy({ PageID.isAlphanumeric($0) && $0 > 0x39 })
        else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.utf8.allSatisfy(PageID.isAlphanumeric) }
    }

    /// The page's strings, or `nil` (with diagnostics when the members are malformed).
    static func strings(_ settings: JSONObject, diagnostics: inout [Diagnostic]) -> LocalizedStrings? {
        guard let value = settings["strings"] else {
            if settings["defaultLocale"] != nil {
                diagnostics.append(
                    .error("invalid_setting", "/server/defaultLocale", "defaultLocale needs server.strings"))
            }
            return nil
        }
        guard case .object(let locales) = value, !locales.isEmpty else {
            diagnostics.append(
                .error("invalid_setting", "/server/strings", "strings is an object of locale → {key: text}"))
            return nil
        }
        var tables: [String: [String: String]] = [:]
        for locale in locales.members {
            let path = JSONPointer("/server/strings") / locale.key
            guard isLocaleTag(locale.key) else {
                diagnostics.append(
                    .error("invalid_setting", path, "\"\(locale.key)\" is not a language tag (\(localeTag))"))
                continue
            }
            guard case .object(let entries) = locale.value else {
                diagnostics.append(.error("invalid_setting", path, "a locale's strings are an object of key → text"))
                continue
            }
            var table: [String: String] = [:]
            for entry in entries.members {
                if let text = entry.value.stringValue {
                    table[entry.key] = text
                } else {
                    diagnostics.append(.error("invalid_setting", path / entry.key, "a localized string is a string"))
                }
            }
            tables[locale.key] = table
        }
        guard let defaultLocale = settings["defaultLocale"]?.stringValue, tables[defaultLocale] != nil else {
            diagnostics.append(
                .error(
                    "invalid_setting", "/server/defaultLocale",
                    "defaultLocale is required with strings and names one of \(tables.keys.sorted())"))
            return nil
        }
        return LocalizedStrings(defaultLocale: defaultLocale, tables: tables)
    }

    /// Marker diagnostics for `page`: checked against `strings`, or every marker an error when there are none.
    static func checkMarkers(_ page: PageModel, strings: LocalizedStrings?) -> [Diagnostic] {
        if let strings { return strings.check(page) }
        var diagnostics: [Diagnostic] = []
        LocalizedStrings.forEachMarker(in: page, at: "/page") { key, pointer, widgetID in
            diagnostics.append(
                .error(
                    "unknown_string_key", pointer, widgetID: widgetID,
                    "\"$l10n:\(key)\" needs server.strings and server.defaultLocale in this page file"))
        }
        return diagnostics
    }
}

extension LocalizedStrings {
    /// Deterministic bytes of the tables, folded into the page version so a translation edit changes ETags and
    /// expires cursors.
    var fingerprint: [UInt8] {
        var text = "|l10n:\(defaultLocale)"
        for locale in locales {
            let table = tables[locale]!
            for key in table.keys.sorted() { text += "|\(locale).\(key)=\(table[key]!)" }
        }
        return Array(text.utf8)
    }
}
