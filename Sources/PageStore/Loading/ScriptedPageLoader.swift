import PageModel

/// A deterministic ``PageLoader`` for tests: outcomes, delays, failures and suspensions queued per call, and a
/// log of every request it received.
///
/// Each call takes the first queued step whose ``RequestMatch`` accepts its request; a call with no matching
/// step fails loudly with `unscripted_request`. A suspended step hands the test a ``ScriptedCall`` to wait on
/// ("the store has asked") and to resume later, so tests can interleave events exactly. Suspended calls ignore
/// task cancellation, like a loader that cannot abort a request: they prove that the store itself drops late
/// responses.
public actor ScriptedPageLoader: PageLoader {
    /// How a call ends.
    public enum Outcome: Sendable {
        case success([UInt8])
        case failure(PageLoadError)
    }

    /// What the loader does with one call.
    public enum Step: Sendable {
        /// Answer at once.
        case respond(Outcome)
        /// Answer after `Duration` (a cancellable sleep).
        case delay(Duration, Outcome)
        /// Wait until the test resumes the call.
        case suspend(ScriptedCall)
    }

    private var steps: [(match: RequestMatch, step: Step)] = []
    /// Every request received, in order.
    public private(set) var requests: [PageRequest] = []
    private var requestWaiters: [(count: Int, signal: BoundedSignal<[PageRequest]>)] = []

    public init() {}

    /// Queues `step` for the next call that `match` accepts.
    public func enqueue(_ step: Step, for match: RequestMatch = .any) {
        steps.append((match, step))
    }

    /// Queues a successful answer with `body`.
    public func respond(with body: [UInt8], for match: RequestMatch = .any) {
        enqueue(.respond(.success(body)), for: match)
    }

    /// Queues a failure.
    public func fail(with error: PageLoadError, for match: RequestMatch = .any) {
        enqueue(.respond(.failure(error)), for: match)
    }

    /// Queues a suspension and returns its handle.
    public func suspend(for match: RequestMatch = .any) -> ScriptedCall {
        let call = ScriptedCall()
        enqueue(.suspend(call), for: match)
        return call
    }

    /// The number of queued steps no call has taken yet.
    public var pendingStepCount: Int { steps.count }

    /// Returns the request log once it holds at least `count` requests; throws ``ScriptTimeout`` after
    /// `timeout` (default 5 s).
    public func waitForRequests(_ count: Int, timeout: Duration = .seconds(5)) async throws -> [PageRequest] {
        if requests.count >= count { return requests }
        let signal = BoundedSignal<[PageRequest]>()
        requestWaiters.append((count, signal))
        return try await signal.wait(timeout: timeout, "\(count) requests")
    }

    public func load(_ request: PageRequest) async throws -> [UInt8] {
        requests.append(request)
        let ready = requestWaiters.filter { $0.count <= requests.count }
        requestWaiters.removeAll { $0.count <= requests.count }
        for waiter in ready { waiter.signal.fulfill(requests) }

        guard let index = steps.firstIndex(where: { $0.match.accepts(request) }) else {
            throw PageLoadError(
                code: "unscripted_request", message: "ScriptedPageLoader: no step queued for \(request.kind)")
        }
        let outcome: Outcome
        switch steps.remove(at: index).step {
        case .respond(let answer):
            outcome = answer
        case .delay(let duration, let answer):
            try await Task.sleep(for: duration)
            outcome = answer
        case .suspend(let call):
            outcome = try await call.arrive(request)
        }
        switch outcome {
        case .success(let body): return body
        case .failure(let error): throw error
        }
    }
}

/// Which requests a queued step answers.
public struct RequestMatch: Sendable, CustomStringConvertible {
    public let description: String
    let accepts: @Sendable (PageRequest) -> Bool

    public init(_ description: String, accepts: @escaping @Sendable (PageRequest) -> Bool) {
        self.description = description
        self.accepts = accepts
    }

    public static let any = RequestMatch("any") { _ in true }
    public static let initial = RequestMatch("initial") { $0.kind == .initial }
    public static let refresh = RequestMatch("refresh") { $0.kind == .refresh }
    public static let nextPage = RequestMatch("nextPage") {
        if case .nextPage = $0.kind { return true }
        return false
    }
    public static let action = RequestMatch("action") {
        if case .action = $0.kind { return true }
        return false
    }

    public static func action(named name: String) -> RequestMatch {
        RequestMatch("action \(name)") {
            if case .action(let action) = $0.kind { return action.name == name }
            return false
        }
    }
}

/// A suspended loader call: the test waits for it to arrive, then resumes it with an outcome.
public final class ScriptedCall: Sendable {
    private let arrival = BoundedSignal<PageRequest>()
    private let outcome = BoundedSignal<ScriptedPageLoader.Outcome>()

    /// The longest a suspended call waits for the test to resume it before failing with `timeout`.
    public static let resumeLimit: Duration = .seconds(30)

    public init() {}

    /// Returns the request once the loader has reached this call; throws ``ScriptTimeout`` after `timeout`.
    @discardableResult
    public func arrived(timeout: Duration = .seconds(5)) async throws -> PageRequest {
        try await arrival.wait(timeout: timeout, "a suspended loader call to arrive")
    }

    /// Lets the call finish with `outcome` (before or after it arrived).
    public func resume(_ outcome: ScriptedPageLoader.Outcome) {
        self.outcome.fulfill(outcome)
    }

    /// Lets the call succeed with `body`.
    public func respond(with body: [UInt8]) { resume(.success(body)) }

    /// Lets the call fail with `error`.
    public func fail(with error: PageLoadError) { resume(.failure(error)) }

    func arrive(_ request: PageRequest) async throws -> ScriptedPageLoader.Outcome {
        arrival.fulfill(request)
        do {
            return try await outcome.wait(timeout: Self.resumeLimit, "the test to resume a suspended call")
        } catch {
            throw PageLoadError(code: "timeout", message: String(describing: error))
        }
    }
}
