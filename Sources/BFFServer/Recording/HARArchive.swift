import Foundation
import PageModel

/// The parts of a HAR 1.2 file (HTTP Archive, as browsers' and proxies' "save as HAR" write it) that
/// `flow-bff import har` reads: each entry's request method, URL and body and its response status, MIME type and
/// body. Other members are not read, and not required.
public struct HARArchive: Sendable {
    /// One exchange of the archive.
    public struct Entry: Sendable, Hashable {
        /// The position in `log.entries`.
        public var index: Int
        public var method: String
        public var url: String
        /// `request.postData.text`, when present.
        public var requestBody: [UInt8]?
        public var status: Int
        /// `response.content.mimeType`, when present.
        public var mimeType: String?
        /// `response.content.text`, base64-decoded when `encoding` says so; `nil` when the capture has no body.
        public var body: [UInt8]?

        public init(
            index: Int, method: String, url: String, requestBody: [UInt8]? = nil, status: Int, mimeType: String?,
            body: [UInt8]?
        ) {
            self.index = index
            self.method = method
            self.url = url
            self.requestBody = requestBody
            self.status = status
            self.mimeType = mimeType
            self.body = body
        }
    }

    public var entries: [Entry]

    /// Reads a HAR file's bytes.
    /// - Throws: ``HARError`` naming the JSON path of the first member that is missing or of the wrong type.
    public init(bytes: [UInt8]) throws(HARError) {
        let root: JSONValue
        do {
            root = try JSONParser().parse(bytes)
        } catch {
            throw HARError(path: .root, message: "not JSON: \(error)")
        }
        let entriesPath = JSONPointer("/log/entries")
        guard case .object? = root["log"] else { throw HARError(path: "/log", message: "a HAR file has a log object") }
        guard case .array(let list)? = root["log"]?["entries"] else {
            throw HARError(path: entriesPath, message: "log.entries is an array")
        }
        entries = []
        for (index, value) in list.enumerated() {
            entries.append(try Self.entry(value, index: index, at: entriesPath / index))
        }
    }

    private static func entry(_ value: JSONValue, index: Int, at path: JSONPointer) throws(HARError) -> Entry {
        func string(_ value: JSONValue?, _ member: JSONPointer, required: Bool = true) throws(HARError) -> String? {
            switch value {
            case .string(let text)?: return text
            case nil where !required, .null? where !required: return nil
            default: throw HARError(path: member, message: "\(member.tokens.last ?? "") is a string")
            }
        }
        guard case .object = value else { throw HARError(path: path, message: "an entry is an object") }
        guard case .object(let request)? = value["request"] else {
            throw HARError(path: path / "request", message: "request is an object")
        }
        guard case .object(let response)? = value["response"] else {
            throw HARError(path: path / "response", message: "response is an object")
        }
        let method = try string(request["method"], path / "request" / "method")!
        let url = try string(request["url"], path / "request" / "url")!
        var requestBody: [UInt8]?
        if let postData = request["postData"], postData != .null {
            guard case .object = postData else {
                throw HARError(path: path / "request" / "postData", message: "postData is an object")
            }
            requestBody = try string(postData["text"], path / "request" / "postData" / "text", required: false)
                .map { Array($0.utf8) }
        }
        guard let status = response["status"]?.intValue else {
            throw HARError(path: path / "response" / "status", message: "status is an integer")
        }
        let contentPath = path / "response" / "content"
        guard case .object(let content)? = response["content"] else {
            throw HARError(path: contentPath, message: "content is an object")
        }
        let mimeType = try string(content["mimeType"], contentPath / "mimeType", required: false)
        let encoding = try string(content["encoding"], contentPath / "encoding", required: false)
        var body = try string(content["text"], contentPath / "text", required: false).map { Array($0.utf8) }
        if let text = body, let encoding {
            guard encoding == "base64" else {
                throw HARError(path: contentPath / "encoding", message: "unknown encoding \"\(encoding)\" (base64)")
            }
            guard let data = Data(base64Encoded: Data(text), options: .ignoreUnknownCharacters) else {
                throw HARError(path: contentPath / "text", message: "text is not valid base64")
            }
            body = Array(data)
        }
        return Entry(
            index: index, method: method, url: url, requestBody: requestBody, status: status, mimeType: mimeType,
            body: body)
    }
}

/// A file that is not a HAR archive the importer can read: the JSON path of the first problem and what is wrong.
public struct HARError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Always `invalid_har`.
    public var code: String { "invalid_har" }
    public var path: JSONPointer
    public var message: String

    public init(path: JSONPointer, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path.string.isEmpty ? "/" : path.string): \(code): \(message)" }
}
