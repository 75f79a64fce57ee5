import Dispatch
import Foundation
import HTTPCore
import PageModel
import Synchronization

/// Everything the mock backend remembers between requests. Exists only when `mock.enabled`; production
/// replicas have none of it.
final class MockState: Sendable {
    let configuration: BFFConfiguration.Mock
    let sessions: SessionStore
    let journal: RequestJournal
    let plan: FaultPlan
    /// Simulated requests so far: the index of each one's random draws.
    let counter = Atomic<UInt64>(0)
    let runtimeRules = Mutex<[FaultRule]>([])
    let timerQueue = DispatchQueue(label: "flow-bff.mock.latency", attributes: .concurrent)

    init(configuration: BFFConfiguration.Mock) {
        self.configuration = configuration
        let start = DispatchTime.now().uptimeNanoseconds
        sessions = SessionStore(
            capacity: configuration.sessionCap, idleSeconds: configuration.sessionIdleSeconds,
            clock: { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 })
        journal = RequestJournal(capacity: configuration.journalCapacity)
        plan = FaultPlan(seed: configuration.seed)
    }
}

/// Who a request is and what it asks the mock backend for, read from its headers and query.
struct MockRequestContext: Sendable {
    static let sessionHeader = "X-Flow-Session"
    static let sessionCookie = "flow_session"
    static let scenarioHeader = "X-Flow-Scenario"
    static let scenarioQuery = "__scenario"
    static let simulationHeader = "X-Flow-Mock"

    var session: String?
    var scenario: String?

    /// - Throws: ``ProblemDetails`` `invalid_session` for a malformed session id.
    init(_ request: HTTPRequest) throws(ProblemDetails) {
        session = try Self.sessionID(request)
        scenario = request.headers[Self.scenarioHeader] ?? request.queryItem(Self.scenarioQuery)
        if scenario?.isEmpty == true { scenario = nil }
    }

    /// `X-Flow-Session`, else the `flow_session` cookie.
    static func sessionID(_ request: HTTPRequest) throws(ProblemDetails) -> String? {
        var id = request.headers[sessionHeader]
        if id == nil {
            for cookies in request.headers.values(for: "Cookie") {
                for pair in cookies.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == sessionCookie {
                        id = parts[1].trimmingCharacters(in: .whitespaces)
                    }
                }
            }
        }
        guard let id else { return nil }
        guard SessionID.isValid(id) else {
            throw ProblemDetails(
                .invalidSession,
                detail: "Session ids (X-Flow-Session or the flow_session cookie) match \(SessionID.pattern).")
        }
        return id
    }
}
