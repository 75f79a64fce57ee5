import Foundation
import PageModel

/// The files a catalog was loaded from, each with its stamp (``FileStamp``), the SHA-256 of its bytes and what
/// decoding it gave, so a load that reuses an earlier catalog (every reload) reads only the files whose stamp
/// changed and decodes and checks only those whose bytes changed. Decoding is a pure function of a file's name, its
/// bytes and the page settings, so a reused result is the one decoding would give.
///
/// A stamp is trusted only when the file's last status change is at least ``settleSeconds`` older than the load
/// that read the file: a write in the same timestamp tick as that read could leave the stamp unchanged, so a
/// recently changed file is read (and hashed) again.
struct SourceFiles: Sendable {
    /// One file's decoding: a page file or a scenario file.
    enum Decoded: Sendable {
        case page(PageFile)
        case scenario(ScenarioFile)

        /// True when decoding the file read the data (a page made from it, answers that change it).
        var readsData: Bool {
            switch self {
            case .page(let file): file.readsData
            case .scenario(let file): file.isGenerated
            }
        }
    }

    struct Entry: Sendable {
        /// The file's stamp just before it was read; `nil` when it could not be stat'ed.
        var stamp: FileStamp?
        /// The ``startedAt`` of the load that read it.
        var readAt: Double
        var digest: [UInt8]
        var decoded: Decoded
        /// The data version the file was decoded with, when its page is made from data (``PageTemplate``): it is
        /// decoded again when the data changes.
        var dataVersion: String?
    }

    /// How much older than a load a file's last change must be for its unchanged stamp to be trusted.
    static let settleSeconds = 2.0

    /// The settings files are decoded with (`directory` cleared: where the files are is not one of them).
    let defaults: BFFConfiguration.Pages
    let catalog: WidgetCatalog
    /// The data documents templates read; set before the page files are loaded.
    var data = DataDocuments() {
        didSet { dataVersion = data.version }
    }
    private var dataVersion = DataDocuments().version
    /// Wall-clock time (seconds since 1970) just before this load looked at the files.
    var startedAt = Date().timeIntervalSince1970
    /// Every file loaded, by name relative to the pages directory (settable for tests that age their stamps).
    var entries: [String: Entry] = [:]
    /// The files this load read (the others were unchanged by their stamp), in load order.
    private(set) var read: [String] = []
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

    /// The previous load's decoding of `name` when the file's `stamp` is the one recorded when it was read, and
    /// settled then; it is taken into this load without reading the file. `nil` when the file must be read.
    mutating func unchanged(_ name: String, stamp: FileStamp?) -> Decoded? {
        guard let entry = reusable[name], let recorded = entry.stamp, recorded == stamp,
            Double(recorded.changed) / 1e9 < entry.readAt - Self.settleSeconds,
            entry.dataVersion == nil || entry.dataVersion == dataVersion
        else { return nil }
        entries[name] = entry
        return entry.decoded
    }

    /// The page file `name` holding `bytes` (read after its `stamp` was taken), decoded unless the previous load saw
    /// the same bytes.
    mutating func page(_ name: String, bytes: [UInt8], stamp: FileStamp?, expectedID: String) -> PageFile {
        let decoding = decode(name, bytes: bytes, stamp: stamp) { [defaults, catalog, data] in
            .page(
                PageFile(
                    bytes: bytes, file: name, expectedID: expectedID, defaults: defaults, catalog: catalog, data: data))
        } reusing: {
            if case .page = $0 { true } else { false }
        }
        guard case .page(let file) = decoding else { preconditionFailure("decoded as a page above") }
        return file
    }

    /// The scenario file `name` of page `pageID` holding `bytes` (read after its `stamp` was taken), decoded unless
    /// the previous load saw the same bytes.
    mutating func scenario(_ name: String, bytes: [UInt8], stamp: FileStamp?, pageID: String) -> ScenarioFile {
        let decoding = decode(name, bytes: bytes, stamp: stamp) { [defaults, catalog, data] in
            .scenario(
                ScenarioFile(
                    bytes: bytes, file: name, pageID: pageID, defaults: defaults, catalog: catalog, data: data))
        } reusing: {
            if case .scenario = $0 { true } else { false }
        }
        guard case .scenario(let file) = decoding else { preconditionFailure("decoded as a scenario above") }
        return file
    }

    /// Records the read of `name` and returns the previous load's decoding when the bytes are the same and it is
    /// of the expected kind, else `make()`'s (counted as decoded).
    private mutating func decode(
        _ name: String, bytes: [UInt8], stamp: FileStamp?, make: () -> Decoded, reusing isExpected: (Decoded) -> Bool
    ) -> Decoded {
        let digest = Crypto.sha256(bytes)
        read.append(name)
        if let entry = reusable[name], entry.digest == digest, isExpected(entry.decoded),
            entry.dataVersion == nil || entry.dataVersion == dataVersion
        {
            entries[name] = Entry(
                stamp: stamp, readAt: startedAt, digest: digest, decoded: entry.decoded, dataVersion: entry.dataVersion)
            return entry.decoded
        }
        let result = make()
        entries[name] = Entry(
            stamp: stamp, readAt: startedAt, digest: digest, decoded: result,
            dataVersion: result.readsData ? dataVersion : nil)
        decoded.append(name)
        return result
    }

    /// Ends the load: drops what the previous load held and this one did not reuse.
    mutating func finish() {
        reusable = [:]
    }
}
