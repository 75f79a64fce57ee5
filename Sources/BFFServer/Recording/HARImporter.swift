import Foundation
import PageModel

/// Imports the contract answers of a HAR archive into a folder of page files through a ``PageRecorder``
/// (`flow-bff import har FILE --pages DIR`, docs/proxy.md § Recording and HAR import).
///
/// Reads `GET /v1/pages/{pageID}` (first loads; the query items are the page parameters, except mock-only ones
/// starting with `__`), `GET /v1/pages/{pageID}/next?postback=…` and `POST …/next` with `{"postback": …}`, and
/// `POST /v1/actions/{name}`, each with a 2xx JSON answer; the routes may sit below a path prefix. Each first load is
/// chained to its next chunks by following `pagination.postback` to the request that sent it back; a chain the
/// capture does not complete is imported with the chunks it has (the outcome notes it). Pages are recorded before
/// actions, so an answer finds the page that fires it.
public enum HARImporter {
    /// A contract request recognised in an entry.
    enum Route: Equatable {
        case page(String)
        case next(String)
        case action(String)
    }

    /// Imports `archive` with `recorder`; never throws: every entry is imported or reported as skipped.
    public static func run(_ archive: HARArchive, recorder: PageRecorder) -> HARImportReport {
        var report = HARImportReport()
        var firstLoads: [(entry: HARArchive.Entry, pageID: String, parameters: [String: String])] = []
        var nextChunks: [String: HARArchive.Entry] = [:]  // "pageID postback" → the first entry answering it
        var nextEntries: [Int] = []
        var actions: [(entry: HARArchive.Entry, name: String)] = []
        func skip(_ entry: HARArchive.Entry, _ reason: String, failure: Bool = false) {
            report.skipped.append(
                .init(entry: entry.index, request: "\(entry.method) \(entry.url)", reason: reason, isFailure: failure))
        }
        for entry in archive.entries {
            guard let components = URLComponents(string: entry.url), let route = route(entry.method, components)
            else {
                skip(entry, "not a contract route")
                continue
            }
            guard (200..<300).contains(entry.status) else {
                skip(entry, "status \(entry.status), not a 2xx answer")
                continue
            }
            guard let mimeType = entry.mimeType, mimeType.lowercased().contains("json") else {
                skip(entry, "not JSON (\(entry.mimeType ?? "no MIME type"))")
                continue
            }
            guard let body = entry.body, !body.isEmpty else {
                skip(entry, "no response body in the capture (response.content.text)")
                continue
            }
            switch route {
            case .page(let pageID):
                var parameters: [String: String] = [:]
                for item in components.queryItems ?? [] where !item.name.hasPrefix("__") {
                    parameters[item.name] = item.value ?? ""
                }
                firstLoads.append((entry, pageID, parameters))
            case .next(let pageID):
                guard let postback = postback(entry, components) else {
                    skip(entry, "a next-chunk request without a postback")
                    continue
                }
                if nextChunks["\(pageID) \(postback)"] == nil { nextChunks["\(pageID) \(postback)"] = entry }
                nextEntries.append(entry.index)
            case .action(let name):
                actions.append((entry, name))
            }
        }
        var chained: Set<Int> = []
        for (entry, pageID, parameters) in firstLoads {
            var chunks = [entry.body ?? []]
            var indices = [entry.index]
            var current = try? JSONParser().parse(entry.body ?? [])
            var pagination = current?["page"]?["pagination"]
            while indices.count <= archive.entries.count, pagination?["hasMore"] == .bool(true),
                let postback = pagination?["postback"]?.stringValue,
                let next = nextChunks["\(pageID) \(postback)"]
            {
                chunks.append(next.body ?? [])
                indices.append(next.index)
                chained.insert(next.index)
                current = try? JSONParser().parse(next.body ?? [])
                pagination = current?["pagination"]
            }
            let query = parameters.keys.sorted().map { "\($0)=\(parameters[$0]!)" }.joined(separator: "&")
            let subject = "page \(pageID)" + (query.isEmpty ? "" : "?\(query)")
            do {
                let outcome = try recorder.recordPage(pageID: pageID, parameters: parameters, chunks: chunks)
                if let reason = outcome.skipped {
                    skip(entry, reason)
                } else {
                    report.imported.append(.init(subject: subject, entries: indices, outcome: outcome))
                }
            } catch {
                skip(entry, "\(subject) (\(counted(chunks.count, "chunk"))): \(error)", failure: true)
            }
        }
        for index in nextEntries where !chained.contains(index) {
            skip(
                archive.entries[index],
                "a next chunk that no first load in the capture leads to (or a repeat of one already chained)")
        }
        for (entry, name) in actions {
            let hint = entry.requestBody.flatMap { try? JSONParser().parse($0) }?["pageID"]?.stringValue
            do {
                let outcome = try recorder.recordAction(name: name, body: entry.body ?? [], pageHint: hint)
                if let reason = outcome.skipped {
                    skip(entry, "unknown action target: \(reason)")
                } else {
                    report.imported.append(.init(subject: "action \(name)", entries: [entry.index], outcome: outcome))
                }
            } catch {
                skip(entry, "action \(name): \(error)", failure: true)
            }
        }
        report.skipped.sort { $0.entry < $1.entry }
        return report
    }

    /// The contract route of a request: the path ends in `v1/pages/{pageID}` (GET), `v1/pages/{pageID}/next` (GET or
    /// POST) or `v1/actions/{name}` (POST).
    static func route(_ method: String, _ components: URLComponents) -> Route? {
        let segments = components.percentEncodedPath.split(separator: "/").map {
            String($0).removingPercentEncoding ?? String($0)
        }
        let count = segments.count
        let method = method.uppercased()
        if count >= 4, segments[count - 4] == "v1", segments[count - 3] == "pages", segments[count - 1] == "next",
            method == "GET" || method == "POST"
        {
            return .next(segments[count - 2])
        }
        guard count >= 3, segments[count - 3] == "v1" else { return nil }
        switch (segments[count - 2], method) {
        case ("pages", "GET"): return .page(segments[count - 1])
        case ("actions", "POST"): return .action(segments[count - 1])
        default: return nil
        }
    }

    /// The postback a next-chunk request sent: `?postback=` of a GET, `{"postback": …}` of a POST.
    static func postback(_ entry: HARArchive.Entry, _ components: URLComponents) -> String? {
        if entry.method.uppercased() == "GET" {
            return components.queryItems?.first { $0.name == "postback" }?.value
        }
        return entry.requestBody.flatMap { try? JSONParser().parse($0) }?["postback"]?.stringValue
    }

    private static func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}
