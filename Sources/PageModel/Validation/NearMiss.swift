/// Finds the candidate closest to a mistyped name (edit distance, adjacent swaps included), for "did you mean" hints in
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

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two adjacent
    /// characters each cost 1, so `ordres` is one step from `orders` (and two from `order`).
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                var cost = min(
                    previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    cost = min(cost, beforePrevious[j - 2] + 1)
                }
                current[j] = cost
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
