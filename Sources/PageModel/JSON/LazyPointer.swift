/// A JSON Pointer that is only spelled out when something asks for it.
///
/// The decoder and validator hand one down the tree and read ``pointer`` only when they report a diagnostic or
/// an error, or generate an id from the coding path. Extending one is a small node linked to its parent, never a
/// string copy, so a clean document never pays for concatenating and escaping paths (see `bench/codec`).
indirect enum LazyPointer: Sendable {
    case pointer(JSONPointer)
    case key(LazyPointer, String)
    case index(LazyPointer, Int)

    static let root = LazyPointer.pointer(.root)

    static func / (parent: LazyPointer, key: String) -> LazyPointer { .key(parent, key) }
    static func / (parent: LazyPointer, index: Int) -> LazyPointer { .index(parent, index) }

    /// The pointer this path names.
    var pointer: JSONPointer {
        switch self {
        case .pointer(let pointer): pointer
        case .key(let parent, let key): parent.pointer / key
        case .index(let parent, let index): parent.pointer / index
        }
    }
}

extension LazyPointer: ExpressibleByStringLiteral {
    init(stringLiteral value: String) {
        self = .pointer(JSONPointer(string: value))
    }
}
