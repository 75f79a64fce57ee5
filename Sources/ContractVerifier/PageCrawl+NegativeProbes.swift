import Foundation
import PageModel
import PageStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension PageCrawl {
    /// A page id no server has: the answer must be a `404` problem+json `page_not_found` (docs/contract.md § 13),
    /// never an HTML error page. A server that serves every id (a `2xx`) is within the contract.
    func probeUnknownPage() async {
        let check = "negative_probes"
        begin(check)
        let request = PageRequest(pageID: "flow-bff-verify-no-such-page", kind: .initial)
        let requestText = loader.describe(request)
        guard let response = try? await probe.send(loader.http.urlRequest(for: request)) else {
            record(ViolationCode.invalidProblemResponse, check, request: requestText, message: "no answer")
            return
        }
        checkRequestID(response, check: check, request: requestText)
        guard !(200..<300).contains(response.status) else { return }
        guard response.status == 404 else {
            record(
                ViolationCode.invalidProblemResponse, check, request: requestText,
                message: "a page that does not exist was answered \(response.status)", expected: "404",
                actual: String(response.status))
            return
        }
        checkProblem(response, check: check, request: requestText, expectedCode: "page_not_found")
    }

    /// `request` (an action a widget of the page fires) sent as a device never would: naming a widget the page does
    /// not have, and the other event (queued: ``probeUndeclaredEvents()``). Each must be refused `400` with a
    /// problem+json body (`unknown_widget`, `undeclared_event`; docs/contract.md § 9.1), not answered.
    func probeMalformedActions(_ request: ActionRequest, widget: Widget, check: String) async {
        var unknownWidget = request
        unknownWidget.widgetID = "flow-bff-verify-no-such-widget"
        await probeRefusal(unknownWidget, expectedCode: "unknown_widget", check: check)
        var unknownPage = request
        unknownPage.pageID = "flow-bff-verify-no-such-page"
        await probeRefusal(unknownPage, expectedCode: "page_not_found", status: 404, check: check)
        await probeRefusal(request, expectedCode: "invalid_request", check: check, removing: "widgetID")
        var undeclared = request
        undeclared.event = request.event == "tap" ? "change" : "tap"
        pendingEventProbes.append((undeclared, check))
    }

    /// The queued undeclared-event probes whose event no widget with that id declares — in the document or in any
    /// answer applied (a button an answer turns into a stepper of the same id fires `change` legally).
    func probeUndeclaredEvents() async {
        let probes = pendingEventProbes
        pendingEventProbes = []
        for (request, check) in probes where declaredEvents[request.widgetID]?.contains(request.event) != true {
            await probeRefusal(request, expectedCode: "undeclared_event", check: check)
        }
    }

    /// Sends `action` (without the body member `removing`, when given): the answer must be a `status` problem+json
    /// with `expectedCode`.
    private func probeRefusal(
        _ action: ActionRequest, expectedCode: String, status: Int = 400, check: String, removing member: String? = nil
    ) async {
        let request = PageRequest(pageID: target.pageID, kind: .action(action))
        let requestText = loader.describe(request) + " (\(expectedCode) probe)"
        var urlRequest = loader.http.urlRequest(for: request)
        if let member, let body = urlRequest.httpBody, case .object(var object)? = try? JSONParser().parse(Array(body))
        {
            object[member] = nil
            urlRequest.httpBody = Data(JSONWriter().write(.object(object)))
        }
        guard let response = try? await probe.send(urlRequest) else {
            record(ViolationCode.invalidProblemResponse, check, request: requestText, message: "no answer")
            return
        }
        checkRequestID(response, check: check, request: requestText)
        guard response.status == status else {
            let what =
                switch expectedCode {
                case "unknown_widget": "naming a widget the page does not have"
                case "page_not_found": "naming a page the server does not have"
                case "invalid_request": "without \(member ?? "a required member")"
                default: "naming an undeclared event"
                }
            record(
                ViolationCode.invalidProblemResponse, check, request: requestText,
                message: "an action request \(what) was answered \(response.status)", expected: String(status),
                actual: String(response.status))
            return
        }
        checkProblem(response, check: check, request: requestText, expectedCode: expectedCode)
    }
}
