import BFFServer
import BFFTesting
import Foundation
import HTTPCore
import HTTPTesting
import PageModel
import Synchronization
import Testing

/// `Idempotency-Key` answers kept in a real `redis-server` shared by two replicas; during a Redis outage keyed
/// actions are refused 503 without running (docs/operations.md).
@Suite(.serialized) struct RedisIdempotencyTests {
    static func configuration(redis: String) -> BFFConfiguration {
        var configuration = BFFConfiguration()
        configuration.actions.redisURL = redis
        configuration.actions.redisTimeoutSeconds = 2
        return configuration
    }

    @Test func aRetryOnTheOtherReplicaReplaysTheFirstAnswer() async throws {
        let calls = Calls()
        let pages = try temporaryPages(ActionHandlerTests.pages)
        try await RedisServer.with { redis in
            let configuration = Self.configuration(redis: redis.url)
            try await withTestServer(pages: pages, configuration: configuration) { first in
                try await withTestServer(pages: pages, configuration: configuration) { second in
                    ActionHandlerTests.register(on: first.service.application, calls: calls)
                    ActionHandlerTests.register(on: second.service.application, calls: calls)
                    let key = [("Idempotency-Key", "retry-\(UUID().uuidString)")]
                    let body = ActionHandlerTests.body(value: 3)
                    let answer = try await HTTPTestClient(port: first.port).post(
                        "/v1/actions/calc.set", json: body, headers: key)
                    let retry = try await HTTPTestClient(port: second.port).post(
                        "/v1/actions/calc.set", json: body, headers: key)
                    #expect(answer.status == 200, "\(answer.text)")
                    #expect(retry.status == 200, "\(retry.text)")
                    #expect(retry.body == answer.body)
                    #expect(retry.header("Content-Type") == answer.header("Content-Type"))
                    #expect(retry.header("Idempotent-Replayed") == "true")
                    #expect(answer.header("Idempotent-Replayed") == nil)
                    #expect(calls.count.load(ordering: .relaxed) == 1, "the retry on the other replica ran again")
                    // The same key with another body, on either replica: 422.
                    let reused = try await HTTPTestClient(port: second.port).post(
                        "/v1/actions/calc.set", json: ActionHandlerTests.body(value: 4), headers: key)
                    #expect(reused.status == 422)
                    #expect(reused.text.contains(#""code":"idempotency_key_reused""#))
                    // A new key runs the handler on the other replica too.
                    let fresh = try await HTTPTestClient(port: second.port).post(
                        "/v1/actions/calc.set", json: body, headers: [("Idempotency-Key", UUID().uuidString)])
                    #expect(fresh.status == 200)
                    #expect(calls.count.load(ordering: .relaxed) == 2)
                    let metrics = try await HTTPTestClient(port: second.port).get("/metrics").text
                    #expect(metrics.contains("flow_bff_idempotency_store_up 1"))
                    #expect(metrics.contains(#"flow_bff_idempotency_store_errors_total{operation="claim"} 0"#))
                }
            }
        }
    }

    /// An answer Redis could not take when it was computed is not lost: the replica stores it once Redis is back,
    /// so a retry that meets the claim (409 in use) gets it replayed, instead of the action running a second time
    /// when the claim's 30 s lease ends.
    @Test func anAnswerRedisMissedIsStoredWhenItIsBack() async throws {
        let calls = Calls()
        let pages = try temporaryPages(ActionHandlerTests.pages)
        try await RedisServer.with { redis in
            var configuration = Self.configuration(redis: redis.url)
            configuration.actions.redisTimeoutSeconds = 0.25
            try await withTestServer(pages: pages, configuration: configuration) { server in
                let pid = redis.process.processIdentifier
                server.service.application.actions.register("calc.set") { context in
                    calls.count.add(1, ordering: .relaxed)
                    kill(pid, SIGSTOP)  // Redis stops after the claim, before the answer is stored.
                    return ActionResponse(
                        mutations: [
                            .replaceWidget(
                                id: context.request.widgetID,
                                widget: .stepper(
                                    id: context.request.widgetID, value: 6, onChange: .api(name: "calc.set")))
                        ],
                        effects: [])
                }
                let key = [("Idempotency-Key", "missed-\(UUID().uuidString)")]
                let body = ActionHandlerTests.body(value: 3)
                let http = HTTPTestClient(port: server.port)
                let answer = try await http.post("/v1/actions/calc.set", json: body, headers: key)
                kill(pid, SIGCONT)
                #expect(answer.status == 200, "\(answer.text)")
                // While the answer is not stored the claim holds the key (409), or the store is failing fast (503).
                var retry = try await http.post("/v1/actions/calc.set", json: body, headers: key)
                let deadline = ContinuousClock.now + .seconds(10)
                while [409, 503].contains(retry.status), ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(200))
                    retry = try await http.post("/v1/actions/calc.set", json: body, headers: key)
                }
                #expect(retry.status == 200, "\(retry.text)")
                #expect(retry.header("Idempotent-Replayed") == "true")
                #expect(retry.body == answer.body)
                #expect(calls.count.load(ordering: .relaxed) == 1, "the action ran again")
            }
        }
    }

    @Test func aRedisOutageRefusesKeyedActionsWithoutRunningThem() async throws {
        let calls = Calls()
        let log = MemoryLogSink()
        let pages = try temporaryPages(ActionHandlerTests.pages)
        try await RedisServer.with { redis in
            try await withTestServer(pages: pages, configuration: Self.configuration(redis: redis.url), log: log) {
                server in
                ActionHandlerTests.register(on: server.service.application, calls: calls)
                let port = server.port
                let body = ActionHandlerTests.body(value: 3)
                let before = try await HTTPTestClient(port: port).post(
                    "/v1/actions/calc.set", json: body, headers: [("Idempotency-Key", "a")])
                #expect(before.status == 200)
                await redis.stop()
                let key = [("Idempotency-Key", "during-outage")]
                let answer = try await HTTPTestClient(port: port).post("/v1/actions/calc.set", json: body, headers: key)
                let retry = try await HTTPTestClient(port: port).post("/v1/actions/calc.set", json: body, headers: key)
                for refused in [answer, retry] {
                    #expect(refused.status == 503, "\(refused.text)")
                    #expect(refused.text.contains(#""code":"idempotency_store_unavailable""#))
                    #expect(refused.header("Retry-After") == "1")
                }
                #expect(calls.count.load(ordering: .relaxed) == 1, "a keyed action ran while Redis was down")
                // Without a key nothing is promised, so nothing needs the store: the action runs.
                let unkeyed = try await HTTPTestClient(port: port).post("/v1/actions/calc.set", json: body)
                #expect(unkeyed.status == 200)
                #expect(calls.count.load(ordering: .relaxed) == 2)
                let warnings = log.lines.filter {
                    $0.contains(#""level":"warning""#) && $0.contains("idempotency store")
                }
                #expect(warnings.count == 1, "one warning per outage: \(warnings)")
                #expect(warnings.first?.contains(#""operation":"claim""#) == true)
                let metrics = try await HTTPTestClient(port: port).get("/metrics").text
                #expect(metrics.contains("flow_bff_idempotency_store_up 0"))
                let claimErrors = metrics.split(separator: "\n").first {
                    $0.hasPrefix(#"flow_bff_idempotency_store_errors_total{operation="claim"}"#)
                }
                #expect(claimErrors.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0 >= 2)
            }
        }
    }
}
