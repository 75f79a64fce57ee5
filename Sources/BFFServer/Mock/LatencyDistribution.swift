import Foundation

/// How long a simulated network waits before answering, in milliseconds.
public enum LatencyDistribution: Sendable, Hashable, CustomStringConvertible {
    /// Always `ms`.
    case fixed(ms: Double)
    /// Uniform between `minMs` and `maxMs`.
    case uniform(minMs: Double, maxMs: Double)
    /// Log-normal with the given median and shape `sigma` (the standard deviation of the underlying normal):
    /// mostly near the median with a long tail, like real mobile networks.
    case lognormal(medianMs: Double, sigma: Double)

    /// The longest latency ever applied; samples above it are clamped.
    public static let maximumMs = 60_000.0

    /// One sample, drawn from `random`.
    public func sample(_ random: inout SplitMix64) -> Double {
        let value: Double
        switch self {
        case .fixed(let ms):
            value = ms
        case .uniform(let low, let high):
            value = low + (high - low) * random.nextUnit()
        case .lognormal(let median, let sigma):
            // Box–Muller: two uniforms → one standard normal.
            let u1 = 1 - random.nextUnit()  // (0, 1]: log(u1) is finite
            let u2 = random.nextUnit()
            let normal = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
            value = median * exp(sigma * normal)
        }
        return min(max(value, 0), Self.maximumMs)
    }

    public var description: String {
        switch self {
        case .fixed(let ms): FaultSpec.format(ms: ms)
        case .uniform(let low, let high): "uniform(\(FaultSpec.format(ms: low)),\(FaultSpec.format(ms: high)))"
        case .lognormal(let median, let sigma): "lognormal(\(FaultSpec.format(ms: median)),\(sigma))"
        }
    }
}
