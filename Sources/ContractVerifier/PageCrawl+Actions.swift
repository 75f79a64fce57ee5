import Foundation
import PageModel
import PageStore

extension PageCrawl {
    /// Fires every api action a widget of the paginated document references, through ``ActionDispatcher`` (the
    /// loader's `POST /v1/actions/{name}`, detached decode, all-or-nothing mutations, then effects). Each action
    /// starts from `document` (the whole paginated one, or the one of a `point` of pagination), so actions are
    /// checked independently of each other; the page a `replacePage` brings is paginated.
    func fireActions(
        _ actions: [DocumentScan.APIAction], on document: PageModel, store: PageStore, log: DiagnosticLog,
        point: String? = nil
    ) async {
        guard !actions.isEmpty else { return }
        let dispatcher = ActionDispatcher(store: store)
        var names = Set(report.actions)
        defer { report.actions = names.sorted() }
        for action in actions {
            let check = "action \(action.name) \(action.widget.id) \(action.event)" + (point.map { " (\($0))" } ?? "")
            begin(check)
            do {
                try store.apply(.replacePage(document))
            } catch {
                record(ViolationCode.mutationFailed, check, request: "", message: "cannot reset the document: \(error)")
                continue
            }
            let value = Self.realisticValue(for: action.widget, event: action.event)
            var payload: JSONValue?
            if case .api(_, let sent)? = action.widget.actions[action.event] { payload = sent }
            let request = ActionRequest(
                name: action.name, pageID: target.pageID, widgetID: action.widget.id, event: action.event,
                value: value, payload: payload)
            let requestText = loader.describe(PageRequest(pageID: target.pageID, kind: .action(request)))
            let diagnosticsBefore = log.count
            names.insert(action.name)
            report.actionRequests += 1
            let outcome = await dispatcher.dispatch(action.event, of: action.widget, value: value)
            // Probed only for an action the server answers (applied, or an expected problem): for one it does not
            // know, 404 unknown_action comes first.
            var answered = false
            switch outcome {
            case .applied: answered = true
            case .failed(let error): answered = isExpected(error, action: action.name)
            default: break
            }
            if answered, configuration.negativeProbes, probedActions.insert(action.name).inserted {
                await probeMalformedActions(request, widget: action.widget, check: check)
            }
            switch outcome {
            case .applied(let response):
                declaredEvents.merge(DocumentScan(widgets: response.mutations.flatMap(\.broughtWidgets)).events) {
                    $0.union($1)
                }
                report.exercised.mutationTypes.formUnion(response.mutations.map(\.type))
                report.exercised.effectTypes.formUnion(response.effects.map(\.type))
                let found = Array(log.since(diagnosticsBefore))
                checkResponse(response, diagnostics: found, check: check, request: requestText)
                lint(response, check: check, request: requestText)
                if let after = store.peek(\.page) { checkCapabilities(after, check: check, request: requestText) }
                if response.mutations.contains(where: { $0.type == "replacePage" }) {
                    await followPagination(store, log: log, check: check)
                }
            case .failed(let error) where isExpected(error, action: action.name):
                checkExpectedProblem(error, action: action.name, check: check, request: requestText)
            case .failed(let error):
                let isMutation = ["mutation_target_not_found", "no_document"].contains(error.code)
                record(
                    isMutation ? ViolationCode.mutationFailed : ViolationCode.actionFailed, check,
                    request: requestText, path: isMutation ? "/mutations" : .root,
                    message: isMutation ? error.message : "\(error.message) [\(error.code)]")
            case .dropped, .handled, .noAction, .unhandled:
                break
            }
        }
    }

    /// Whether `error` is an answer ``VerifierConfiguration/expectedProblems`` lists for `action`.
    func isExpected(_ error: PageLoadError, action: String) -> Bool {
        configuration.expectedProblems[action]?.contains { $0.code == error.code } == true
    }

    /// A problem the action may answer with (``VerifierConfiguration/expectedProblems``) is a legal outcome; it
    /// must still be a well-formed problem: an `application/problem+json` body whose `status` is the HTTP status
    /// (and the declared one, when declared), leaking nothing internal.
    func checkExpectedProblem(_ error: PageLoadError, action: String, check: String, request: String) {
        let declared = configuration.expectedProblems[action]?.filter { $0.code == error.code } ?? []
        guard let problem = error.problem else {
            record(
                ViolationCode.invalidProblemResponse, check, request: request,
                message: "the expected problem \(error.code) of \(action) came without an application/problem+json body"
            )
            return
        }
        let mediaType = error.contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        var wellFormed = true
        if mediaType?.lowercased() != ProblemDetails.mediaType {
            wellFormed = false
            record(
                ViolationCode.wrongContentType, check, request: request,
                message: "the expected problem \(error.code) of \(action) is not sent as application/problem+json",
                expected: ProblemDetails.mediaType, actual: error.contentType ?? "(no Content-Type)")
        }
        if let status = error.status, status != problem.status {
            wellFormed = false
            record(
                ViolationCode.invalidProblemResponse, check, request: request, path: JSONPointer.root / "status",
                message:
                    "the expected problem \(error.code) of \(action): the body's status and the HTTP status disagree",
                expected: String(status), actual: String(problem.status))
        }
        if let body = try? JSONEncoder().encode(problem), let leak = ProblemLeak.find(in: Array(body)) {
            wellFormed = false
            record(
                ViolationCode.invalidProblemResponse, check, request: request,
                message: "the expected problem \(error.code) of \(action) leaks server internals (\(leak.kind))",
                actual: leak.excerpt)
        }
        guard wellFormed else { return }
        guard declared.contains(where: { $0.status == nil || $0.status == problem.status }) else {
            let statuses = declared.compactMap(\.status).map(String.init).joined(separator: " or ")
            record(
                ViolationCode.invalidProblemResponse, check, request: request, path: JSONPointer.root / "status",
                message: "the expected problem \(error.code) of \(action) came with another status",
                expected: statuses, actual: String(problem.status))
            return
        }
        report.expectedProblems += 1
    }

    /// Fires, against the document the store holds after `chunks` chunks (0: the first page), the actions of
    /// `actions` not fired at an earlier point, then puts that document back so pagination continues from it.
    /// An action is checked at the first point a device can fire it — where the fewest of the page's widgets are
    /// loaded, so a mutation aimed at a widget of a later chunk fails as on the device — and again on the whole
    /// paginated document.
    func fireActions(at chunks: Int, widgets actions: [DocumentScan.APIAction], store: PageStore, log: DiagnosticLog)
        async
    {
        guard let document = store.peek(\.page) else { return }
        let fresh = actions.filter { firedActions.insert("\($0.name) \($0.widget.id) \($0.event)").inserted }
        guard !fresh.isEmpty else { return }
        let point = chunks == 0 ? "first page" : "after chunk \(chunks)"
        await fireActions(fresh, on: document, store: store, log: log, point: point)
        do {
            try store.apply(.replacePage(document))
        } catch {
            record(
                ViolationCode.mutationFailed, "pagination", request: loader.describe(initialRequest),
                message: "cannot put the document back after its actions: \(error)")
        }
    }

    /// After an action replaced the page, a device paginates the new document: each chunk must load and decode
    /// without error, bounded by `maximumChunks`.
    func followPagination(_ store: PageStore, log: DiagnosticLog, check: String) async {
        var seen: Set<String> = []
        var chunks = 0
        // Scalars only between chunks, as in `paginate`: the store appends in place when nothing else holds the page.
        while store.peek(\.page?.hasMore) == true, let postback = store.peek(\.page?.pagination?.postback),
            seen.insert(postback).inserted, chunks < configuration.maximumChunks
        {
            let request = loader.describe(PageRequest(pageID: target.pageID, kind: .nextPage(postback: postback)))
            let before = log.count
            let sectionsBefore = store.peek(\.page?.sections.count) ?? 0
            await store.loadNextPage()
            chunks += 1
            if let error = store.peek(\.paginationStatus.error) {
                record(
                    ViolationCode.paginationFailed, check, request: request,
                    message: "paginating the page the action brought (replacePage): \(error.message)")
                return
            }
            record(log.since(before), check: check, request: request)
            let arrived = store.peek(\.page).map { Array($0.sections.dropFirst(sectionsBefore)) } ?? []
            lint(chunk: arrived, check: check, request: request)
            links.append(contentsOf: DocumentScan(widgets: arrived.flatMap(\.widgets)).links)
        }
    }

    /// Checks a decoded, applied action response: its diagnostics, its mutations' ids and its effects; queues
    /// the pages its effects and new widgets link to.
    func checkResponse(
        _ response: ActionResponse, diagnostics: [Diagnostic], check: String, request: String
    ) {
        var collisions: [Diagnostic] = []
        for diagnostic in diagnostics where diagnostic.severity == .error {
            if diagnostic.code == "duplicate_id" {
                collisions.append(diagnostic)
            } else if diagnostic.path.string.hasPrefix("/effects/") {
                record(
                    ViolationCode.invalidEffect, check, request: request, path: diagnostic.path,
                    message: "\(diagnostic.code): \(diagnostic.message)")
            } else {
                record(
                    ViolationCode.errorDiagnostic, check, request: request, path: diagnostic.path,
                    message: "\(diagnostic.code): \(diagnostic.message)")
            }
        }
        recordCollisions(collisions, in: response, check: check, request: request)
        for (index, effect) in response.effects.enumerated() {
            // `x-…` types are the contract's extension point: custom effects the app handles (docs/check.md).
            if case .unknown(let type, _) = effect, !AuthoringTypes().isCustom(actionType: type) {
                record(
                    ViolationCode.invalidEffect, check, request: request,
                    path: JSONPointer.root / "effects" / index / "type",
                    message:
                        "effect type \"\(type)\" is not one clients run (\(ActionType.all.joined(separator: ", ")))")
            }
            if let link = DocumentScan.link(effect) { links.append(link) }
        }
        for mutation in response.mutations {
            switch mutation {
            case .replacePage(let page): links.append(contentsOf: DocumentScan(page).links)
            case .appendSections(let sections), .prependSections(let sections):
                links.append(contentsOf: DocumentScan(widgets: sections.flatMap(\.widgets)).links)
            case .replaceWidget(_, let widget): links.append(contentsOf: DocumentScan(widgets: [widget]).links)
            case .removeWidget: break
            }
        }
    }

    /// Records each id collision of an applied response. The store's rename findings already point into the
    /// response (`/mutations/2/sections/0/id`), so the path names the mutation that brought the id.
    func recordCollisions(_ collisions: [Diagnostic], in response: ActionResponse, check: String, request: String) {
        for diagnostic in collisions {
            let components = diagnostic.path.string.split(separator: "/", maxSplits: 2)
            var type = "mutation"
            if components.count >= 2, components[0] == "mutations", let index = Int(components[1]),
                response.mutations.indices.contains(index)
            {
                type = response.mutations[index].type
            }
            record(
                ViolationCode.mutationIDCollision, check, request: request, path: diagnostic.path,
                message: "\(type): \(diagnostic.message)")
        }
    }

    /// The `value` a device would send: a stepper's next value (`value + step`, within `max`), else the
    /// content's `value` for `change` events, nothing for taps.
    static func realisticValue(for widget: Widget, event: String) -> JSONValue? {
        guard event == WidgetEvent.change else { return nil }
        guard widget.type == "stepper" else { return widget.content["value"] }
        let value = widget.content["value"]?.intValue ?? 0
        let step = widget.content["step"]?.intValue ?? 1
        var next = value + step
        if let maximum = widget.content["max"]?.intValue, next > maximum { next = value - step }
        if let minimum = widget.content["min"]?.intValue, next < minimum { next = minimum }
        return .number(Double(next))
    }
}
