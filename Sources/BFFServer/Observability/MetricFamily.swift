/// One Prometheus metric family as collected for a scrape: its name, type, help and samples. Every part of the
/// server that has metrics hands families like this to the ``MetricsRegistry``, which is the one place that writes
/// the text format.
package struct MetricFamily: Sendable, Equatable {
    package enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// One sample: its label values (in the family's label order) and value.
    package struct Sample: Sendable, Equatable {
        package var labels: [String]
        package var value: Value

        package init(labels: [String], value: Value) {
            self.labels = labels
            self.value = value
        }
    }

    package enum Value: Sendable, Equatable {
        /// A count, written as an integer.
        case count(UInt64)
        /// A gauge reading or a sum, written as Swift writes a `Double`.
        case real(Double)
        /// Cumulative counts per upper bound (ascending, `+Inf` excluded), the sum and the count of observations.
        case histogram(buckets: [(bound: Double, count: UInt64)], sum: Double, count: UInt64)

        package static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.count(let a), .count(let b)): a == b
            case (.real(let a), .real(let b)): a == b
            case (.histogram(let a, let sumA, let countA), .histogram(let b, let sumB, let countB)):
                a.map(\.bound) == b.map(\.bound) && a.map(\.count) == b.map(\.count) && sumA == sumB
                    && countA == countB
            default: false
            }
        }

        /// The number a test compares: a count, a reading, or a histogram's count.
        package var number: Double {
            switch self {
            case .count(let count): Double(count)
            case .real(let value): value
            case .histogram(_, _, let count): Double(count)
            }
        }
    }

    package var name: String
    package var kind: Kind
    package var help: String
    package var labelNames: [String]
    package var samples: [Sample]

    package init(_ name: String, _ kind: Kind, help: String, labels: [String] = [], samples: [Sample]) {
        self.name = name
        self.kind = kind
        self.help = help
        labelNames = labels
        self.samples = samples
    }

    /// The value of the sample with `labels`, if any (tests).
    package func value(_ labels: String...) -> Value? {
        samples.first { $0.labels == labels }?.value
    }
}

/// A part of the server, or a component given to it (an idempotency store), that has metric families for `/metrics`.
package protocol MetricsSource: Sendable {
    var families: [MetricFamily] { get }
}
