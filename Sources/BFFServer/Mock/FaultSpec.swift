import Foundation
import PageModel

/// A network-simulation recipe: optional latency plus at most one fault, in the syntax of the `X-Flow-Mock`
/// header, the `mock.faults` configuration and the admin API (`docs/mock.md`):
///
///     latency=200ms; fault=reset
///     latency=uniform(50ms,300ms)          latency=lognormal(120ms,0.6)
///     status=503                           status=429; retry-after=5
///     drip=64B/100ms                       truncate=100B
///     empty                                reset
///     latency=80ms; status=500; rate=0.25  (the fault hits a quarter of the requests; latency all of them)
///     none                                 (no simulation for this request, whatever the routes say)
public struct FaultSpec: Sendable, Hashable, CustomStringConvertible {
    /// Deliberate misbehaviour, at most one per request.
    public enum Fault: Sendable, Hashable {
        /// TCP reset: the client sees `ECONNRESET` / "network connection lost".
        case reset
        /// The connection closes without any response ("empty reply from server").
        case empty
        /// A problem+json answer with this status (5xx, 429, …), with `Retry-After` when given.
        case status(Int, retryAfter: Int?)
        /// The head announces the full `Content-Length`, then only `bytes` of the body arrive and the connection
        /// closes.
        case truncate(bytes: Int)
        /// The whole response, `bytes` at a time every `intervalMs`.
        case drip(bytes: Int, intervalMs: Int)

        var name: String {
            switch self {
            case .reset: "reset"
            case .empty: "empty"
            case .status(let code, _): "status=\(code)"
            case .truncate: "truncate"
            case .drip: "drip"
            }
        }
    }

    public var latency: LatencyDistribution?
    public var fault: Fault?
    /// Probability in [0, 1] that ``fault`` applies to a request; latency always applies. Default 1.
    public var rate = 1.0
    /// `none`: explicitly no simulation (a request header overriding route rules).
    public var isNone = false

    public init(latency: LatencyDistribution? = nil, fault: Fault? = nil, rate: Double = 1) {
        self.latency = latency
        self.fault = fault
        self.rate = rate
    }

    public static let none: FaultSpec = {
        var spec = FaultSpec()
        spec.isNone = true
        return spec
    }()

    /// Parses the header syntax.
    ///
    /// - Throws: ``FaultSpecError`` naming the item that is wrong.
    public static func parse(_ text: String) throws(FaultSpecError) -> FaultSpec {
        var spec = FaultSpec()
        var retryAfter: Int?
        var rateGiven = false
        var faults = 0
        let items = text.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !items.isEmpty else { throw FaultSpecError("empty specification") }
        for item in items {
            let key: String
            let value: String
            if let equals = item.firstIndex(of: "=") {
                key = item[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
                value = item[item.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            } else {
                key = item.lowercased()
                value = ""
            }
            switch (key, value.isEmpty) {
            case ("none", true), ("off", true):
                guard items.count == 1 else { throw FaultSpecError("\"none\" cannot be combined with other items") }
                return .none
            case ("reset", true):
                spec.fault = .reset
                faults += 1
            case ("empty", true):
                spec.fault = .empty
                faults += 1
            case ("fault", false):
                switch value.lowercased() {
                case "reset": spec.fault = .reset
                case "empty", "close": spec.fault = .empty
                default: throw FaultSpecError("fault is reset or empty, found \"\(value)\"")
                }
                faults += 1
            case ("latency", false), ("delay", false):
                spec.latency = try latency(value)
            case ("status", false):
                guard let code = Int(value), (400...599).contains(code) else {
                    throw FaultSpecError("status is an HTTP error status 400–599, found \"\(value)\"")
                }
                spec.fault = .status(code, retryAfter: nil)
                faults += 1
            case ("retry-after", false):
                guard let seconds = Int(value), (0...86_400).contains(seconds) else {
                    throw FaultSpecError("retry-after is whole seconds 0–86400, found \"\(value)\"")
                }
                retryAfter = seconds
            case ("truncate", false):
                spec.fault = .truncate(bytes: try size(value))
                faults += 1
            case ("drip", false):
                let parts = value.split(separator: "/", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw FaultSpecError("drip is <size>/<interval>, e.g. 64B/100ms") }
                let bytes = try size(parts[0])
                guard bytes > 0 else { throw FaultSpecError("drip size must be at least 1 byte") }
                let interval = try duration(parts[1])
                guard interval >= 1, interval <= 10_000 else {
                    throw FaultSpecError("drip interval must be 1ms–10s, found \"\(parts[1])\"")
                }
                spec.fault = .drip(bytes: bytes, intervalMs: Int(interval))
                faults += 1
            case ("rate", false), ("probability", false):
                guard let rate = Double(value), (0...1).contains(rate) else {
                    throw FaultSpecError("rate is a probability 0–1, found \"\(value)\"")
                }
                spec.rate = rate
                rateGiven = true
            default:
                let keys = [
                    "latency", "status", "retry-after", "drip", "truncate", "fault", "rate", "reset", "empty", "none",
                ]
                let hint = NearMiss.closest(to: key, among: keys).map { " (did you mean \($0)?)" } ?? ""
                throw FaultSpecError(
                    "unknown item \"\(item)\"\(hint) (expected latency=, status=, retry-after=, drip=, truncate=, "
                        + "fault=, rate=, reset, empty or none)")
            }
        }
        guard faults <= 1 else { throw FaultSpecError("at most one fault per request") }
        // A rate without a fault would do nothing (latency hits every request), and would print as an empty spec.
        guard !rateGiven || spec.fault != nil else {
            throw FaultSpecError("rate= needs a fault to apply to (status=, drip=, truncate=, reset or empty)")
        }
        if let retryAfter {
            guard case .status(let code, _) = spec.fault else {
                throw FaultSpecError("retry-after needs status=, e.g. status=429; retry-after=5")
            }
            spec.fault = .status(code, retryAfter: retryAfter)
        } else if case .status(429, nil) = spec.fault {
            spec.fault = .status(429, retryAfter: 1)
        }
        return spec
    }

    /// `200ms`, `1.5s`, `200` (milliseconds), `uniform(50ms,300ms)`, `lognormal(120ms,0.5)`.
    static func latency(_ text: String) throws(FaultSpecError) -> LatencyDistribution {
        let lowered = text.lowercased()
        func arguments(_ name: String) -> [String]? {
            guard lowered.hasPrefix(name + "("), lowered.hasSuffix(")") else { return nil }
            return lowered.dropFirst(name.count + 1).dropLast().split(separator: ",").map {
                let argument = $0.trimmingCharacters(in: .whitespaces)
                return argument.split(separator: "=", maxSplits: 1).last.map(String.init) ?? argument
            }
        }
        if let values = arguments("uniform") {
            guard values.count == 2 else { throw FaultSpecError("uniform(min,max), e.g. uniform(50ms,300ms)") }
            let low = try duration(values[0])
            let high = try duration(values[1])
            guard low <= high else { throw FaultSpecError("uniform(min,max) needs min ≤ max") }
            return .uniform(minMs: low, maxMs: high)
        }
        if let values = arguments("lognormal") {
            guard values.count == 2, let sigma = Double(values[1]), sigma >= 0, sigma <= 5 else {
                throw FaultSpecError("lognormal(median,sigma), e.g. lognormal(120ms,0.5) with sigma 0–5")
            }
            return .lognormal(medianMs: try duration(values[0]), sigma: sigma)
        }
        return .fixed(ms: try duration(text))
    }

    /// Milliseconds from `250ms`, `1.5s` or `250`, at most ``LatencyDistribution/maximumMs``.
    static func duration(_ text: String) throws(FaultSpecError) -> Double {
        let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
        var number = Substring(lowered)
        var scale = 1.0
        if lowered.hasSuffix("ms") {
            number = number.dropLast(2)
        } else if lowered.hasSuffix("s") {
            number = number.dropLast()
            scale = 1000
        }
        guard let value = Double(number), value.isFinite, value >= 0,
            value * scale <= LatencyDistribution.maximumMs
        else {
            throw FaultSpecError("\"\(text)\" is not a duration such as 200ms or 1.5s (at most 60s)")
        }
        return value * scale
    }

    /// Bytes from `64B`, `2KB` (2048) or `64`.
    static func size(_ text: String) throws(FaultSpecError) -> Int {
        let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
        var number = Substring(lowered)
        var scale = 1
        if lowered.hasSuffix("kib") || lowered.hasSuffix("kb") {
            number = number.dropLast(lowered.hasSuffix("kib") ? 3 : 2)
            scale = 1024
        } else if lowered.hasSuffix("b") {
            number = number.dropLast()
        }
        guard let value = Int(number), value >= 0, value <= 16_777_216 / scale else {
            throw FaultSpecError("\"\(text)\" is not a size such as 100B or 2KB")
        }
        return value * scale
    }

    static func format(ms: Double) -> String {
        ms == ms.rounded() ? "\(Int(ms))ms" : "\(ms)ms"
    }

    /// The canonical header syntax; parsing it gives this spec back.
    public var description: String {
        if isNone { return "none" }
        var items: [String] = []
        if let latency { items.append("latency=\(latency)") }
        switch fault {
        case .reset: items.append("reset")
        case .empty: items.append("empty")
        case .status(let code, let retryAfter):
            items.append("status=\(code)")
            if let retryAfter { items.append("retry-after=\(retryAfter)") }
        case .truncate(let bytes): items.append("truncate=\(bytes)B")
        case .drip(let bytes, let interval): items.append("drip=\(bytes)B/\(interval)ms")
        case nil: break
        }
        if rate != 1 { items.append("rate=\(rate)") }
        return items.joined(separator: "; ")
    }
}

/// A malformed network-simulation specification.
public struct FaultSpecError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
