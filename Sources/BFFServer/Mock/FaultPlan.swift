import Foundation

/// A route rule of the network simulation: requests whose method and raw path match get ``spec``.
///
/// `pattern` is `[METHOD ]PATH` where `*` in the path matches any run of characters (including `/`):
/// `/v1/pages/feed`, `/v1/pages/*`, `POST /v1/actions/cart.*`.
public struct FaultRule: Sendable, Hashable {
    public var pattern: String
    public var spec: FaultSpec
    let method: String?
    let path: String

    public init(pattern: String, spec: FaultSpec) throws(FaultSpecError) {
        let parts = pattern.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1).map(String.init)
        if parts.count == 2 {
            method = parts[0].uppercased()
            path = parts[1].trimmingCharacters(in: .whitespaces)
        } else {
            method = nil
            path = parts.first ?? ""
        }
        if let method, !Self.methods.contains(method) {
            throw FaultSpecError(
                "unknown method \"\(method)\" in route pattern \"\(pattern)\"; methods: "
                    + Self.methods.sorted().joined(separator: ", "))
        }
        // Bytes, as the glob matches: "/🏻" (an emoji modifier after "/") is one Character that is not "/".
        guard path.utf8.first == UInt8(ascii: "/") else {
            throw FaultSpecError("route pattern \"\(pattern)\" must be [METHOD ]/path, e.g. /v1/pages/*")
        }
        self.pattern = pattern
        self.spec = spec
    }

    /// The methods a route pattern may name.
    public static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    public func matches(method: String, path: String) -> Bool {
        if let expected = self.method, expected != method { return false }
        return Self.glob(Array(self.path.utf8)[...], Array(path.utf8)[...])
    }

    static func glob(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>) -> Bool {
        var p = pattern.startIndex
        var t = text.startIndex
        var star: Int?
        var resume = t
        while t < text.endIndex {
            if p < pattern.endIndex, pattern[p] == UInt8(ascii: "*") {
                star = p
                p += 1
                resume = t
            } else if p < pattern.endIndex, pattern[p] == text[t] {
                p += 1
                t += 1
            } else if let star {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.endIndex, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.endIndex
    }
}

/// What the simulation does to one request.
public struct FaultDecision: Sendable, Hashable {
    /// Whole milliseconds to wait before answering (0 = none).
    public var latencyMs: Int
    public var fault: FaultSpec.Fault?

    public init(latencyMs: Int = 0, fault: FaultSpec.Fault? = nil) {
        self.latencyMs = latencyMs
        self.fault = fault
    }

    public var isNone: Bool { latencyMs == 0 && fault == nil }

    /// For the journal and the `X-Flow-Mock-Applied` header: `latency=137ms`, `reset`, `status=429`, ….
    public var labels: [String] {
        var labels: [String] = []
        if latencyMs > 0 { labels.append("latency=\(latencyMs)ms") }
        if let fault { labels.append(fault.name) }
        return labels
    }
}

/// Pure decisions of the network simulation: the seed, the sequence a request draws from and its index there fix
/// every random draw, so the same seed replays the same latencies and faults in the same order.
public struct FaultPlan: Sendable {
    public var seed: UInt64

    public init(seed: UInt64) { self.seed = seed }

    /// The decision for the `counter`-th simulated request of the sequence `stream` under `spec`. Stream 0 is the
    /// global sequence (requests without a session); a session draws from its own (``stream(of:)``).
    public func decide(counter: UInt64, stream: UInt64 = 0, spec: FaultSpec) -> FaultDecision {
        guard !spec.isNone else { return FaultDecision() }
        var random = SplitMix64(seed: seed ^ stream ^ (counter &* 0xD1B5_4A32_D192_ED03))
        _ = random.next()
        let latency = spec.latency.map { Int($0.sample(&random).rounded()) } ?? 0
        let roll = random.nextUnit()
        return FaultDecision(latencyMs: latency, fault: roll < spec.rate ? spec.fault : nil)
    }

    /// The sequence a session's simulated requests draw from: the first 8 bytes of the SHA-256 of its id, the same
    /// in every run (Swift's `Hasher` is seeded per process).
    public static func stream(of session: String) -> UInt64 {
        Crypto.sha256(Array(session.utf8)).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The spec for a request: the header's when present, else the first matching runtime rule, else the first
    /// matching configured rule.
    public static func spec(
        header: FaultSpec?, method: String, path: String, runtime: [FaultRule], configured: [FaultRule]
    ) -> FaultSpec? {
        if let header { return header }
        if let rule = runtime.first(where: { $0.matches(method: method, path: path) }) { return rule.spec }
        return configured.first { $0.matches(method: method, path: path) }?.spec
    }
}
