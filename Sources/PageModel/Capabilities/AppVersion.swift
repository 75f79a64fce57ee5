/// A dotted app version (`3.2.0`, `3.2`, `3`), compared numerically component by component; missing
/// components count as 0, so `3.2` equals `3.2.0`.
public struct AppVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Up to four non-negative components.
    public private(set) var components: [Int]

    /// Parses `major[.minor[.patch[.build]]]`; `nil` for anything else (letters, empty components, > 4 parts).
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var components: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 9, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let value = Int(part)
            else { return nil }
            components.append(value)
        }
        self.components = components
    }

    public var description: String { components.map(String.init).joined(separator: ".") }

    private var padded: [Int] { components + Array(repeating: 0, count: 4 - components.count) }

    public static func == (lhs: AppVersion, rhs: AppVersion) -> Bool { lhs.padded == rhs.padded }

    public func hash(into hasher: inout Hasher) { hasher.combine(padded) }

    public static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        lhs.padded.lexicographicallyPrecedes(rhs.padded)
    }
}
