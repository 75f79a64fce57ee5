import Foundation
import PageModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension PageCrawl {
    /// Version probes sent per page at most (``versionProbes(for:)``).
    static let maximumVersionProbes = 6

    /// Every `X-Flow-Client` answer of the first page is compared with the contract's resolution of the unresolved
    /// page (contract § 17, `PageResolver` is the rule): the page asked for without the header must list no
    /// degradation of its own; a widget or section the declared client cannot have must not be served to it
    /// unchanged (a `minAppVersion` per platform read as one for all, a `requires` ignored); and whatever the client
    /// lost or got instead must be listed in `degradations`. Besides the crawl's own declaration, the page is
    /// asked for by the app versions its `minAppVersion` annotations separate (``versionProbes(for:)``).
    func checkResolutions(
        identity: HTTPProbe.Response, answers: [String: VariantAnswer], urlRequest: URLRequest, request: String
    ) async {
        let client = ClientCapabilities.headerName
        let unresolvedResponse = configuration.capabilities == nil ? identity : answers["no \(client)"]?.response
        guard let unresolvedResponse, let unresolved = try? decoder.decodePage(unresolvedResponse.body).value else {
            return
        }
        begin("resolution")
        // A page with live data (rotating items, a degradable section that timed out) differs between two identical
        // requests, which says nothing about resolution: compare only a page that repeats itself.
        let removing = configuration.capabilities == nil ? [] : [client]
        guard
            let again = try? await probe.send(urlRequest, headers: ["Accept-Encoding": "identity"], removing: removing),
            again.status == 200, let repeated = try? decoder.decodePage(again.body).value,
            repeated.withoutPostbacks == unresolved.withoutPostbacks
        else { return }
        let plainRequest = configuration.capabilities == nil ? request : request + " (no \(client))"
        let listed = Degradation.list(inEnvelope: unresolvedResponse.body).filter {
            $0.code != Degradation.Code.upstreamFallback
        }
        if let first = listed.first {
            record(
                ViolationCode.resolutionMismatch, "resolution", request: plainRequest, path: "/degradations",
                message:
                    "the page asked for without \(client) lists \(listed.count) degradations (\(first)): without the header a client gets the unresolved page",
                expected: "no degradations", actual: first.code)
        }
        var declarations: [(declaration: String, response: HTTPProbe.Response)] = []
        if let profile = configuration.capabilities {
            declarations.append((profile.header, identity))
        } else if let answer = answers["\(client): \(Self.probeClient)"] {
            declarations.append((Self.probeClient, answer.response))
        }
        for declaration in Self.versionProbes(for: unresolved) {
            let probeRequest = request + " (\(client): \(declaration))"
            guard
                let response = try? await probe.send(
                    urlRequest, headers: ["Accept-Encoding": "identity", client: declaration])
            else { continue }
            guard response.status == 200 else {
                record(
                    ViolationCode.pageFailed, "resolution", request: probeRequest,
                    message: "the page answered \(response.status) to a valid \(client) declaration",
                    expected: "200", actual: String(response.status))
                continue
            }
            declarations.append((declaration, response))
        }
        for (declaration, response) in declarations {
            report.exercised.profiles.insert(
                configuration.capabilities?.header == declaration ? configuration.capabilities!.name : declaration)
            compareResolution(
                unresolved: unresolved, declaration: declaration, response: response,
                request: request + " (\(client): \(declaration))")
        }
    }

    /// The served answer for `declaration` against `PageResolver`'s resolution of `unresolved`, by author ids and
    /// types (content, order and reasons are the server's to word).
    func compareResolution(unresolved: PageModel, declaration: String, response: HTTPProbe.Response, request: String) {
        guard let capabilities = try? ClientCapabilities(header: declaration),
            let served = try? decoder.decodePage(response.body).value
        else { return }
        let before = PageOutline(unresolved)
        let after = PageOutline(served)
        let contract = PageOutline(PageResolver(capabilities: capabilities).resolve(unresolved).page)
        for (id, widget) in before.widgets.sorted(by: { $0.key < $1.key })
        where after.widgets[id]?.type == widget.type && contract.widgets[id]?.type != widget.type {
            let outcome = contract.widgets[id].map { "a \($0.type)" } ?? "nothing (dropped)"
            record(
                ViolationCode.resolutionMismatch, "resolution", request: request,
                message:
                    "widget \(id) (\(widget.type)) is served unchanged to a client that does not meet its \(Self.describe(widget.compatibility)): the contract resolves it to \(outcome)",
                expected: outcome, actual: widget.type)
        }
        for id in before.sections.sorted() where after.sections.contains(id) && !contract.sections.contains(id) {
            record(
                ViolationCode.resolutionMismatch, "resolution", request: request,
                message:
                    "section \(id) is served to a client that does not meet its requirements: the contract replaces or drops it",
                expected: "no section \(id)", actual: "section \(id)")
        }
        let degradations = Degradation.list(inEnvelope: response.body)
        let named = Set(degradations.flatMap { [$0.widgetID, $0.sectionID].compactMap { $0 } })
        for (id, widget) in before.widgets.sorted(by: { $0.key < $1.key }) where after.widgets[id]?.type != widget.type
        {
            guard !([id] + before.ancestors[id, default: []]).contains(where: named.contains) else { continue }
            let change = after.widgets[id].map { "changed to a \($0.type) in" } ?? "missing from"
            record(
                ViolationCode.resolutionMismatch, "resolution", request: request, path: "/degradations",
                message:
                    "widget \(id) (\(widget.type)) is \(change) the answer for this client, but degradations does not list it",
                expected: "a degradation naming \(id)", actual: "(not listed)")
        }
        for id in before.sections.sorted() where !after.sections.contains(id) && !named.contains(id) {
            record(
                ViolationCode.resolutionMismatch, "resolution", request: request, path: "/degradations",
                message: "section \(id) is missing from the answer for this client, but degradations does not list it",
                expected: "a degradation naming \(id)", actual: "(not listed)")
        }
    }

    /// `X-Flow-Client` declarations that tell a server honouring `minAppVersion` from one that does not: for every
    /// version an annotation names, an app just below it and one at it — on that platform for a per-platform entry
    /// (so a server reading the `"*"` entry for every platform shows the difference), without a platform for the
    /// `"*"` entry. Sorted, at most ``maximumVersionProbes``.
    static func versionProbes(for page: PageModel) -> [String] {
        var probes: Set<String> = []
        func add(_ compatibility: Compatibility) {
            for (platform, version) in compatibility.minAppVersion?.versions ?? [:] {
                let prefix = platform == "*" ? "" : "platform=\(platform); "
                probes.insert(prefix + "version=\(version)")
                if let below = below(version) { probes.insert(prefix + "version=\(below)") }
            }
        }
        func walk(_ widgets: [Widget]) {
            for widget in widgets {
                add(widget.compatibility)
                walk(widget.children)
            }
        }
        walk(page.header)
        for section in page.sections {
            add(section.compatibility)
            walk(section.widgets)
        }
        walk(page.footer)
        return Array(probes.sorted().prefix(maximumVersionProbes))
    }

    /// The highest version below `version` with the same number of components (`3.1.0` → `3.0.99999`); nil for
    /// `0.0.0`.
    static func below(_ version: AppVersion) -> String? {
        var components = version.components
        guard let index = components.lastIndex(where: { $0 > 0 }) else { return nil }
        components[index] -= 1
        for later in components.indices.dropFirst(index + 1) { components[later] = 99_999 }
        return components.map(String.init).joined(separator: ".")
    }

    /// `minAppVersion ios 3.0.0, * 2.0 and requires haptics`.
    static func describe(_ compatibility: Compatibility) -> String {
        var parts: [String] = []
        if let versions = compatibility.minAppVersion?.versions, !versions.isEmpty {
            parts.append(
                "minAppVersion "
                    + versions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        if !compatibility.requires.isEmpty {
            parts.append("requires " + compatibility.requires.map(\.description).joined(separator: ", "))
        }
        return parts.isEmpty ? "requirements" : parts.joined(separator: " and ")
    }
}

/// The author ids of a page (generated ids shift when resolution drops a widget, so they name nothing): widgets,
/// nested children included, with the ids of the widgets and the section around each; and the sections.
struct PageOutline {
    var widgets: [String: Widget] = [:]
    /// Widget id → the ids of its containing widgets and its section, innermost first.
    var ancestors: [String: [String]] = [:]
    var sections: Set<String> = []

    init(_ page: PageModel) {
        walk(page.header, around: [])
        for section in page.sections {
            if !section.isGeneratedID { sections.insert(section.id) }
            walk(section.widgets, around: [section.id])
        }
        walk(page.footer, around: [])
    }

    private mutating func walk(_ list: [Widget], around: [String]) {
        for widget in list {
            if !widget.isGeneratedID, widgets[widget.id] == nil {
                widgets[widget.id] = widget
                ancestors[widget.id] = around
            }
            walk(widget.children, around: [widget.id] + around)
        }
    }
}
