import Foundation
import PageModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension PageCrawl {
    /// With `--capabilities`: every section and widget the declared client lost (`section_dropped`,
    /// `widget_dropped` in the first page's `degradations`) must be a loss its author chose — a `"drop"` fallback on
    /// the widget or section, read from the same page asked for without `X-Flow-Client` (the unresolved page still
    /// carries its annotations, contract § 17). Anything else — no fallback, a category the client does not render,
    /// a type no app renders (a typo) — is ``ViolationCode/contentLost``. A section emptied by its widgets' drops
    /// is judged by those widgets.
    func checkContentLoss(_ degradations: [Degradation], urlRequest: URLRequest, request: String) async {
        guard configuration.capabilities != nil else { return }
        let losses = degradations.filter {
            $0.code == Degradation.Code.widgetDropped
                || ($0.code == Degradation.Code.sectionDropped && $0.reason != Degradation.emptiedSectionReason)
        }
        guard !losses.isEmpty else { return }
        guard
            let response = try? await probe.send(
                urlRequest, headers: ["Accept-Encoding": "identity"], removing: [ClientCapabilities.headerName]),
            response.status == 200, let page = try? decoder.decodePage(response.body).value
        else { return }
        var widgets: [String: Widget] = [:]
        func index(_ list: [Widget]) {
            for widget in list {
                widgets[widget.id] = widget
                index(widget.children)
            }
        }
        index(page.header)
        index(page.footer)
        for section in page.sections { index(section.widgets) }
        let sections = Dictionary(page.sections.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for loss in losses {
            let chosen: Bool
            let what: String
            let present =
                loss.code == Degradation.Code.sectionDropped
                ? loss.sectionID.flatMap { sections[$0] } != nil : loss.widgetID.flatMap { widgets[$0] } != nil
            guard present else {
                record(
                    ViolationCode.contentLost, "capabilities", request: request,
                    message:
                        "the declared client loses \(loss.widgetID ?? loss.sectionID ?? "?"), which the page asked for without X-Flow-Client does not hold either: that answer must be the unresolved page, with the author's fallbacks (\(loss.reason))",
                    expected: "the unresolved page without the header", actual: loss.code)
                continue
            }
            if loss.code == Degradation.Code.sectionDropped {
                chosen = loss.sectionID.flatMap { sections[$0] }?.compatibility.fallback == .drop
                what = "section \(loss.sectionID ?? "?")"
            } else {
                chosen = loss.widgetID.flatMap { widgets[$0] }?.compatibility.fallback == .drop
                what = "widget \(loss.widgetID ?? "?")\(loss.type.map { " (\($0))" } ?? "")"
            }
            guard !chosen else { continue }
            record(
                ViolationCode.contentLost, "capabilities", request: request,
                message:
                    "the declared client loses \(what) without a \"drop\" fallback: \(loss.reason)",
                expected: "a fallback it renders, or \"fallback\": \"drop\" when losing it is acceptable",
                actual: loss.code)
        }
    }
}
