import PageModel

/// The files a catalog was loaded from, each with the SHA-256 of its bytes and what decoding it gave, so a load that
/// reuses an earlier catalog (every reload) reads every file again but decodes and checks only those whose bytes
/// changed. Decoding is a pure function of a file's name, its bytes and the page settings, so a reused result is
/// the one decoding would give.
struct SourceFiles: Sendable {
    /// One file's decoding: a page file or a scenario file.
    enum Decoded: Sendable {
        case page(PageFile)
        case scenario(ScenarioFile)
    }

    struct Entry: Sendable {
        var digest: [UInt8]
        var decoded: Decoded
    }

    /// The settings files are decoded with (`directory` cleared: where the files are is not one of them).
    let defaults: BFFConfiguration.Pages
    let catalog: WidgetCatalog
    /// Every file loaded, by name relative to the pages directory.
    private(set) var entries: [String: Entry] = [:]
    /// The files this load decoded (the others were reused), in load order.
    private(set) var decoded: [String] = []
    /// The previous load's entries while loading; empty when its settings differ or once ``finish()`` ran.
    private var reusable: [String: Entry] = [:]

    /// - Parameter previous: the files of an earlier load; reused only when loaded with the same page settings
    ///   (the directory aside) and widget catalog.
    init(defaults: BFFConfiguration.Pages, catalog: WidgetCatalog, reusing previous: SourceFiles? = nil) {
        var defaults = defaults
        defaults.directory = ""
        self.defaults = defaults
        self.catalog = catalog
        if let previous, previous.defaults == defaults, previous.catalog.specs == catalog.specs {
            reusable = previous.entries
        }
    }

    /// The page file `name` holding `bytes`, decoded unless the previous load saw the same bytes.
    mutating func page(_ name: String, bytes: [UInt8], expectedID: String) -> PageFile {
        let digest = Crypto.sha256(bytes)
        if let entry = reusable[name], entry.digest == digest, case .page(let file) = entry.decoded {
            entries[name] = entry
            return file
        }
        let file = PageFile(bytes: bytes, file: name, expectedID: expectedID, defaults: defaults, catalog: catalog)
        entries[name] = Entry(digest: digest, decoded: .page(file))
        decoded.append(name)
        return file
    }

    /// The scenario file `name` of page `pageID` holding `bytes`, decoded unless the previous load saw the same
    /// bytes.
    mutating func scenario(_ name: String, bytes: [UInt8], pageID: String) -> ScenarioFile {
        let digest = Crypto.sha256(bytes)
        if let entry = reusable[name], entry.digest == digest, case .scenario(let file) = entry.decoded {
            entries[name] = entry
            return file
        }
        let file = ScenarioFile(bytes: bytes, file: name, pageID: pageID, defaults: defaults, catalog: catalog)
        entries[name] = Entry(digest: digest, decoded: .scenario(file))
        decoded.append(name)
        return file
    }

    /// Ends the load: drops what the previous load held and this one did not reuse.
    mutating func finish() {
        reusable = [:]
    }
}
