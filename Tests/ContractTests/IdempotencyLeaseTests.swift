import BFFServer
import BFFTesting
import HTTPCore
import HTTPTesting
import PageModel
import Synchronization
import Testing

/// How `Idempotency-Key` answering uses its store: a claim is a 30 s lease that its completion extends to
/// `actions.idempotencySeconds`, and a store that cannot answer refuses the request without running it
/// (docs/operations.md, "Chaos").
@Suite struct IdempotencyLeaseTests {
    /// Records the TTLs it is given; its claims throw when `failing`.
    final class RecordingStore: IdempotencyStore {
        let memory = MemoryIdempotencyStore()
        let failing: Bool
        let claims = Mutex<[Duration]>([])
        let completions = Mutex<[Duration]>([])
        let releases = Atomic<Int>(0)

        init(failing: Bool = false) { self.failing = failing }

        func claim(_ key: String, fingerprint: String, ttl: Duration) throws -> IdempotencyClaim {
            claims.withLock { $0.append(ttl) }
            if failing { throw IdempotencyStoreUnavailable("the test's store is down") }
            return memory.claim(key, fingerprint: fingerprint, ttl: ttl)
        }

        func complete(_ key: String, with answer: IdempotentAnswer, ttl: Duration) {
            completions.withLock { $0.append(ttl) }
            memory.complete(key, with: answer, ttl: ttl)
        }

        func release(_ key: String) {
            releases.add(1, ordering: .relaxed)
            memory.release(key)
        }
    }

    @Test func aClaimIsALeaseThatItsAnswerExtends() async throws {
        let store = RecordingStore()
        var configuration = BFFConfiguration()
        configuration.actions.idempotencySeconds = 600
        try await withTestServer(pages: try temporaryPages(ActionHandlerTests.pages), configuration: configuration) {
            server in
            ActionHandlerTests.register(on: server.service.application)
            server.service.application.actions.idempotencyStore = store
            let key = [("Idempotency-Key", "lease")]
            let answer = try await HTTPTestClient(port: server.port).post(
                "/v1/actions/calc.set", json: ActionHandlerTests.body(value: 2), headers: key)
            #expect(answer.status == 200, "\(answer.text)")
            #expect(store.claims.withLock { $0 } == [.seconds(30)], "the claim holds the key for the lease only")
            #expect(store.completions.withLock { $0 } == [.seconds(600)], "the answer is kept for idempotencySeconds")
        }
    }

    /// A handler allowed longer than the 30 s lease keeps its key for its timeout plus a 5 s margin; a page file's
    /// declared answer (no handler) claims the plain lease.
    @Test func aSlowHandlersClaimOutlivesItsTimeout() async throws {
        let store = RecordingStore()
        try await withTestServer(pages: try temporaryPages(ActionHandlerTests.pages)) { server in
            server.service.application.actions.idempotencyStore = store
            let http = HTTPTestClient(port: server.port)
            let body = ActionHandlerTests.body(value: 2)
            let declared = try await http.post("/v1/actions/calc.set", json: body, headers: [("Idempotency-Key", "d")])
            #expect(declared.status == 200, "\(declared.text)")
            #expect(declared.text.contains("default"), "the declared answer: \(declared.text)")
            let slowHandler: ActionHandler = { context in
                ActionResponse(effects: [.toast(message: "slow \(context.request.widgetID)")])
            }
            let options = ActionHandlerOptions(timeout: .seconds(60))
            server.service.application.actions.register("calc.set", options: options, slowHandler)
            let slow = try await http.post("/v1/actions/calc.set", json: body, headers: [("Idempotency-Key", "s")])
            #expect(slow.status == 200, "\(slow.text)")
            #expect(slow.text.contains("slow qty"), "the handler's answer: \(slow.text)")
            #expect(
                store.claims.withLock { $0 } == [.seconds(30), .seconds(65)],
                "a claim shorter than its handler's timeout frees the key while the handler still runs")
            #expect(store.completions.withLock { $0 } == [.seconds(86_400), .seconds(86_400)])
        }
    }

    @Test func aShortIdempotencyWindowIsNotLengthenedByTheLease() async throws {
        let store = RecordingStore()
        var configuration = BFFConfiguration()
        configuration.actions.idempotencySeconds = 5
        try await withTestServer(pages: try temporaryPages(ActionHandlerTests.pages), configuration: configuration) {
            server in
            ActionHandlerTests.register(on: server.service.application)
            server.service.application.actions.idempotencyStore = store
            let answer = try await HTTPTestClient(port: server.port).post(
                "/v1/actions/calc.set", json: ActionHandlerTests.body(value: 2), headers: [("Idempotency-Key", "s")])
            #expect(answer.status == 200, "\(answer.text)")
            #expect(store.claims.withLock { $0 } == [.seconds(5)])
        }
    }

    @Test func aStoreThatCannotAnswerRefusesTheRequestWithoutRunningIt() async throws {
        let store = RecordingStore(failing: true)
        let calls = Calls()
        try await withTestServer(pages: try temporaryPages(ActionHandlerTests.pages)) { server in
            ActionHandlerTests.register(on: server.service.application, calls: calls)
            server.service.application.actions.idempotencyStore = store
            let http = HTTPTestClient(port: server.port)
            let body = ActionHandlerTests.body(value: 2)
            let refused = try await http.post("/v1/actions/calc.set", json: body, headers: [("Idempotency-Key", "k")])
            #expect(refused.status == 503, "\(refused.text)")
            #expect(refused.header("Content-Type") == "application/problem+json")
            #expect(refused.header("Retry-After") == "1")
            #expect(refused.text.contains(#""code":"idempotency_store_unavailable""#))
            #expect(calls.count.load(ordering: .relaxed) == 0, "the action ran although its key could not be claimed")
            #expect(store.completions.withLock { $0 }.isEmpty)
            #expect(store.releases.load(ordering: .relaxed) == 0)
            let unkeyed = try await http.post("/v1/actions/calc.set", json: body)
            #expect(unkeyed.status == 200, "a request without a key does not need the store")
            #expect(calls.count.load(ordering: .relaxed) == 1)
        }
    }
}

/// ``MemoryIdempotencyStore`` stays bounded and evicts the keys closest to expiry first.
@Suite struct MemoryIdempotencyStoreTests {
    @Test func aFullStoreEvictsTheTenthClosestToExpiry() {
        let store = MemoryIdempotencyStore(capacity: 20)
        for index in 0..<20 {
            #expect(store.claim("k\(index)", fingerprint: "f", ttl: .seconds(60 + index)) == .claimed)
        }
        #expect(store.count == 20)
        #expect(store.claim("new", fingerprint: "f", ttl: .seconds(600)) == .claimed)
        #expect(store.count == 19, "two evicted (a tenth of 20), one added")
        // Another fingerprint probes without changing anything: .mismatch when the key is held.
        for kept in ["k2", "k19", "new"] {
            #expect(store.claim(kept, fingerprint: "other", ttl: .seconds(1)) == .mismatch, "\(kept) was evicted")
        }
        #expect(store.claim("k0", fingerprint: "other", ttl: .seconds(60)) == .claimed, "k0 expired first: evicted")
        #expect(store.count == 20)
    }

    /// A claim still running (a 30 s lease) expires before any answered key (kept a day), yet answered keys go first:
    /// evicting the claim would let its retry run the action a second time.
    @Test func aRunningClaimOutlivesAnsweredKeysWhenTheStoreIsFull() {
        let store = MemoryIdempotencyStore(capacity: 10)
        let answer = IdempotentAnswer(status: 200, headers: [], body: [])
        for index in 0..<9 {
            #expect(store.claim("done\(index)", fingerprint: "f", ttl: .seconds(30)) == .claimed)
            store.complete("done\(index)", with: answer, ttl: .seconds(86_400 + index))
        }
        #expect(store.claim("running", fingerprint: "f", ttl: .seconds(30)) == .claimed)
        #expect(store.claim("next", fingerprint: "f", ttl: .seconds(30)) == .claimed)
        #expect(
            store.claim("running", fingerprint: "f", ttl: .seconds(30)) == .inProgress, "the running claim was evicted")
        #expect(store.claim("done0", fingerprint: "f", ttl: .seconds(30)) == .claimed, "the oldest answer went first")
    }
}
