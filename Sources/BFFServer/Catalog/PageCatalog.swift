import Foundation
import PageModel

/// The pages and api actions a server serves, loaded from a directory of page files and checked with PageModel.
///
/// Loading never throws: every problem is a ``FileDiagnostic``. Only pages whose file has no error diagnostic are
/// servable; `flow-bff serve` refuses to start while ``diagnostics`` contains errors.
public struct PageCatalog: Sendable {
    /// Servable pages by id.
    public internal(set) var pages: [String: CatalogPage] = [:]
    /// Api actions by name.
    public internal(set) var actions: [String: CatalogAction] = [:]
    /// Everything found while loading, errors and warnings, in file order.
    public internal(set) var diagnostics: [FileDiagnostic] = []
    /// Scenario variants (`<pageID>.<scenario>.json`, served in mock mode) by page id, then scenario name.
    public internal(set) var scenarios: [String: [String: CatalogScenario]] = [:]
    /// The data documents of `data/` that page templates read (pages/README.md § Pages from data).
    public internal(set) var data = DataDocuments()
    /// True when pages were kept despite error diagnostics (``load(directory:defaults:catalog:unchecked:reusing:)``).
    public private(set) var isUnchecked = false
    /// The files it was loaded from, with what decoding each gave (for the next load that reuses this catalog).
    var sources = SourceFiles(defaults: .init(), catalog: .standard)

    public init() {}

    /// Page ids, sorted.
    public var pageIDs: [String] { pages.keys.sorted() }

    /// A version of the whole catalog: changes whenever any page or action does.
    public var version: String {
        let text = pages.keys.sorted().map { "\($0)=\(pages[$0]!.version)" }.joined(separator: ",")
        return Crypto.hex(Crypto.sha256(Array(text.utf8)).prefix(6))
    }

    /// Loads every `*.json` file directly inside `directory`. Editor backup and hidden files are skipped and
    /// subfolders holding JSON files are not read, each with an `info` notice (`skipped_file`,
    /// `ignored_subfolder`); every finding carries its position in its file.
    ///
    /// - Parameter reusing: a catalog loaded earlier from the same directory (a reload passes the one it serves): a
    ///   file whose `stat` is unchanged (and settled, ``SourceFiles``) is not read again, and a file whose bytes
    ///   are unchanged is not decoded and checked again — its earlier result is taken as is. The cross-file checks
    ///   (action and page references, duplicate actions, scenarios and variants) always run, on names collected
    ///   when each file was decoded. Default none.
    /// - Parameter dataOverrides: data documents used instead of the files of `data/` (runtime stubs).
    /// - Parameter unchecked: keep every page and action that decodes, even when its file has error diagnostics,
    ///   and let ``makeServer(configuration:catalog:log:httpLogger:)`` serve such a catalog. **Only for
    ///   contract-test corpora** (`flow-bff verify --unchecked`, `Tests/ContractTests/BrokenServers`), which must
    ///   serve deliberately broken pages so `verify` can prove it catches them. There is no configuration key for
    ///   it; production never serves unchecked pages. Default false.
    public static func load(
        directory: String, defaults: BFFConfiguration.Pages = .init(), catalog: WidgetCatalog = .standard,
        unchecked: Bool = false, reusing previous: PageCatalog? = nil, dataOverrides: [String: JSONValue] = [:]
    ) -> PageCatalog {
        var result = PageCatalog()
        result.isUnchecked = unchecked
        let names: [String]
        do {
            let listing = try PageDirectory(directory)
            names = listing.pageFiles
            result.diagnostics = listing.notices
        } catch {
            result.diagnostics.append(
                FileDiagnostic(
                    file: directory, diagnostic: .error("missing_directory", .root, "cannot read the pages directory")))
            return result
        }
        result.sources = SourceFiles(defaults: defaults, catalog: catalog, reusing: previous?.sources)
        let (data, dataFindings) = DataDocuments.load(
            directory: directory, previous: previous?.data, overrides: dataOverrides, imageURL: defaults.fakeImageURL)
        result.data = data
        result.sources.data = data
        result.diagnostics += dataFindings
        var files: [(name: String, file: PageFile)] = []
        for name in names where !CatalogScenario.isScenarioFileName(name) {
            let id = String(name.dropLast(5))
            guard PageID.isValid(id) else {
                result.diagnostics.append(
                    FileDiagnostic(
                        file: name,
                        diagnostic: .error(
                            "invalid_page_id", .root,
                            "page file names are <page id>.json with ids matching \(PageID.pattern)")))
                continue
            }
            let path = directory + "/" + name
            let stamp = FileStamp(path: path)
            if case .page(let file)? = result.sources.unchanged(name, stamp: stamp) {
                files.append((name, file))
                continue
            }
            // Copied out of the `Data` at once, so the file's bytes are held once while the page decodes.
            guard let bytes = FileManager.default.contents(atPath: path).map({ [UInt8]($0) }) else {
                result.diagnostics.append(
                    FileDiagnostic(file: name, diagnostic: .error("unreadable_file", .root, "cannot read the file")))
                continue
            }
            files.append((name, result.sources.page(name, bytes: bytes, stamp: stamp, expectedID: id)))
        }
        result.add(files)
        result.addScenarios(directory: directory, names: names.filter(CatalogScenario.isScenarioFileName))
        result.checkVariants()
        result.checkPayloadPaths()
        result.sources.finish()
        result.diagnostics = locating(result.diagnostics, in: directory)
        return result
    }

    /// Adds decoded files: registers their pages and actions, then checks references across pages.
    mutating func add(_ files: [(name: String, file: PageFile)]) {
        var fileDiagnostics: [String: [Diagnostic]] = [:]
        var declaredBy: [String: String] = [:]
        for (name, file) in files {
            fileDiagnostics[name] = file.diagnostics
            for action in file.actions {
                if let existing = declaredBy[action.name] {
                    fileDiagnostics[name, default: []].append(
                        .error(
                            "duplicate_action", JSONPointer("/server/actions") / action.name,
                            "action \"\(action.name)\" is already declared by page \"\(existing)\""))
                } else {
                    declaredBy[action.name] = action.pageID
                }
            }
        }
        // A page whose file exists but is broken is not an unknown page: its file has its own error, and on a
        // reload its last good version stays served, so the pages that open it must not be dropped too.
        let declaredPages = Set(files.compactMap { $0.file.page?.page.id }).union(
            files.map { String($0.name.dropLast(5)) })
        let declaredActions = Set(files.flatMap { $0.file.declaredActionNames })
        for (name, file) in files {
            guard let page = file.page else { continue }
            fileDiagnostics[name, default: []].append(
                contentsOf: file.references.compactMap {
                    $0.diagnostic(
                        pages: declaredPages, actionNames: declaredActions,
                        remote: sources.defaults.referencesMayBeRemote)
                })
            guard isUnchecked || !fileDiagnostics[name, default: []].containsErrors else { continue }
            pages[page.page.id] = page
            for action in file.actions { actions[action.name] = action }
        }
        for (name, _) in files {
            diagnostics.append(
                contentsOf: fileDiagnostics[name, default: []].map { FileDiagnostic(file: name, diagnostic: $0) })
        }
    }
}
