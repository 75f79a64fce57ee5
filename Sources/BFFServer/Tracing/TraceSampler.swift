/// Which traces flow-bff records: the OpenTelemetry SDK's built-in samplers, by their `OTEL_TRACES_SAMPLER` names.
///
/// A parent-based sampler follows the caller's `sampled` flag when a valid `traceparent` came in and asks its root
/// sampler otherwise; `traceidratio` keeps a trace when the low 63 bits of its trace id's last 8 bytes fall below
/// `ratio × 2⁶³`, so every service with the same ratio keeps the same traces.
public struct TraceSampler: Sendable, Hashable, CustomStringConvertible {
    /// The `OTEL_TRACES_SAMPLER` names.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case alwaysOn = "always_on"
        case alwaysOff = "always_off"
        case traceIDRatio = "traceidratio"
        case parentBasedAlwaysOn = "parentbased_always_on"
        case parentBasedAlwaysOff = "parentbased_always_off"
        case parentBasedTraceIDRatio = "parentbased_traceidratio"
    }

    public var kind: Kind
    /// The fraction of root traces kept by the `traceidratio` kinds, 0...1 (`OTEL_TRACES_SAMPLER_ARG`).
    public var ratio: Double

    public init(_ kind: Kind = .parentBasedAlwaysOn, ratio: Double = 1) {
        precondition((0...1).contains(ratio), "a sampling ratio is in 0...1")
        self.kind = kind
        self.ratio = ratio
    }

    /// Whether to record a span of `traceID`, given the caller's context (`nil` for a new trace).
    public func shouldSample(_ traceID: TraceID, parent: TraceParent?) -> Bool {
        switch kind {
        case .alwaysOn: return true
        case .alwaysOff: return false
        case .traceIDRatio: return keeps(traceID)
        case .parentBasedAlwaysOn: return parent?.sampled ?? true
        case .parentBasedAlwaysOff: return parent?.sampled ?? false
        case .parentBasedTraceIDRatio: return parent?.sampled ?? keeps(traceID)
        }
    }

    private func keeps(_ traceID: TraceID) -> Bool {
        if ratio >= 1 { return true }
        if ratio <= 0 { return false }
        let bound = UInt64(ratio * 9_223_372_036_854_775_808.0)
        return traceID.low >> 1 < bound
    }

    /// `parentbased_traceidratio(0.25)`, `always_on`.
    public var description: String {
        switch kind {
        case .traceIDRatio, .parentBasedTraceIDRatio: return "\(kind.rawValue)(\(ratio))"
        default: return kind.rawValue
        }
    }
}
