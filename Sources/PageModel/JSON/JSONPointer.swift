/// An RFC 6901 JSON Pointer, built while decoding so every diagnostic and error can name where it happened.
///
/// `JSONPointer.root` is the empty pointer (the whole document); `/page/sections/0/widgets/2/content/title`
/// names one field.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The pointer text, e.g. `/page/sections/0`.
    public private(set) var string: String

    public static let root = JSONPointer(string: "")

    public init(string: String) {
        self.string = string
    }

    public init(stringLiteral value: String) {
        self.string = value
    }

    /// This pointer extended by one object key (escaped as RFC 6901 requires).
    public func appending(_ key: String) -> JSONPointer {
        var escaped = key
        if escaped.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) {
            escaped = escaped.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
        }
        return JSONPointer(string: string + "/" + escaped)
    }

    /// This pointer extended by one array index.
    public func appending(_ index: Int) -> JSONPointer {
        JSONPointer(string: string + "/" + String(index))
    }

    public static func / (pointer: JSONPointer, key: String) -> JSONPointer { pointer.appending(key) }
    public static func / (pointer: JSONPointer, index: Int) -> JSONPointer { pointer.appending(index) }

    /// The unescaped reference tokens.
    public var tokens: [String] {
        guard !string.isEmpty else { return [] }
        return string.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            String($0).replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }

    public var description: String { string }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
