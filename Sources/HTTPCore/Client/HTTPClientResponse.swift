/// An answer an ``HTTPClient`` received: the status, the header fields of the final response and the body
/// (decoded when it was compressed).
public struct HTTPClientResponse: Sendable {
    public var status: Int
    /// The header fields as received, names as the upstream spelled them (compare case-insensitively).
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the field `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.utf8.count == name.utf8.count && $0.name.lowercased() == name.lowercased() }?.value
    }
}
