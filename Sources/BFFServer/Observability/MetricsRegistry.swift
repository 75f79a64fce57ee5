import Synchronization

/// Where `/metrics` comes from: the sources registered here are asked for their ``MetricFamily`` values at each
/// scrape, in registration order, and written in the Prometheus text exposition format (0.0.4) by the one renderer.
/// A test reads the same families (``collect()``, ``family(_:)``) instead of parsing text.
final class MetricsRegistry: Sendable {
    private let sources = Mutex<[@Sendable () -> [MetricFamily]]>([])

    /// Adds `collect`, asked at every scrape.
    func register(_ collect: @escaping @Sendable () -> [MetricFamily]) {
        sources.withLock { $0.append(collect) }
    }

    /// Every family, in registration order.
    func collect() -> [MetricFamily] {
        sources.withLock { $0 }.flatMap { $0() }
    }

    /// The family named `name`, if a source has it now.
    func family(_ name: String) -> MetricFamily? {
        collect().first { $0.name == name }
    }

    /// The text exposition of every family.
    func render() -> String { Self.render(collect()) }

    /// The text exposition of `families`: `# HELP` and `# TYPE`, then each sample (a histogram's buckets with `le`,
    /// `+Inf`, `_sum` and `_count`); label values escaped as the format says.
    static func render(_ families: [MetricFamily]) -> String {
        var text = ""
        for family in families {
            text += "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) \(family.kind.rawValue)\n"
            for sample in family.samples {
                let labels = zip(family.labelNames, sample.labels).map { "\($0)=\"\(escaped($1))\"" }
                switch sample.value {
                case .count(let count):
                    text += "\(family.name)\(braced(labels)) \(count)\n"
                case .real(let value):
                    text += "\(family.name)\(braced(labels)) \(value)\n"
                case .histogram(let buckets, let sum, let count):
                    for bucket in buckets {
                        text += "\(family.name)_bucket\(braced(labels + ["le=\"\(bucket.bound)\""])) \(bucket.count)\n"
                    }
                    text += "\(family.name)_bucket\(braced(labels + ["le=\"+Inf\""])) \(count)\n"
                    text += "\(family.name)_sum\(braced(labels)) \(sum)\n"
                    text += "\(family.name)_count\(braced(labels)) \(count)\n"
                }
            }
        }
        return text
    }

    private static func braced(_ labels: [String]) -> String {
        labels.isEmpty ? "" : "{" + labels.joined(separator: ",") + "}"
    }

    /// A label value with `\`, `"` and line feeds escaped.
    static func escaped(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x5C || $0 == 0x22 || $0 == 0x0A }) else { return value }
        var bytes: [UInt8] = []
        for byte in value.utf8 {
            switch byte {
            case 0x5C: bytes += [0x5C, 0x5C]
            case 0x22: bytes += [0x5C, 0x22]
            case 0x0A: bytes += [0x5C, UInt8(ascii: "n")]
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A counter family with fixed label names, counted under a lock (the rarer events: provider and handler outcomes,
/// upstream calls, store errors; per-request counts are sharded by event loop in ``Metrics``).
final class LabeledCounter: Sendable {
    let name: String
    let help: String
    let labelNames: [String]
    private let counts = Mutex<[[String]: UInt64]>([:])

    init(_ name: String, help: String, labels: [String]) {
        self.name = name
        self.help = help
        labelNames = labels
    }

    /// Adds `amount` to the series with `labels` (one value per label name).
    func increment(_ labels: [String], by amount: UInt64 = 1) {
        precondition(labels.count == labelNames.count, "\(name) takes \(labelNames.count) label values")
        counts.withLock { $0[labels, default: 0] += amount }
    }

    /// The series' count so far.
    func value(_ labels: [String]) -> UInt64 { counts.withLock { $0[labels] ?? 0 } }

    /// Whether nothing was counted yet.
    var isEmpty: Bool { counts.withLock { $0.isEmpty } }

    /// The family, series sorted by label values.
    var family: MetricFamily {
        let counts = counts.withLock { $0 }
        let samples = counts.keys.sorted { $0.lexicographicallyPrecedes($1) }.map {
            MetricFamily.Sample(labels: $0, value: .count(counts[$0]!))
        }
        return MetricFamily(name, .counter, help: help, labels: labelNames, samples: samples)
    }
}
