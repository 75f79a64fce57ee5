import PageModel

/// The places where two JSON documents differ, for readable "expected vs actual" reports.
struct JSONDiff {
    struct Difference: Sendable, Hashable {
        var path: JSONPointer
        /// Compact JSON, cut to 120 characters; `(absent)` when the member does not exist on this side.
        var expected: String
        var actual: String
    }

    /// At most `limit` differences, in document order; arrays compare element by element.
    static func differences(
        expected: JSONValue, actual: JSONValue, limit: Int = 10
    ) -> [Difference] {
        var found: [Difference] = []
        compare(expected, actual, at: .root, into: &found, limit: limit)
        return found
    }

    private static func compare(
        _ expected: JSONValue?, _ actual: JSONValue?, at path: JSONPointer, into found: inout [Difference], limit: Int
    ) {
        guard found.count < limit, expected != actual else { return }
        switch (expected, actual) {
        case (.object(let left)?, .object(let right)?):
            var keys = left.members.map(\.key)
            for member in right.members where left[member.key] == nil { keys.append(member.key) }
            for key in keys { compare(left[key], right[key], at: path / key, into: &found, limit: limit) }
        case (.array(let left)?, .array(let right)?):
            for index in 0..<max(left.count, right.count) {
                compare(
                    index < left.count ? left[index] : nil, index < right.count ? right[index] : nil,
                    at: path / index, into: &found, limit: limit)
            }
        default:
            found.append(Difference(path: path, expected: render(expected), actual: render(actual)))
        }
    }

    static func render(_ value: JSONValue?) -> String {
        guard let value else { return "(absent)" }
        let text = JSONWriter().string(value)
        return text.count > 120 ? String(text.prefix(119)) + "…" : text
    }
}

extension PageModel {
    /// This document without pagination cursors (they are opaque and may legitimately differ between loads).
    var withoutPostbacks: PageModel {
        var copy = self
        let hasMore = hasMore
        if copy.pagination != nil { copy.pagination?.postback = hasMore ? "…" : nil }
        return copy
    }
}

extension NextPage {
    /// This chunk without its cursor.
    var withoutPostback: NextPage {
        var copy = self
        if copy.pagination.hasMore { copy.pagination.postback = "…" }
        return copy
    }
}
