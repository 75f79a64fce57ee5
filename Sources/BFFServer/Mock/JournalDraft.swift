import CCrypto
import Foundation
import HTTPCore

/// A journal entry waiting for its status: attached to the response (``HTTPLogContext/extra``) and recorded
/// when HTTPCore reports what it sent, so the journal shows the 304 or the gzip answer that went on the wire.
struct JournalDraft: ResponseSentObserver {
    let journal: RequestJournal
    var entry: JournalEntry

    /// - Parameter bodyLimit: bytes of the body kept (`mock.journalBodyBytes`).
    init(_ request: HTTPRequest, journal: RequestJournal, bodyLimit: Int = 16_384) {
        self.journal = journal
        let headers = request.headers.map { field in
            (name: field.name, value: field.name.lowercased() == "authorization" ? "(redacted)" : field.value)
        }
        entry = JournalEntry(
            time: Date().timeIntervalSince1970, method: request.method.rawValue, target: request.target,
            headers: headers, bodyBytes: request.body.count,
            bodyDigest: request.body.isEmpty ? "" : Crypto.hex(Crypto.sha256(request.body).prefix(8)),
            status: 0, session: (try? MockRequestContext.sessionID(request)) ?? nil, scenario: nil, faults: [],
            problemCode: nil, detail: nil)
        entry.body = Array(request.body.prefix(bodyLimit))
        entry.bodyTruncated = request.body.count > bodyLimit
    }

    /// Records the entry with `status` (0 when a fault sent nothing).
    func record(status: Int) {
        var entry = entry
        entry.status = status
        journal.append(entry)
    }

    func responseSent(_ sent: HTTPAccessLogEntry) { record(status: sent.status) }
}
