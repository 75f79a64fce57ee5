import HTTPCore

extension HTTPTestClient {
    /// A response as received.
    public struct Response: Sendable {
        public var status: Int
        /// Header fields as received (names as sent by the server, in order).
        public var headers: HTTPFields
        /// The body as received (still gzip-compressed when `Content-Encoding: gzip`).
        public var rawBody: [UInt8]

        public init(status: Int, headers: HTTPFields, rawBody: [UInt8]) {
            self.status = status
            self.headers = headers
            self.rawBody = rawBody
        }

        /// The first value of header `name` (case-insensitive).
        public func header(_ name: String) -> String? { headers[name] }

        /// The body, gunzipped when the response is gzip-encoded.
        public var body: [UInt8] {
            headers.containsToken("gzip", in: "Content-Encoding") ? (Gzip.decompress(rawBody) ?? []) : rawBody
        }

        public var text: String { String(decoding: body, as: UTF8.self) }
    }
}

/// What a raw connection saw after sending a request: every byte until EOF or an error, and that error's errno.
public struct RawExchange: Sendable {
    public var bytes: [UInt8]
    /// The errno that ended the exchange (`ECONNRESET`, `EAGAIN` on timeout), `nil` on a clean EOF.
    public var error: Int32?
    /// Seconds from the end of the send to the first and the last byte received.
    public var firstByte: Double?
    public var lastByte: Double?
    /// How many reads returned data.
    public var reads = 0

    public init(bytes: [UInt8], error: Int32? = nil) {
        self.bytes = bytes
        self.error = error
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
