import Testing

@testable import BFFServer

/// W3C Trace Context `traceparent` parsing and formatting (§ 3.2), and the sampler's decisions.
@Suite struct TraceParentTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func parsesTheSpecificationsExample() throws {
        let parent = try #require(TraceParent(Self.valid))
        #expect(parent.traceID == TraceID(high: 0x4bf9_2f35_77b3_4da6, low: 0xa3ce_929d_0e0e_4736))
        #expect(parent.spanID == SpanID(0x00f0_67aa_0ba9_02b7))
        #expect(parent.flags == 1)
        #expect(parent.sampled)
        #expect(parent.description == Self.valid)
        #expect(parent.traceID.description == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(parent.spanID.description == "00f067aa0ba902b7")
    }

    @Test func theSampledFlagIsBitZero() throws {
        #expect(try #require(TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")).sampled == false)
        let other = try #require(TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03"))
        #expect(other.sampled)
        #expect(other.flags == 3)
    }

    @Test(arguments: [
        "",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",  // no flags
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // uppercase
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // all-zero trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // all-zero span id
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // version ff
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",  // version 00 has four fields
        "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",  // not hex
        "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // wrong separator
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",  // a later version's extra field needs a dash
    ])
    func invalidValuesStartANewTrace(_ value: String) {
        #expect(TraceParent(value) == nil, "\(value)")
    }

    @Test func aLaterVersionMayAppendFields() throws {
        let parent = try #require(
            TraceParent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future"))
        #expect(parent.spanID == SpanID(0x00f0_67aa_0ba9_02b7))
        // Forwarded as version 00, the only one this implementation writes.
        #expect(parent.description == Self.valid)
    }

    @Test func parentBasedSamplersFollowTheCaller() throws {
        let sampled = try #require(TraceParent(Self.valid))
        var unsampled = sampled
        unsampled.flags = 0
        let id = sampled.traceID
        for kind in [TraceSampler.Kind.parentBasedAlwaysOn, .parentBasedAlwaysOff, .parentBasedTraceIDRatio] {
            let sampler = TraceSampler(kind, ratio: 0)
            #expect(sampler.shouldSample(id, parent: sampled), "\(kind)")
            #expect(!sampler.shouldSample(id, parent: unsampled), "\(kind)")
        }
        #expect(TraceSampler(.parentBasedAlwaysOn).shouldSample(id, parent: nil))
        #expect(!TraceSampler(.parentBasedAlwaysOff).shouldSample(id, parent: nil))
        #expect(TraceSampler().kind == .parentBasedAlwaysOn, "the default")
    }

    @Test func fixedSamplersIgnoreTheCaller() throws {
        let unsampled = try #require(TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"))
        let id = unsampled.traceID
        #expect(TraceSampler(.alwaysOn).shouldSample(id, parent: unsampled))
        let sampled = try #require(TraceParent(Self.valid))
        #expect(!TraceSampler(.alwaysOff).shouldSample(id, parent: sampled))
    }

    @Test func theRatioComparesTheTraceIDsLowBits() {
        let low = TraceID(high: 1, low: 0x0000_0000_0000_0002)  // (low >> 1) / 2^63 ≈ 0
        let high = TraceID(high: 1, low: 0xFFFF_FFFF_FFFF_FFFE)  // ≈ 1
        let middle = TraceID(high: 1, low: 0x8000_0000_0000_0000)  // exactly 0.25 × 2^64 = 0.5 × 2^63 → 0.5
        let half = TraceSampler(.traceIDRatio, ratio: 0.5)
        #expect(half.shouldSample(low, parent: nil))
        #expect(!half.shouldSample(high, parent: nil))
        #expect(TraceSampler(.traceIDRatio, ratio: 0.51).shouldSample(middle, parent: nil))
        #expect(!TraceSampler(.traceIDRatio, ratio: 0.49).shouldSample(middle, parent: nil))
        #expect(!TraceSampler(.traceIDRatio, ratio: 0).shouldSample(low, parent: nil))
        #expect(TraceSampler(.traceIDRatio, ratio: 1).shouldSample(high, parent: nil))
        #expect(TraceSampler(.parentBasedTraceIDRatio, ratio: 0.5).shouldSample(low, parent: nil))
        #expect(!TraceSampler(.parentBasedTraceIDRatio, ratio: 0.5).shouldSample(high, parent: nil))
    }
}
