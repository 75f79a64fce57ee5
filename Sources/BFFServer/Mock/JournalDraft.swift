import CCrypto
import Foundation
import HTTPCore

/// A journal entry waiting for its status: the mock layer subscribes it to what HTTPCore sends for the response
/// (``HTTPResponse/onSent``), so the journal shows the 304 or the gzip answer that went on the wire.
struct JournalDraft: Sendable {
    let journal: RequestJournal
    var entry: JournalEntry
    /// What the proxy forwarded for this request (``ForwardingNote``), read when the entry is recorded.
    var forwarding: ForwardingNote? = nil

    /// - Parameters:
    ///   - bodyLimit: bytes of the body kept (`mock.journalBodyBytes`).
    ///   - redacting: lowercased names of the fields whose values are replaced by `[redacted]`
    ///     (`mock.journalRedactHeaders`); a `Cookie` keeps its cookie names (`a=[redacted]; b=[redacted]`).
    /// - Parameter session: the request's session (``RequestContext``).
    init(
        _ request: HTTPRequest, session: String?, journal: RequestJournal, bodyLimit: Int = 16_384,
        redacting: Set<String> = BFFConfiguration.Mock.defaultRedactedHeaders
    ) {
        self.journal = journal
        let headers = request.headers.map { field in
            let name = field.name.lowercased()
            guard redacting.contains(name) else { return (name: field.name, value: field.value) }
            return (name: field.name, value: name == "cookie" ? Self.redactedCookies(field.value) : Self.redacted)
        }
        entry = JournalEntry(
            time: Date().timeIntervalSince1970, method: request.method.rawValue, target: request.target,
            headers: headers, bodyBytes: request.body.count,
            bodyDigest: request.body.isEmpty ? "" : Crypto.hex(Crypto.sha256(request.body).prefix(8)),
            status: 0, session: session, scenario: nil, faults: [],
            problemCode: nil, detail: nil)
        entry.body = Array(request.body.prefix(bodyLimit))
        entry.bodyTruncated = request.body.count > bodyLimit
    }

    static let redacted = "[redacted]"

    /// `a=1; b=2` as `a=[redacted]; b=[redacted]`: which cookies were sent stays visible, their values do not (the
    /// session a `flow_session` cookie names is the entry's `session`).
    static func redactedCookies(_ value: String) -> String {
        value.split(separator: ";").map { pair in
            let name = pair.prefix { $0 != "=" }.trimmingCharacters(in: .whitespaces)
            return pair.contains("=") ? name + "=" + redacted : redacted
        }.joined(separator: "; ")
    }

    /// Records the entry with `status` (0 when a fault sent nothing) and the answer's body bytes as sent.
    func record(status: Int, responseBytes: Int = 0) {
        var entry = entry
        entry.status = status
        entry.responseBytes = responseBytes
        if let forwarding {
            (entry.upstream, entry.contract) = forwarding.recorded
        }
        journal.append(entry)
    }
}
