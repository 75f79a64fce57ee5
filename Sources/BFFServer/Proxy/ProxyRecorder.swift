import Dispatch
import Foundation
import HTTPCore
import PageModel

/// The proxy's `--record DIR` (docs/proxy.md, "Recording"): each page forwarded on a first load is fetched on to its
/// last chunk — with the fields the device sent, so the upstream answers the same client — and the chunks are merged
/// into one page file; each action answer is stored in the page file that fires it (``PageRecorder``). The first
/// load's answer waits for its recording, so a test that has its answer finds the file written. Files are written
/// on a queue of their own, never on an event loop.
final class ProxyRecorder: Sendable {
    let recorder: PageRecorder
    private let log: Logger
    private let queue = DispatchQueue(label: "flow-bff.proxy.record")
    /// Most chunks followed for one page (a cursor loop in the upstream ends here).
    static let maximumChunks = 1_000

    init(configuration: BFFConfiguration.Proxy, pages: BFFConfiguration.Pages, log: Logger) {
        var rules = RecordingRules()
        rules.redactedKeys += configuration.recordRedactKeys
        rules.normalizedKeys += configuration.recordNormalizeKeys
        let directory = configuration.recordDirectory
        recorder = PageRecorder(directory: URL(fileURLWithPath: directory), rules: rules, defaults: pages)
        self.log = log
    }

    /// Records the answer to `exchange` (a 2xx without contract errors).
    func record(_ exchange: Proxy.Exchange, answer: UpstreamResponse, context: RequestContext, proxy: Proxy) async {
        switch exchange.target {
        case .page(let pageID):
            guard exchange.method == "GET" else { return }
            var chunks = [answer.body]
            var postback = Self.postback(answer.body)
            while let cursor = postback, chunks.count < Self.maximumChunks {
                let target = "/v1/pages/\(pageID)/next?postback=" + Self.queryEncoded(cursor)
                do {
                    let next = try await proxy.client.forward(
                        "GET", target: target, body: nil, fields: exchange.fields, requestID: context.requestID,
                        traceContext: nil)
                    guard (200..<300).contains(next.status) else {
                        log.warning(
                            "recording stopped: a next chunk was answered \(next.status)",
                            ["page": .string(pageID)])
                        return
                    }
                    chunks.append(next.body)
                    postback = Self.postback(next.body)
                } catch {
                    log.warning("recording stopped: \(error)", ["page": .string(pageID)])
                    return
                }
            }
            let parameters = Self.parameters(of: exchange.origin)
            let merged = chunks
            await write("page \(pageID)") { try $0.recordPage(pageID: pageID, parameters: parameters, chunks: merged) }
        case .action(let name):
            let hint = exchange.body.flatMap { try? JSONParser().parse($0) }?["pageID"]?.stringValue
            await write("action \(name)") { try $0.recordAction(name: name, body: answer.body, pageHint: hint) }
        case .nextPage:
            return  // recorded with its first load
        }
    }

    /// Runs `work` on the recording queue, logging what it wrote or why it could not.
    private func write(_ what: String, _ work: @escaping @Sendable (PageRecorder) throws -> RecordingOutcome) async {
        let recorder = recorder
        let log = log
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async {
                do {
                    let outcome = try work(recorder)
                    if let reason = outcome.skipped {
                        log.warning("not recorded: \(what): \(reason)")
                    } else {
                        log.info(
                            "recorded \(what)",
                            [
                                "written": .string(outcome.written.joined(separator: ", ")),
                                "unchanged": .string(outcome.unchanged.joined(separator: ", ")),
                            ])
                    }
                } catch {
                    log.warning("could not record \(what): \(error)")
                }
                done.resume()
            }
        }
    }

    /// The postback of a `page` (`page.pagination`) or `nextPage` (`pagination`) envelope whose `hasMore` is true.
    static func postback(_ body: [UInt8]) -> String? {
        guard let envelope = try? JSONParser().parse(body),
            let pagination = envelope["page"]?["pagination"] ?? envelope["pagination"],
            pagination["hasMore"]?.boolValue == true
        else { return nil }
        return pagination["postback"]?.stringValue
    }

    /// The page parameters of an origin-form target: its query items, decoded.
    static func parameters(of origin: String) -> [String: String] {
        var parameters: [String: String] = [:]
        // Mock-only parameters (`__scenario`) are not page parameters, as in HAR import.
        for item in HTTPRequest(method: .get, target: origin).queryItems where !item.name.hasPrefix("__") {
            parameters[item.name] = item.value
        }
        return parameters
    }

    /// `text` percent-encoded for a query value (RFC 3986 unreserved characters stay).
    static func queryEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
