import PageModel
import Synchronization

/// Swift code that answers requests — page providers (``PageProviders``) and action handlers (``ActionHandlers``)
/// are two registrations of this one engine. It keeps what is registered by name (or by `prefix.*` pattern where
/// its kind allows), runs a call under its timeout (504 with the kind's timeout code), turns an answer that fails
/// its check into the kind's logged 500, and counts every call's outcome per name for `/metrics`.
final class CodeRegistry<Work: Sendable, Options: Sendable>: Sendable {
    /// What differs between the kinds of Swift code.
    struct Kind: Sendable {
        /// "page provider", "action handler": the subject of problems and log lines.
        var subject: String
        /// The label naming a registration in the outcome metric (`page`, `action`).
        var label: String
        /// The outcome metric's name and help.
        var metric: String
        var help: String
        var timeoutCode: ProblemCode
        /// The 500 answered for an answer with error diagnostics (`invalid_provider_page`, …).
        var invalidCode: ProblemCode
        /// Whether `prefix.*` patterns may be registered (action names; page ids have no dots).
        var allowsPatterns: Bool
    }

    struct Registration: Sendable {
        var pattern: String
        var work: Work
        var options: Options
    }

    let kind: Kind
    private let exact = Mutex<[String: Registration]>([:])
    /// `prefix.*` registrations, longest prefix first.
    private let prefixes = Mutex<[Registration]>([])
    private let registered = Atomic<Int>(0)
    private let outcomes: LabeledCounter

    init(_ kind: Kind) {
        self.kind = kind
        outcomes = LabeledCounter(kind.metric, help: kind.help, labels: [kind.label, "outcome"])
    }

    /// Answers `pattern` with `work` from now on; a later registration of the same pattern replaces it.
    func register(_ pattern: String, options: Options, _ work: Work) {
        let registration = Registration(pattern: pattern, work: work, options: options)
        if kind.allowsPatterns, pattern.hasSuffix(".*") {
            prefixes.withLock { entries in
                entries.removeAll { $0.pattern == pattern }
                entries.append(registration)
                entries.sort { $0.pattern.count > $1.pattern.count }
            }
        } else {
            exact.withLock { $0[pattern] = registration }
        }
        registered.add(1, ordering: .relaxed)
    }

    /// The registration answering `name` (exact names before patterns); one atomic load while nothing is
    /// registered (the page-file hot path).
    func registration(for name: some StringProtocol) -> Registration? {
        guard registered.load(ordering: .relaxed) > 0 else { return nil }
        let name = String(name)
        if let registration = exact.withLock({ $0[name] }) { return registration }
        return prefixes.withLock { entries in entries.first { name.hasPrefix($0.pattern.dropLast()) } }
    }

    /// Registered names and patterns, sorted.
    var patterns: [String] {
        (exact.withLock { Array($0.keys) } + prefixes.withLock { $0.map(\.pattern) }).sorted()
    }

    /// Counts one call of `name` that ended with `outcome` (`ok`, a problem code, …).
    func count(_ name: String, outcome: String) {
        outcomes.increment([name, outcome])
    }

    /// Calls by name and outcome; none before the first call.
    var families: [MetricFamily] { outcomes.isEmpty ? [] : [outcomes.family] }

    /// Runs `body` for `name` under `timeout`: past it, a 504 with the kind's timeout code, whether or not the code
    /// heeds cancellation. A failure is counted with its code (`internal_error` for an unexpected error).
    /// With tracing on, `span` (the call's internal span) ends with the outcome.
    func run<Value: Sendable>(
        _ name: String, timeout: Duration, span: Span? = nil, timer: UpstreamTimer? = nil,
        _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        // Upstream calls the code makes add their time to `timer` (UpstreamTimer.current).
        let timed: @Sendable () async throws -> Value =
            if let timer {
                { try await UpstreamTimer.$current.withValue(timer) { try await body() } }
            } else {
                body
            }
        let body = timed
        guard let span else {
            return try await runUnderDeadline(
                "The \(kind.subject) for \"\(name)\"", timeout: timeout, timeoutCode: kind.timeoutCode,
                count: { self.count(name, outcome: $0) }, body)
        }
        do {
            let value = try await run(name, timeout: timeout, body)
            span.end(error: nil)
            return value
        } catch {
            span.end(error: error)
            throw error
        }
    }

    /// The kind's 500 for an answer of `name` with error diagnostics, logged with their paths and counted: the
    /// body names the lint codes and the request id — a server bug, not the client's — and carries the diagnostics
    /// only when `showingDiagnostics` (mock mode).
    func refusal(
        _ name: String, errors: [Diagnostic], log: Logger, showingDiagnostics: Bool
    ) -> ProblemDetails {
        count(name, outcome: kind.invalidCode.rawValue)
        log.error(
            "\(kind.invalidCode.title.lowercased())",
            [kind.label: .string(name), "diagnostics": .string(errors.map(\.description).joined(separator: "; "))])
        var codes: [String] = []
        for error in errors where !codes.contains(error.code) { codes.append(error.code) }
        let requestID = log.metadataValue("requestID") ?? "-"
        return ProblemDetails(
            kind.invalidCode,
            detail:
                "The \(kind.subject) for \"\(name)\" answered with \(errors.count) error\(errors.count == 1 ? "" : "s") "
                + "(\(codes.joined(separator: ", "))). The request ID is \(requestID).",
            diagnostics: showingDiagnostics ? errors : nil)
    }
}
