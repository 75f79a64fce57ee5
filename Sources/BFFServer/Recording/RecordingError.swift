import PageModel

/// Why a recording was refused. Nothing is written when one is thrown.
///
/// `description` reads `file: JSON-path: code: message` (the file when one is concerned, the path inside the
/// recorded body or file).
public struct RecordingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable machine code (open set: static members of ``Code``).
    public var code: Code
    /// Where the problem is: inside the recorded envelope (`/page/sections/3/widgets`), or inside ``file``.
    public var path: JSONPointer
    public var message: String
    /// The page file concerned, relative to the folder, when there is one.
    public var file: String?

    public init(code: Code, path: JSONPointer = .root, message: String, file: String? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.file = file
    }

    public var description: String {
        let location = path.string.isEmpty ? "/" : path.string
        return (file.map { "\($0): " } ?? "") + "\(location): \(code): \(message)"
    }

    /// Error codes of recording.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The body is not JSON (the path is the root; the message says where parsing stopped).
        public static let invalidJSON = Code(rawValue: "invalid_json")
        /// The body is not a valid contract envelope (PageDecoder's code is kept when it has a more precise one:
        /// `unsupported_schema_version`, …).
        public static let invalidEnvelope = Code(rawValue: "invalid_envelope")
        /// A known envelope kind where another was expected (a `nextPage` as the first chunk).
        public static let unexpectedKind = Code(rawValue: "unexpected_kind")
        /// The page id is not a valid page id, or the envelope's `page.id` differs from the one recorded.
        public static let invalidPageID = Code(rawValue: "invalid_page_id")
        /// The action name is not a valid action name.
        public static let invalidActionName = Code(rawValue: "invalid_action_name")
        /// No chunks were given.
        public static let noChunks = Code(rawValue: "no_chunks")
        /// The file that would be written has error diagnostics under the server's own checks (`flow-bff check`):
        /// the code and path of its first error are in the message.
        public static let rejectedByCheck = Code(rawValue: "rejected_by_check")
        /// A page file in the folder that must be changed cannot be read or parsed.
        public static let unreadableFile = Code(rawValue: "unreadable_file")
        /// The folder cannot be read, or a file cannot be written.
        public static let writeFailed = Code(rawValue: "write_failed")
    }
}

extension RecordingError {
    /// A decoding error of PageModel, its code and path kept.
    init(_ error: ContractError, in body: String) {
        let code: Code =
            switch error.code {
            case "invalid_json": .invalidJSON
            case "unexpected_kind": .unexpectedKind
            case "invalid_envelope": .invalidEnvelope
            default: Code(rawValue: error.code)
            }
        self.init(code: code, path: error.path, message: "\(body): \(error.message)")
    }
}
