/// The parameters a ``Router`` pattern captured (`{name}` segments), percent-decoded, looked up by name.
///
/// Routes have one or two parameters, so they are a short list compared by name rather than a dictionary: the first
/// one is stored inline, and nothing is hashed or allocated for it on the request path.
public struct PathParameters: Sendable, Equatable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    private var first: Parameter?
    private var more: [Parameter] = []

    private struct Parameter: Sendable, Equatable {
        var name: String
        var value: String
    }

    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { self[name] = value }
    }

    public var count: Int { (first == nil ? 0 : 1) + more.count }
    public var isEmpty: Bool { first == nil }

    /// The value captured for `name`; setting replaces it (`nil` removes it).
    public subscript(name: String) -> String? {
        get {
            if let first, first.name == name { return first.value }
            return more.first { $0.name == name }?.value
        }
        set {
            var all = [first].compactMap { $0 } + more
            all.removeAll { $0.name == name }
            if let newValue { all.append(Parameter(name: name, value: newValue)) }
            first = all.first
            more = Array(all.dropFirst())
        }
    }

    /// Adds a parameter the pattern names once (the router's fast path: no lookup, no reordering).
    mutating func append(_ name: String, _ value: String) {
        if first == nil {
            first = Parameter(name: name, value: value)
        } else {
            more.append(Parameter(name: name, value: value))
        }
    }

    /// Name order is not significant.
    public static func == (lhs: PathParameters, rhs: PathParameters) -> Bool {
        lhs.count == rhs.count && lhs.names.allSatisfy { lhs[$0] == rhs[$0] }
    }

    private var names: [String] { ([first].compactMap { $0 } + more).map(\.name) }

    public var description: String {
        "[" + names.sorted().map { "\($0): \(self[$0] ?? "")" }.joined(separator: ", ") + "]"
    }
}
