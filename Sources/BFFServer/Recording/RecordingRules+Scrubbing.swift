import PageModel

extension RecordingRules {
    /// Member names whose values the rules never change: what makes a document a contract document.
    static let protectedKeys: Set<String> = ["schemaVersion", "kind", "id", "type", "pageID"]

    /// `value` with secrets redacted and volatile values normalised, member order kept.
    func scrubbed(_ value: JSONValue) -> JSONValue {
        let redacted = Set(redactedKeys.map { $0.lowercased() })
        let normalized = Set(normalizedKeys.map { $0.lowercased() })
        return scrub(value, redacted: redacted, normalized: normalized)
    }

    private func scrub(_ value: JSONValue, redacted: Set<String>, normalized: Set<String>) -> JSONValue {
        switch value {
        case .string(let text) where normalizesTimestamps && Self.isDateTime(text):
            return .string(Self.normalizedTimestamp)
        case .array(let elements):
            return .array(elements.map { scrub($0, redacted: redacted, normalized: normalized) })
        case .object(let object):
            let isAPIAction = object["type"] == .string("api")
            let members = object.members.map { member -> JSONObject.Member in
                let key = member.key
                if Self.protectedKeys.contains(key) || (isAPIAction && key == "name") { return member }
                let lowered = key.lowercased()
                switch member.value {
                case .string where redacted.contains(lowered):
                    return JSONObject.Member(key: key, value: .string(Self.redacted))
                case .string where normalized.contains(lowered), .number where normalized.contains(lowered):
                    return JSONObject.Member(key: key, value: .string(Self.normalized))
                default:
                    return JSONObject.Member(
                        key: key, value: scrub(member.value, redacted: redacted, normalized: normalized))
                }
            }
            return .object(JSONObject(members))
        default:
            return value
        }
    }

    /// Whether `text` is exactly an ISO-8601 date-time: `YYYY-MM-DDTHH:MM[:SS[.fraction]]` then `Z` or a
    /// `±HH:MM` / `±HHMM` offset or nothing (a local date-time; the `T` may be lower case). A date alone, or a time alone, is not one.
    static func isDateTime(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        func digits(_ count: Int) -> Bool {
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index + offset]) {
                return false
            }
            index += count
            return true
        }
        func literal(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard digits(4), literal("-"), digits(2), literal("-"), digits(2), literal("Tt"), digits(2), literal(":"),
            digits(2)
        else { return false }
        if literal(":") {
            guard digits(2) else { return false }
            if literal(".,") {
                guard digits(1) else { return false }
                while digits(1) {}
            }
        }
        if index == bytes.count { return true }  // a local date-time, without offset
        if literal("Zz") { return index == bytes.count }
        guard literal("+-"), digits(2) else { return false }
        _ = literal(":")
        return digits(2) && index == bytes.count
    }
}
