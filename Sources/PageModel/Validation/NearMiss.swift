/// Finds the candidate closest to a mistyped name (Levenshtein distance), for "did you mean" hints in
/// configuration errors, 404s and authoring checks (unknown widget, action and effect types).
public enum NearMiss {
    /// The closest candidate within a distance of a third of the name's length (at least 2), or `nil`.
    public static func closest(to name: String, among candidates: some Sequence<String>) -> String? {
        let target = Array(name.lowercased().utf8)
        let limit = max(2, target.count / 3)
        var best: (String, Int)? = nil
        for candidate in candidates {
            let distance = Self.distance(target, Array(candidate.lowercased().utf8))
            if distance <= limit, distance < (best?.1 ?? Int.max) { best = (candidate, distance) }
        }
        return best?.0
    }

    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
