import Foundation
import PageModel
import Synchronization

/// A folder of page files written from observed contract answers: the proxy's `--record DIR` and
/// `flow-bff import har` (docs/proxy.md § Recording and HAR import).
///
/// Every envelope is decoded with PageModel's ``PageDecoder`` first; an invalid one is a ``RecordingError`` with
/// its code and JSON path, and nothing is written. The files written are checked with the server's own page-file
/// rules before they are written, so the folder stays loadable by `flow-bff serve` and `flow-bff check`. Output
/// is deterministic: the same recordings always give byte-identical files, and a file whose bytes would not
/// change is not touched (its modification time stays).
///
/// Thread-safe: calls from concurrent tasks are serialised by a lock, one whole read-change-write at a time. The
/// calls read and write files synchronously; call them from a thread of your own, not the Swift concurrency pool.
public final class PageRecorder: Sendable {
    /// The folder written.
    public let directory: URL
    public let rules: RecordingRules
    /// The page settings the written files are checked with (custom widget and action types).
    public let defaults: BFFConfiguration.Pages
    private let lock = Mutex(())

    /// - Parameters:
    ///   - directory: the folder to write; created with the first file when it does not exist.
    ///   - rules: redaction, normalisation and stand-ins (default ``RecordingRules/init(redactedKeys:normalizedKeys:normalizesTimestamps:addsStandIns:)``).
    ///   - defaults: the page settings to check the files with, e.g. the configuration's custom widget types
    ///     (default: none).
    public init(directory: URL, rules: RecordingRules = RecordingRules(), defaults: BFFConfiguration.Pages = .init()) {
        self.directory = directory
        self.rules = rules
        self.defaults = defaults
    }

    /// Records a page fetched through to its end: the first `page` envelope body and each following `nextPage`
    /// envelope body, in order.
    ///
    /// The chunks are merged into one page file: the first envelope's `page` with the sections of all chunks and
    /// no `pagination`, and `server.pageSize` set so that serving the file cuts the same chunks (the size of the
    /// largest chunk but the last when there are several, `0` — everything at once — for one). Other `server`
    /// settings of an existing file (actions, variants, cache control, strings) are kept.
    ///
    /// With `parameters` (the query of the first load), the document is written as the scenario file
    /// `<pageID>.<scenario>.json` and `<pageID>.json` gets a `server.variants` entry whose `when` matches exactly
    /// these query parameters, so `GET /v1/pages/<pageID>?<parameters>` serves it; the scenario is named after the
    /// parameter values (`product.p-1042.json` for `productID=p-1042`). When there is no `<pageID>.json` yet, the
    /// document is also written as the base page.
    ///
    /// - Returns: the files written and left unchanged, and notes (an incomplete chain, stand-ins, a variant).
    /// - Throws: ``RecordingError`` for an invalid envelope, a mismatched page id, a file the server would refuse,
    ///   or a failed write; nothing is written then.
    @discardableResult
    public func recordPage(pageID: String, parameters: [String: String], chunks: [[UInt8]]) throws(RecordingError)
        -> RecordingOutcome
    {
        let merged = try Self.merge(pageID: pageID, chunks: chunks, rules: rules, catalog: .standard)
        return try lock.withLock { _ throws(RecordingError) -> RecordingOutcome in
            var folder = try RecordedFolder(directory: directory.path, defaults: defaults)
            folder.notes = merged.notes
            if let reason = try folder.recordPage(
                pageID: pageID, parameters: parameters, document: merged.document, pageSize: merged.pageSize,
                rules: rules)
            {
                return RecordingOutcome(skipped: reason, notes: folder.notes)
            }
            try folder.checkChanged()
            var outcome = RecordingOutcome(notes: folder.notes)
            try folder.write(into: &outcome)
            return outcome
        }
    }

    /// Records an api action's answer (an `actionResponse` envelope body) as `server.actions[name]` of the page
    /// that declares it already, else of the recorded page whose widgets or answers fire `{"type": "api", "name":
    /// name}` (the first such file, sorted by name), else of `pageHint` when that page is recorded. The last answer
    /// recorded for a name wins; a hand-written `{"responses": [...]}` declaration is never replaced.
    ///
    /// - Returns: the file written or unchanged, or ``RecordingOutcome/skipped`` with the reason nothing was
    ///   recorded (no recorded page fires the action and there is no usable hint).
    /// - Throws: ``RecordingError`` for an invalid envelope or name, an answer whose mutations do not apply to the
    ///   page (`rejected_by_check`), or a failed write; nothing is written then.
    @discardableResult
    public func recordAction(name: String, body: [UInt8], pageHint: String?) throws(RecordingError)
        -> RecordingOutcome
    {
        guard ActionName.isValid(name) else {
            throw RecordingError(
                code: .invalidActionName, message: "action names match \(ActionName.pattern), found \"\(name)\"")
        }
        let answer = try Self.answer(body, rules: rules, catalog: .standard)
        return try lock.withLock { _ throws(RecordingError) -> RecordingOutcome in
            var folder = try RecordedFolder(directory: directory.path, defaults: defaults)
            if let reason = try folder.recordAction(name: name, answer: answer, pageHint: pageHint, rules: rules) {
                return RecordingOutcome(skipped: reason)
            }
            try folder.checkChanged()
            var outcome = RecordingOutcome(notes: folder.notes)
            try folder.write(into: &outcome)
            return outcome
        }
    }
}
