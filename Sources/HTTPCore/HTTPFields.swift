/// An ordered list of HTTP header (or trailer) fields with case-insensitive name lookup.
///
/// Order and repeated fields are preserved exactly as received or added.
public struct HTTPFields: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One field line.
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    @usableFromInline var storage: [Field]

    public init() { storage = [] }

    public init(_ fields: [(String, String)]) {
        storage = fields.map { Field(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        storage = elements.map { Field(name: $0.0, value: $0.1) }
    }

    init(reservingCapacity capacity: Int) {
        storage = []
        storage.reserveCapacity(capacity)
    }

    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }

    public func makeIterator() -> IndexingIterator<[Field]> { storage.makeIterator() }

    /// The first value for `name` (case-insensitive). Setting replaces every field named `name`; `nil` removes them.
    public subscript(name: String) -> String? {
        get {
            for field in storage where field.name.asciiCaseInsensitiveEquals(name) { return field.value }
            return nil
        }
        set {
            if let newValue {
                set(name, newValue)
            } else {
                remove(name)
            }
        }
    }

    /// All values for `name` in order.
    public func values(for name: String) -> [String] {
        storage.filter { $0.name.asciiCaseInsensitiveEquals(name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool {
        storage.contains { $0.name.asciiCaseInsensitiveEquals(name) }
    }

    /// Appends a field line, keeping existing ones with the same name.
    public mutating func append(_ name: String, _ value: String) {
        storage.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` by one field (in place of the first one, or appended).
    public mutating func set(_ name: String, _ value: String) {
        if let first = storage.firstIndex(where: { $0.name.asciiCaseInsensitiveEquals(name) }) {
            storage[first].value = value
            var index = first + 1
            while index < storage.count {
                if storage[index].name.asciiCaseInsensitiveEquals(name) {
                    storage.remove(at: index)
                } else {
                    index += 1
                }
            }
        } else {
            storage.append(Field(name: name, value: value))
        }
    }

    public mutating func remove(_ name: String) {
        storage.removeAll { $0.name.asciiCaseInsensitiveEquals(name) }
    }

    /// Whether any comma-separated element of the fields named `name` equals `token` (case-insensitive).
    public func containsToken(_ token: String, in name: String) -> Bool {
        for field in storage where field.name.asciiCaseInsensitiveEquals(name) {
            for element in field.value.split(separator: ",") {
                if element.trimmingOWS().asciiCaseInsensitiveEquals(token) { return true }
            }
        }
        return false
    }

    public var description: String {
        storage.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}

@inlinable
func asciiLower(_ byte: UInt8) -> UInt8 {
    byte &- 0x41 < 26 ? byte | 0x20 : byte
}

extension StringProtocol {
    /// ASCII case-insensitive comparison without allocating.
    @inlinable
    func asciiCaseInsensitiveEquals(_ other: some StringProtocol) -> Bool {
        var lhs = utf8.makeIterator()
        var rhs = other.utf8.makeIterator()
        while true {
            let left = lhs.next()
            let right = rhs.next()
            guard let left, let right else { return left == nil && right == nil }
            if left != right && asciiLower(left) != asciiLower(right) { return false }
        }
    }

    /// Removes leading and trailing spaces and tabs (HTTP optional whitespace).
    func trimmingOWS() -> Substring {
        let string = Substring(self)
        var start = string.startIndex
        var end = string.endIndex
        while start < end, string[start] == " " || string[start] == "\t" { start = string.index(after: start) }
        while end > start {
            let before = string.index(before: end)
            guard string[before] == " " || string[before] == "\t" else { break }
            end = before
        }
        return string[start..<end]
    }
}
