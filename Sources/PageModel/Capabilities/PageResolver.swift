/// Resolves a page for one client: substitutes fallbacks for what the client cannot render, drops what has no
/// usable fallback, replaces `$l10n:` strings with the locale's text, strips the compatibility annotations, and
/// lists every change as a ``Degradation``. Pure: the same inputs always give the same output.
///
/// Rules (docs/contract.md § 17): a widget is shown when the client renders its type (at version 1), satisfies
/// each `requires` entry and meets `minAppVersion`; else its `fallback` applies (`widget` → that widget, itself
/// resolved; `category` → the generic conversion when the client renders that type; `drop` or none → removed).
/// A container whose children were all dropped is treated as unrenderable. A section whose own requirements fail
/// uses its fallback section or is dropped; a section whose widgets were all dropped is dropped.
public struct PageResolver: Sendable {
    public var capabilities: ClientCapabilities
    public var strings: LocalizedStrings?
    /// The locale to localize into; `nil` means the strings' default locale.
    public var locale: String?
    public var catalog: WidgetCatalog

    /// Deepest chain of fallbacks and children followed.
    static let maximumDepth = 32

    public init(
        capabilities: ClientCapabilities, strings: LocalizedStrings? = nil, locale: String? = nil,
        catalog: WidgetCatalog = .standard
    ) {
        self.capabilities = capabilities
        self.strings = strings
        self.locale = locale
        self.catalog = catalog
    }

    /// The page as this client sees it, and what was changed.
    public func resolve(_ page: PageModel) -> (page: PageModel, degradations: [Degradation]) {
        var degradations: [Degradation] = []
        var resolved = page
        resolved.title = page.title.map(localize)
        resolved.header = page.header.compactMap { widget($0, sectionID: nil, depth: 0, into: &degradations) }
        resolved.sections = page.sections.compactMap { section($0, depth: 0, into: &degradations) }
        resolved.footer = page.footer.compactMap { widget($0, sectionID: nil, depth: 0, into: &degradations) }
        return (resolved, degradations)
    }

    /// A chunk of sections as this client sees it (for `nextPage`), and what was changed.
    public func resolve(_ sections: [Section]) -> (sections: [Section], degradations: [Degradation]) {
        var degradations: [Degradation] = []
        let resolved = sections.compactMap { section($0, depth: 0, into: &degradations) }
        return (resolved, degradations)
    }

    /// Why the client cannot show an element with these annotations (`nil` when it can).
    func unmet(type: String?, _ compatibility: Compatibility) -> String? {
        if let type, !capabilities.renders(type) { return "the client does not render \(type)" }
        for requirement in compatibility.requires where !capabilities.satisfies(requirement) {
            return "the client lacks \(requirement)"
        }
        if let minimum = compatibility.minAppVersion, !capabilities.meets(minimum),
            let version = minimum.version(for: capabilities.platform)
        {
            return "needs app version \(version), the client has \(capabilities.appVersion?.description ?? "?")"
        }
        return nil
    }

    func widget(_ original: Widget, sectionID: String?, depth: Int, into degradations: inout [Degradation])
        -> Widget?
    {
        guard depth < Self.maximumDepth else { return nil }
        if let reason = unmet(type: original.type, original.compatibility) {
            return substitute(original, reason: reason, sectionID: sectionID, depth: depth, into: &degradations)
        }
        var shown = original
        shown.compatibility = Compatibility()
        localize(&shown)
        if !original.children.isEmpty {
            shown.children = original.children.compactMap {
                widget($0, sectionID: sectionID, depth: depth + 1, into: &degradations)
            }
            if shown.children.isEmpty, catalog[original.type]?.children == .required {
                return substitute(
                    original, reason: "every child of the \(original.type) was dropped", sectionID: sectionID,
                    depth: depth, into: &degradations)
            }
        }
        return shown
    }

    func substitute(
        _ original: Widget, reason: String, sectionID: String?, depth: Int, into degradations: inout [Degradation]
    ) -> Widget? {
        func record(_ code: String, _ replacement: String?, _ why: String) {
            degradations.append(
                Degradation(
                    code: code, sectionID: sectionID, widgetID: original.id, type: original.type,
                    replacement: replacement, reason: why))
        }
        switch original.compatibility.fallback {
        case .widget(let replacement):
            record(Degradation.Code.widgetReplaced, replacement.type, reason)
            return widget(replacement, sectionID: sectionID, depth: depth + 1, into: &degradations)
        case .category(let name):
            var source = original
            localize(&source)
            if capabilities.renders(name), let generic = GenericCategory(rawValue: name),
                let converted = generic.convert(source, catalog: catalog)
            {
                record(Degradation.Code.widgetGeneralized, name, reason)
                return converted
            }
            record(Degradation.Code.widgetDropped, nil, reason + "; its fallback category \(name) is not usable")
            return nil
        case .drop?, .section?, nil:
            record(Degradation.Code.widgetDropped, nil, reason)
            return nil
        }
    }

    func section(_ original: Section, depth: Int, into degradations: inout [Degradation]) -> Section? {
        guard depth < Self.maximumDepth else { return nil }
        if let reason = unmet(type: nil, original.compatibility) {
            if case .section(let replacement) = original.compatibility.fallback {
                degradations.append(
                    Degradation(
                        code: Degradation.Code.sectionReplaced, sectionID: original.id, replacement: replacement.id,
                        reason: reason))
                return section(replacement, depth: depth + 1, into: &degradations)
            }
            degradations.append(
                Degradation(code: Degradation.Code.sectionDropped, sectionID: original.id, reason: reason))
            return nil
        }
        var shown = original
        shown.compatibility = Compatibility()
        shown.title = original.title.map(localize)
        shown.widgets = original.widgets.compactMap {
            widget($0, sectionID: original.id, depth: depth, into: &degradations)
        }
        if shown.widgets.isEmpty, !original.widgets.isEmpty {
            degradations.append(
                Degradation(
                    code: Degradation.Code.sectionDropped, sectionID: original.id,
                    reason: Degradation.emptiedSectionReason))
            return nil
        }
        return shown
    }

    // MARK: Localization

    func localize(_ text: String) -> String {
        guard let strings, let key = LocalizedStrings.key(of: text) else { return text }
        return strings.text(key, locale: locale ?? strings.defaultLocale) ?? text
    }

    func localize(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): return .string(localize(text))
        case .array(let items): return .array(items.map(localize))
        case .object(let object):
            return .object(JSONObject(object.members.map { .init(key: $0.key, value: localize($0.value)) }))
        default: return value
        }
    }

    func localize(_ widget: inout Widget) {
        guard strings != nil else { return }
        widget.content = localize(widget.content)
        for (event, action) in widget.actions {
            if case .toast(let message) = action { widget.actions[event] = .toast(message: localize(message)) }
        }
    }
}

extension PageModel {
    /// This page as a client with `capabilities` sees it in `locale` (see ``PageResolver``).
    public func resolved(
        for capabilities: ClientCapabilities, strings: LocalizedStrings? = nil, locale: String? = nil
    ) -> (page: PageModel, degradations: [Degradation]) {
        PageResolver(capabilities: capabilities, strings: strings, locale: locale).resolve(self)
    }
}
