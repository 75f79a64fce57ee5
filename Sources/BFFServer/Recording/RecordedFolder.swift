import Foundation
import PageModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The page files of a recording folder, read into memory, changed there, checked with the server's own rules and
/// then written back: only the files whose bytes changed, each atomically (a hidden temporary file in the folder,
/// renamed over the old one — a server watching the folder skips hidden files and never sees half a file).
struct RecordedFolder {
    let directory: String
    let defaults: BFFConfiguration.Pages
    /// The `*.json` files directly in the folder as they are on disk.
    private var onDisk: [String: [UInt8]] = [:]
    /// Parsed files, read on first use; changed ones replaced.
    private var documents: [String: JSONValue] = [:]
    /// Files changed by this recording, in the order they were first changed.
    private(set) var changed: [String] = []
    var notes: [String] = []

    /// Reads the folder (a missing folder is an empty one; it is created when the first file is written).
    init(directory: String, defaults: BFFConfiguration.Pages) throws(RecordingError) {
        self.directory = directory
        self.defaults = defaults
        guard FileManager.default.fileExists(atPath: directory) else { return }
        let listing: PageDirectory
        do {
            listing = try PageDirectory(directory)
        } catch {
            throw RecordingError(code: .writeFailed, message: "cannot read the folder \(directory): \(error)")
        }
        for name in listing.pageFiles {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
                throw RecordingError(code: .unreadableFile, message: "cannot read the file", file: name)
            }
            onDisk[name] = Array(data)
        }
    }

    /// Names of the files in the folder (on disk or created by this recording), sorted.
    var names: [String] { Set(onDisk.keys).union(documents.keys).sorted() }

    func exists(_ name: String) -> Bool { onDisk[name] != nil || documents[name] != nil }

    /// The parsed file `name`, `nil` when there is none.
    mutating func document(_ name: String) throws(RecordingError) -> JSONValue? {
        if let document = documents[name] { return document }
        guard let bytes = onDisk[name] else { return nil }
        do {
            let document = try JSONParser().parse(bytes)
            documents[name] = document
            return document
        } catch {
            throw RecordingError(code: .unreadableFile, message: "not JSON: \(error)", file: name)
        }
    }

    /// Replaces (or creates) the file `name`.
    mutating func set(_ name: String, _ document: JSONValue) {
        documents[name] = document
        if !changed.contains(name) { changed.append(name) }
    }

    /// The file's `server` object (empty when it has none).
    mutating func server(of name: String) throws(RecordingError) -> JSONObject {
        (try document(name))?["server"]?.objectValue ?? JSONObject()
    }

    /// Sets member `key` of the file's `server` object (removes it for `nil`), keeping the other members.
    mutating func setServer(_ name: String, _ key: String, _ value: JSONValue?) throws(RecordingError) {
        guard case .object(var root)? = try document(name) else { return }
        var server = root["server"]?.objectValue ?? JSONObject()
        server[key] = value
        root["server"] = server.isEmpty ? nil : .object(server)
        set(name, .object(root))
    }

    /// The action names each page file's `server.actions` declares, by name → file.
    mutating func declaredActions() throws(RecordingError) -> [String: String] {
        var declared: [String: String] = [:]
        for name in names where CatalogScenario.parse(fileName: name) == nil {
            for key in try server(of: name)["actions"]?.objectValue?.keys ?? [] where declared[key] == nil {
                declared[key] = name
            }
        }
        return declared
    }

    /// The server's own check of one file as it would be written: its error diagnostics (cross-file references
    /// are not part of it; stand-ins take care of them).
    mutating func errors(of name: String) throws(RecordingError) -> [Diagnostic] {
        guard let document = try document(name) else { return [] }
        let bytes = PageFileFormat.bytes(document)
        if let (pageID, _) = CatalogScenario.parse(fileName: name) {
            let file = ScenarioFile(bytes: bytes, file: name, pageID: pageID, defaults: defaults, catalog: .standard)
            return file.diagnostics.filter { $0.severity == .error }
        }
        let file = PageFile(
            bytes: bytes, file: name, expectedID: String(name.dropLast(5)), defaults: defaults, catalog: .standard)
        return file.diagnostics.filter { $0.severity == .error }
    }

    /// Throws `rejected_by_check` with the first error of the first changed file that has one.
    mutating func checkChanged() throws(RecordingError) {
        for name in changed {
            if let error = try errors(of: name).first {
                throw RecordingError(
                    code: .rejectedByCheck, path: error.path,
                    message: "the recorded file would not load: \(error.code): \(error.message)", file: name)
            }
        }
    }

    /// Writes the changed files whose bytes differ from the disk's; nothing when the outcome is empty.
    func write(into outcome: inout RecordingOutcome) throws(RecordingError) {
        var pending: [(name: String, bytes: [UInt8])] = []
        for name in changed {
            guard let document = documents[name] else { continue }
            let bytes = PageFileFormat.bytes(document)
            if onDisk[name] == bytes {
                outcome.unchanged.append(name)
            } else {
                pending.append((name, bytes))
            }
        }
        if !pending.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw RecordingError(code: .writeFailed, message: "cannot create the folder \(directory): \(error)")
            }
        }
        for (name, bytes) in pending {
            try Self.writeAtomically(bytes, to: directory + "/" + name, name: name)
            outcome.written.append(name)
        }
        outcome.written.sort()
        outcome.unchanged.sort()
    }

    /// Writes a hidden temporary file beside `path`, then renames it over `path`.
    static func writeAtomically(_ bytes: [UInt8], to path: String, name: String) throws(RecordingError) {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = directory + "/.\(name).recording-\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else {
            throw RecordingError(code: .writeFailed, message: "cannot write \(temporary)", file: name)
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw RecordingError(code: .writeFailed, message: "cannot rename onto \(path): \(reason)", file: name)
        }
    }
}
