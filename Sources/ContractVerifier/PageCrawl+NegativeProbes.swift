import Foundation
import PageModel
import PageStore

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
    /// not have, and — when the widget does not declare it — the other event. Each must be refused `400` with a
    /// problem+json body (`unknown_widget`, `undeclared_event`; docs/contract.md § 9.1), not answered.
    func probeMalformedActions(_ request: ActionRequest, widget: Widget, check: String) async {
        var unknownWidget = request
        unknownWidget.widgetID = "flow-bff-verify-no-such-widget"
        await probeRefusal(unknownWidget, expectedCode: "unknown_widget", check: check)
        let other = request.event == "tap" ? "change" : "tap"
        guard widget.actions[other] == nil else { return }
        var undeclared = request
        undeclared.event = other
        await probeRefusal(undeclared, expectedCode: "undeclared_event", check: check)
    }

    private func probeRefusal(_ action: ActionRequest, expectedCode: String, check: String) async {
        let request = PageRequest(pageID: target.pageID, kind: .action(action))
        let requestText = loader.describe(request) + " (\(expectedCode) probe)"
        guard let response = try? await probe.send(loader.http.urlRequest(for: request)) else {
            record(ViolationCode.invalidProblemResponse, check, request: requestText, message: "no answer")
            return
        }
        guard response.status == 400 else {
            let what = expectedCode == "unknown_widget" ? "a widget the page does not have" : "an undeclared event"
            record(
                ViolationCode.invalidProblemResponse, check, request: requestText,
                message: "an action request naming \(what) was answered \(response.status)", expected: "400",
                actual: String(response.status))
            return
        }
        checkProblem(response, check: check, request: requestText, expectedCode: expectedCode)
    }
}
