import HTTPCore
import PageModel

/// One api action request's `Idempotency-Key` (IETF httpapi idempotency-key-header draft): the first request
/// with a key runs; a retry with the same key and the same request (action name and body) gets the stored answer
/// again (`Idempotent-Replayed: true`) without running anything; the same key with another request is 422
/// `idempotency_key_reused`; a retry while the first still runs is 409 `idempotency_key_in_use`. Keys are scoped
/// to the request's session (``RequestContext``: `X-Flow-Session`, else the `flow_session` cookie), or to no session. A 5xx answer or an error is not stored, so a retry runs again.
///
/// A store that cannot answer (Redis down) refuses the request 503 `idempotency_store_unavailable` with
/// `Retry-After: 1` and runs nothing: fail closed, so a retry during an outage never applies an action twice. A claim
/// is a lease (``lease(outliving:)``, 30 s unless a handler's timeout needs more) until its answer is stored: a
/// claim whose replica died, or one a stopped Redis executed after the request had given up on it, frees the key
/// then instead of answering 409 for a day.
struct IdempotentAnswering: Sendable {
    static let header = "Idempotency-Key"
    /// How long a claim without an answer holds its key at least: longer than an action runs (handlers time out
    /// after 5 s by default), short enough that an abandoned claim does not block its key for
    /// `actions.idempotencySeconds`.
    static let claimLease: Duration = .seconds(30)
    /// What a lease keeps beyond its handler's timeout: checking, encoding and storing the answer after the handler
    /// returned (two Redis commands of at most `actions.redisTimeoutSeconds` each).
    static let leaseMargin: Duration = .seconds(5)
    let key: String
    let fingerprint: String
    let ttl: Duration

    /// The lease of a claim whose action runs at most `timeout` (a Swift handler's ``ActionHandlerOptions/timeout``;
    /// `nil` for a page file's declared answer, computed at once): ``claimLease``, or the timeout and
    /// ``leaseMargin`` when that is longer, so a slow handler's claim does not free its key while it still runs.
    static func lease(outliving timeout: Duration?) -> Duration {
        guard let timeout else { return claimLease }
        return max(claimLease, timeout + leaseMargin)
    }

    /// `nil` when the request has no `Idempotency-Key`.
    /// - Throws: 400 `invalid_idempotency_key` for an empty, over-long or non-ASCII key.
    /// - Parameter session: the request's session (``RequestContext``), which scopes the key.
    init?(_ request: HTTPRequest, action: String, session: String?, ttlSeconds: Double) throws(ProblemDetails) {
        guard var value = request.headers[Self.header] else { return nil }
        // The draft's sf-string form ("…"); a bare value is accepted too.
        if value.utf8.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
            value = String(value.dropFirst().dropLast())
        }
        guard (1...255).contains(value.utf8.count), value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ProblemDetails(
                .invalidIdempotencyKey, detail: "An Idempotency-Key is 1–255 visible ASCII characters (a UUID, say).")
        }
        key = (session ?? "") + "\u{0}" + value
        fingerprint = Crypto.hex(Crypto.sha256(Array((action + "\n").utf8) + request.body))
        ttl = .milliseconds(Int(ttlSeconds * 1000))
    }

    /// The answer for this key: `compute`'s, stored for retries, or the stored one. The claim holds the key for
    /// `lease` (never longer than the key's `actions.idempotencySeconds`) until the answer is stored.
    func answer(
        store: any IdempotencyStore, lease: Duration = claimLease,
        _ compute: @Sendable () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let claim: IdempotencyClaim
        do {
            claim = try await store.claim(key, fingerprint: fingerprint, ttl: min(ttl, lease))
        } catch {
            var problem = ProblemDetails(
                .idempotencyStoreUnavailable,
                detail: "Retries of this action cannot be recognised right now, so it did not run; retry shortly "
                    + "with the same Idempotency-Key."
            ).makeResponse()
            problem.headers.set("Retry-After", "1")
            return problem
        }
        switch claim {
        case .replay(let stored):
            var headers = HTTPFields()
            for field in stored.headers where field.count == 2 { headers.append(field[0], field[1]) }
            headers.set("Idempotent-Replayed", "true")
            return HTTPResponse(status: HTTPStatus(code: stored.status), headers: headers, body: .bytes(stored.body))
        case .inProgress:
            var problem = ProblemDetails(
                .idempotencyKeyInUse,
                detail: "A request with this Idempotency-Key is still being answered; retry shortly."
            ).makeResponse()
            problem.headers.set("Retry-After", "1")
            return problem
        case .mismatch:
            throw ProblemDetails(
                .idempotencyKeyReused,
                detail: "This Idempotency-Key was used for another request; use a new key for a new request.")
        case .claimed:
            let response: HTTPResponse
            do {
                response = try await compute()
            } catch {
                try? await store.release(key)
                throw error
            }
            guard response.status.code < 500 else {
                try? await store.release(key)
                return response
            }
            try await store.complete(key, with: Self.stored(response), ttl: ttl)
            return response
        }
    }

    /// The bytes and header fields of `response` as a device gets them (identity body).
    static func stored(_ response: HTTPResponse) -> IdempotentAnswer {
        var headers = response.headers.map { [$0.name, $0.value] }
        var body: [UInt8] = []
        switch response.body {
        case .bytes(let bytes): body = bytes
        case .prepared(let prepared):
            body = prepared.identityBytes
            headers.append(["Content-Type", prepared.contentType])
        case .empty, .stream: break
        }
        return IdempotentAnswer(status: response.status.code, headers: headers, body: body)
    }
}
