import BFFServer
import Foundation
import PageModel
import Synchronization

/// An ``IdempotencyStore`` in Redis, shared by every replica: a retry that lands on another replica is replayed
/// too. A key is claimed with `SET key {"fingerprint":…} NX PX ttl`; a completed answer replaces it (`SET … PX`);
/// a released key is `DEL`eted; a claim that finds the key reads it with `GET`.
///
/// **Outage:** when Redis fails (unreachable, timeout, error reply) a claim throws ``IdempotencyStoreUnavailable``
/// and the request is refused 503 `idempotency_store_unavailable` without running (fail closed: exactly-once over
/// availability, so a retry during an outage is never applied twice). A failed complete or release is logged and
/// the request's answer still goes out (the action ran); the claim's lease then frees the key. A warning is logged
/// once per outage, plus one line on recovery, and each failure is counted in
/// `flow_bff_idempotency_store_errors_total{operation}`; `flow_bff_idempotency_store_up` is 0 until a command
/// succeeds again.
public final class RedisIdempotencyStore: IdempotencyStore, MetricsSource {
    private struct Stored: Codable {
        var fingerprint: String
        var status: Int?
        var headers: [[String]]?
        var body: Data?
    }

    private struct Health {
        var up = true
        var errors: [String: UInt64] = [:]
    }

    private let client: RedisClient
    private let prefix: String
    private let log: Logger
    private let health = Mutex(Health())

    /// - Parameters:
    ///   - endpoint: the Redis server.
    ///   - keyPrefix: prepended to the SHA-256 of each key. Default `flow-bff:idempotency:`.
    ///   - timeout: longest a Redis command may take; a claim that takes longer refuses its request. Default 0.25 s.
    ///   - log: where outage warnings go.
    public init(
        endpoint: RedisEndpoint, keyPrefix: String = "flow-bff:idempotency:", timeout: Duration = .milliseconds(250),
        log: Logger
    ) {
        client = RedisClient(endpoint: endpoint, timeout: timeout)
        prefix = keyPrefix
        self.log = log
    }

    /// The store `configuration.actions.redisURL` names, for ``makeServer``'s `idempotencyStore`; it makes none when
    /// the setting is empty.
    public static func configured(by configuration: BFFConfiguration) -> @Sendable (Logger) -> RedisIdempotencyStore? {
        { log in
            RedisEndpoint(url: configuration.actions.redisURL).map { endpoint in
                RedisIdempotencyStore(
                    endpoint: endpoint, keyPrefix: configuration.actions.redisKeyPrefix,
                    timeout: .milliseconds(Int(configuration.actions.redisTimeoutSeconds * 1000)), log: log)
            }
        }
    }

    public func claim(_ key: String, fingerprint: String, ttl: Duration) async throws -> IdempotencyClaim {
        let redisKey = self.redisKey(key)
        do {
            // Twice at most: a key that expires between SET NX and GET is claimed on the second round.
            for _ in 0..<2 {
                let claim = Stored(fingerprint: fingerprint)
                let set = try await client.send([
                    Array("SET".utf8), redisKey, try JSONEncoder().encode(claim).bytes, Array("NX".utf8),
                    Array("PX".utf8), Array(String(Self.milliseconds(ttl)).utf8),
                ])
                if case .error(let message) = set { throw RedisError(message) }
                if case .simple("OK") = set { return succeeded(.claimed) }
                let get = try await client.send([Array("GET".utf8), redisKey])
                switch get {
                case .bulk(let bytes):
                    let stored = try JSONDecoder().decode(Stored.self, from: Data(bytes))
                    guard stored.fingerprint == fingerprint else { return succeeded(.mismatch) }
                    guard let status = stored.status else { return succeeded(.inProgress) }
                    return succeeded(
                        .replay(
                            IdempotentAnswer(
                                status: status, headers: stored.headers ?? [], body: stored.body?.bytes ?? [])))
                case .null: continue
                case .error(let message): throw RedisError(message)
                default: throw RedisError("unexpected reply to GET: \(get)")
                }
            }
            throw RedisError("the key kept expiring while it was claimed")
        } catch {
            failed("claim", error)
            throw IdempotencyStoreUnavailable("\(error)")
        }
    }

    /// Stores the answer of a claimed key. When Redis cannot take it (down, too slow), the answer is not lost: the
    /// store keeps trying in the background for about 20 s (``completionRetryDelays``), inside the claim's 30 s
    /// lease, so a retry that meets the claim (409 in use) gets the answer replayed once Redis is back, instead of
    /// running the action again when the lease ends.
    public func complete(_ key: String, with answer: IdempotentAnswer, ttl: Duration) async {
        if await store(answer, of: key, ttl: ttl) { return }
        Task { [self] in
            for delay in Self.completionRetryDelays {
                try? await Task.sleep(for: delay)
                if await store(answer, of: key, ttl: ttl) { return }
            }
        }
    }

    /// The pauses before each background attempt to store an answer Redis did not take: 20 s in all, well inside
    /// the 30 s claim lease (`IdempotentAnswering.claimLease`; after it the key may be claimed again).
    static let completionRetryDelays: [Duration] = [
        .milliseconds(250), .milliseconds(750), .seconds(1), .seconds(2), .seconds(4), .seconds(4), .seconds(4),
        .seconds(4),
    ]

    /// One attempt to store `answer` under the claim of `key`; whether Redis took it (or the claim is gone, so
    /// there is nothing to store).
    private func store(_ answer: IdempotentAnswer, of key: String, ttl: Duration) async -> Bool {
        do {
            guard let fingerprint = try await currentFingerprint(key) else { return true }
            let stored = Stored(
                fingerprint: fingerprint, status: answer.status, headers: answer.headers, body: Data(answer.body))
            let reply = try await client.send([
                Array("SET".utf8), redisKey(key), try JSONEncoder().encode(stored).bytes, Array("PX".utf8),
                Array(String(Self.milliseconds(ttl)).utf8),
            ])
            if case .error(let message) = reply { throw RedisError(message) }
            succeeded(())
            return true
        } catch {
            failed("complete", error)
            return false
        }
    }

    public func release(_ key: String) async {
        do {
            let reply = try await client.send([Array("DEL".utf8), redisKey(key)])
            if case .error(let message) = reply { throw RedisError(message) }
            succeeded(())
        } catch {
            failed("release", error)
        }
    }

    /// The fingerprint the claim stored, or `nil` when the key is gone (expired or claimed during an outage).
    private func currentFingerprint(_ key: String) async throws -> String? {
        let reply = try await client.send([Array("GET".utf8), redisKey(key)])
        switch reply {
        case .bulk(let bytes): return try JSONDecoder().decode(Stored.self, from: Data(bytes)).fingerprint
        case .null: return nil
        case .error(let message): throw RedisError(message)
        default: throw RedisError("unexpected reply to GET: \(reply)")
        }
    }

    private func redisKey(_ key: String) -> [UInt8] {
        Array((prefix + Crypto.hex(Crypto.sha256(Array(key.utf8)))).utf8)
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    @discardableResult
    private func succeeded<Value>(_ value: Value) -> Value {
        let recovered = health.withLock { health in
            defer { health.up = true }
            return !health.up
        }
        if recovered { log.info("idempotency store reachable again: keyed api actions are answered again") }
        return value
    }

    private func failed(_ operation: String, _ error: any Error) {
        let first = health.withLock { health in
            health.errors[operation, default: 0] += 1
            defer { health.up = false }
            return health.up
        }
        if first {
            log.warning(
                "idempotency store unavailable: api actions with an Idempotency-Key are refused (503) until it answers",
                ["operation": .string(operation), "error": .string("\(error)")])
        }
    }

    /// Whether the last command succeeded, and errors by operation.
    package var families: [MetricFamily] {
        let health = health.withLock { $0 }
        return [
            MetricFamily(
                "flow_bff_idempotency_store_up", .gauge, help: "Whether the last idempotency store command succeeded.",
                samples: [.init(labels: [], value: .count(health.up ? 1 : 0))]),
            MetricFamily(
                "flow_bff_idempotency_store_errors_total", .counter,
                help: "Failed idempotency store commands, by operation; a failed claim refused its request (503).",
                labels: ["operation"],
                samples: ["claim", "complete", "release"].map {
                    .init(labels: [$0], value: .count(health.errors[$0] ?? 0))
                }),
        ]
    }
}

extension Data {
    fileprivate var bytes: [UInt8] { [UInt8](self) }
}
