import Foundation
import PageModel
import PageStore

/// The crawl of one page target: a ``PageStore`` over the verifier's HTTP loader, driven through load,
/// pagination, actions and refresh, with the protocol checks beside it. Collects a ``PageReport`` and the page
/// links to crawl next.
@MainActor
final class PageCrawl {
    let target: PageTarget
    /// The page whose widget or action response linked here; `nil` for entry pages.
    let referrer: String?
    let verifier: ContractVerifier
    var report: PageReport
    var links: [PageTarget] = []
    let decoder = PageDecoder()
    /// The first load's raw answer (`Accept-Encoding: identity`), for revalidation after the actions.
    var firstAnswer: HTTPProbe.Response?
    /// The api actions already fired (`name widgetID event`), each at the first point the device holds it.
    var firedActions: Set<String> = []
    /// The api actions already sent malformed requests (``probeMalformedActions(_:widget:check:)``).
    var probedActions: Set<String> = []
    /// Widget id → the events some widget with that id declares, over the whole document and every answer applied:
    /// any of them is one a device can hold (docs/contract.md § 9.1), so its events are not undeclared.
    var declaredEvents: [String: Set<String>] = [:]
    /// Undeclared-event probes, sent once the page's actions ran and ``declaredEvents`` is complete.
    var pendingEventProbes: [(request: ActionRequest, check: String)] = []

    /// The widget-state key the lifecycle checks set and read.
    static let probeKey = "flow-bff.verify.probe"
    static let probeValue = "set before the request"

    init(target: PageTarget, referrer: String?, verifier: ContractVerifier) {
        self.target = target
        self.referrer = referrer
        self.verifier = verifier
        report = PageReport(page: target.description)
    }

    var configuration: VerifierConfiguration { verifier.configuration }
    var loader: RecordingLoader { verifier.loader }
    var probe: HTTPProbe { verifier.probe }

    var initialRequest: PageRequest {
        PageRequest(pageID: target.pageID, parameters: target.parameters, kind: .initial)
    }

    func run() async {
        let store = PageStore(pageID: target.pageID, parameters: target.parameters, loader: loader)
        let log = DiagnosticLog(recording: store)
        begin("load")
        await store.loadInitial()
        let state = store.peek(\.state)
        switch state {
        case .failed(let message):
            report.state = "failed"
            let origin = referrer.map { " (linked from page \($0))" } ?? ""
            record(
                ViolationCode.pageFailed, "load", request: loader.describe(initialRequest), message: message + origin)
            return
        case .empty: report.state = "empty"
        case .loaded, .loading: report.state = "loaded"
        }
        record(log.since(0), check: "load", request: loader.describe(initialRequest))
        if let id = store.peek(\.page?.id), id != target.pageID {
            record(
                ViolationCode.pageIDMismatch, "load", request: loader.describe(initialRequest),
                path: JSONPointer("/page/id"), message: "the page's id is not the page id of the route",
                expected: target.pageID, actual: id)
        }
        if let page = store.peek(\.page) { lint(page, check: "load", request: loader.describe(initialRequest)) }
        await checkHTTP()
        if configuration.negativeProbes, target == configuration.entryPages.first { await probeUnknownPage() }
        // A device shows `.empty` and never asks an empty page for more (the lint reports its pagination).
        if state != .empty { await paginate(store, log: log) }
        guard let document = store.peek(\.page) else { return }
        checkCapabilities(document)
        let scan = DocumentScan(document)
        report.shape = PageShape(document)
        report.sections = document.sections.count
        report.widgets = scan.widgetCount
        report.exercised.widgetTypes.formUnion(scan.widgetTypes)
        report.exercised.actionTypes.formUnion(scan.actionTypes)
        links.append(contentsOf: scan.links)
        declaredEvents.merge(scan.events) { $0.union($1) }
        await fireActions(scan.apiActions, on: document, store: store, log: log)
        await probeUndeclaredEvents()
        await checkRevalidation()
        await checkRefresh(store)
    }

    /// With a capability profile: `document` (as served, or after an action's mutations) holds only what that
    /// client renders.
    func checkCapabilities(_ document: PageModel, check: String = "capabilities", request: String? = nil) {
        guard let profile = configuration.capabilities else { return }
        begin(check)
        for problem in CapabilityCheck.problems(in: document, for: profile.capabilities) {
            record(
                ViolationCode.unrenderableWidget, check, request: request ?? loader.describe(initialRequest),
                path: problem.path, message: "\(problem.code) for profile \(profile.name): \(problem.message)")
        }
    }

    // MARK: Recording

    /// Makes sure the check `name` appears in the report (passing until a violation is recorded).
    func begin(_ name: String) {
        if !report.checks.contains(where: { $0.name == name }) { report.checks.append(CheckResult(name: name)) }
    }

    func record(
        _ code: String, _ check: String, request: String, path: JSONPointer = .root, message: String,
        expected: String? = nil, actual: String? = nil
    ) {
        begin(check)
        let index = report.checks.firstIndex { $0.name == check }!
        guard report.checks[index].violations.count < configuration.maximumViolationsPerCheck else {
            report.checks[index].suppressed += 1
            return
        }
        report.checks[index].violations.append(
            Violation(
                code: code, page: target.description, check: check, request: request, path: path, message: message,
                expected: expected, actual: actual))
    }

    /// Error diagnostics of a decoded body: `duplicate_id` → ``ViolationCode/duplicateID``, others →
    /// ``ViolationCode/errorDiagnostic``. Warnings are not violations.
    func record(_ diagnostics: some Collection<Diagnostic>, check: String, request: String) {
        for diagnostic in diagnostics where diagnostic.severity == .error {
            let code = diagnostic.code == "duplicate_id" ? ViolationCode.duplicateID : ViolationCode.errorDiagnostic
            record(
                code, check, request: request, path: diagnostic.path,
                message: "\(diagnostic.code): \(diagnostic.message)")
        }
    }
}

/// What a document links to and fires: page links, api actions, widget count. One walk over the document.
struct DocumentScan {
    struct APIAction {
        var widget: Widget
        var event: String
        var name: String
    }

    var links: [PageTarget] = []
    var apiActions: [APIAction] = []
    var widgetCount = 0
    /// Widget id → the events its widgets declare (nested ones included).
    var events: [String: Set<String>] = [:]
    /// The widget types and the action types of their `actions` met.
    var widgetTypes: Set<String> = []
    var actionTypes: Set<String> = []

    init(_ page: PageModel) {
        walk(page.header)
        for section in page.sections { walk(section.widgets) }
        walk(page.footer)
    }

    init(widgets: [Widget]) {
        walk(widgets)
    }

    private mutating func walk(_ widgets: [Widget]) {
        for widget in widgets {
            widgetCount += 1
            widgetTypes.insert(widget.type)
            events[widget.id, default: []].formUnion(widget.actions.keys)
            for event in widget.actions.keys.sorted() {
                let action = widget.actions[event]!
                actionTypes.insert(action.type)
                if case .api(let name, _) = action {
                    apiActions.append(APIAction(widget: widget, event: event, name: name))
                } else if let link = Self.link(action) {
                    links.append(link)
                }
            }
            walk(widget.children)
        }
    }

    /// The page an action opens: `open_bottom_sheet`, or a deeplink `scheme://pages/{pageID}?name=value`.
    static func link(_ action: Action) -> PageTarget? {
        switch action {
        case .openBottomSheet(let pageID, let parameters):
            return PageTarget(pageID: pageID, parameters: parameters)
        case .deeplink(let url):
            guard let components = URLComponents(string: url), components.host == "pages" else { return nil }
            let segments = components.path.split(separator: "/")
            guard segments.count == 1 else { return nil }
            var parameters: [String: String] = [:]
            for item in components.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
            return PageTarget(pageID: String(segments[0]), parameters: parameters)
        default:
            return nil
        }
    }
}
