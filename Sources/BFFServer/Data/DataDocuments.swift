import Foundation
import PageModel

/// The data documents page templates read (pages/README.md § Pages from data): every `*.json` file directly in
/// the pages directory's `data/` folder, by name without `.json` (`data/orders.json` is `data.orders`). Any JSON
/// value; templates repeat over arrays and look members up in objects.
public struct DataDocuments: Sendable, Equatable {
    /// The folder inside the pages directory.
    public static let folder = "data"

    /// Documents by name.
    public internal(set) var documents: [String: JSONValue] = [:]
    /// The SHA-256 of each document's file bytes, by name.
    var digests: [String: [UInt8]] = [:] {
        didSet { version = Self.version(of: digests) }
    }

    /// Changes whenever any document does: pages generated from the data are decoded again only when it changes.
    /// Kept, not derived per read: a mock request with a session compares it with its copy's.
    public private(set) var version = DataDocuments.version(of: [:])

    public init() {}

    private static func version(of digests: [String: [UInt8]]) -> String {
        let text = digests.keys.sorted().map { "\($0)=\(Crypto.hex(digests[$0]!))" }.joined(separator: ",")
        return Crypto.hex(Crypto.sha256(Array(text.utf8)).prefix(8))
    }

    /// Names, sorted.
    public var names: [String] { documents.keys.sorted() }

    /// `data` in a template's scope: an object of every document.
    var scopeValue: JSONValue {
        .object(JSONObject(names.map { JSONObject.Member(key: $0, value: documents[$0]!) }))
    }

    public static func == (lhs: DataDocuments, rhs: DataDocuments) -> Bool { lhs.digests == rhs.digests }

    /// Reads `directory/data/*.json`. A file that does not parse is an `invalid_json` error at its position; on a
    /// reload (`previous`, the documents being served) its last good version stays in use, so the pages made from it
    /// are served as they were. Names follow page ids (letters, digits, `_`, `-`); other files are errors. A missing
    /// folder is no data.
    /// - Returns: the documents and the findings, each for `data/<file>`.
    /// - Parameter overrides: documents used instead of the files' (runtime stubs, `/__admin/stubs/data`).
    /// - Parameter imageURL: the placeholder image service of `fake.image` (`pages.fakeImageURL`).
    static func load(
        directory: String, previous: DataDocuments?, overrides: [String: JSONValue] = [:],
        imageURL: String = BFFConfiguration.Pages().fakeImageURL
    ) -> (DataDocuments, [FileDiagnostic]) {
        var (result, findings) = load(directory: directory, previous: previous, imageURL: imageURL)
        result = result.overlaid(overrides)
        return (result, findings)
    }

    /// These documents with `overrides` in place of (or beside) the ones of the same name.
    func overlaid(_ overrides: [String: JSONValue]) -> DataDocuments {
        var result = self
        for (name, document) in overrides.sorted(by: { $0.key < $1.key }) { result.set(name, document) }
        return result
    }

    private static func load(
        directory: String, previous: DataDocuments?, imageURL: String
    ) -> (DataDocuments, [FileDiagnostic]) {
        var result = DataDocuments()
        var findings: [FileDiagnostic] = []
        let folder = directory + "/" + folder
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return (result, []) }
        func keepLastGood(_ name: String) {
            guard let previous, let kept = previous.documents[name] else { return }
            result.documents[name] = kept
            result.digests[name] = previous.digests[name]
        }
        for name in names.sorted() where name.hasSuffix(".json") && !PageDirectory.isSkipped(name) {
            let file = Self.folder + "/" + name
            let documentName = String(name.dropLast(5))
            guard PageID.isValid(documentName) else {
                findings.append(
                    FileDiagnostic(
                        file: file,
                        diagnostic: .error(
                            "invalid_data_name", .root,
                            "data file names are <name>.json with names matching \(PageID.pattern)")))
                continue
            }
            guard let bytes = FileManager.default.contents(atPath: folder + "/" + name).map({ [UInt8]($0) }) else {
                findings.append(
                    FileDiagnostic(file: file, diagnostic: .error("unreadable_file", .root, "cannot read the file")))
                continue
            }
            let parsed: JSONValue
            do {
                parsed = try PageDecoder().parse(bytes)
            } catch {
                findings.append(FileDiagnostic(file: file, diagnostic: error.diagnostic))
                keepLastGood(documentName)
                continue
            }
            var generatorFindings: [Diagnostic] = []
            let generated = FakeData.generated(parsed, imageURL: imageURL, diagnostics: &generatorFindings)
            findings += generatorFindings.map { FileDiagnostic(file: file, diagnostic: $0) }
            guard !generatorFindings.containsErrors else {
                keepLastGood(documentName)
                continue
            }
            result.documents[documentName] = generated ?? parsed
            // A generated document changes with the day (fake.date): its version follows what was made.
            result.digests[documentName] = Crypto.sha256(generated.map { JSONWriter().write($0) } ?? bytes)
        }
        return (result, findings)
    }
}
