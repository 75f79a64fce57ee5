/// A JSON object that keeps its members in source order. Keys are unique (the parser rejects duplicates).
///
/// Lookup is a linear scan: widget content objects are small, and the scan beats hashing for them.
public struct JSONObject: Sendable, Hashable {
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public private(set) var members: [Member]

    public init(_ members: [Member] = []) {
        self.members = members
    }

    /// An empty object with room for `capacity` members: an encoder that knows how many members it writes at most
    /// builds the object without growing its storage member by member.
    public init(capacity: Int) {
        members = []
        members.reserveCapacity(capacity)
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }

    /// The value for `key`; assigning `nil` removes the member, assigning a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get {
            // Comparing lengths first skips most `String ==` calls (keys of one object rarely share a length).
            let length = key.utf8.count
            for member in members where member.key.utf8.count == length && member.key == key { return member.value }
            return nil
        }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }
}
