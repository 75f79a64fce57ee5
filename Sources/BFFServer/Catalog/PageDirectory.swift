import Foundation
import PageModel

/// What a pages directory holds: the page and scenario files to load, and what is left out with a notice — editor
/// backup and hidden files, and subfolders with JSON files (pages are only read directly inside the directory).
struct PageDirectory {
    /// `*.json` files to load, sorted.
    var pageFiles: [String] = []
    /// Notices (`info`) for what is not loaded.
    var notices: [FileDiagnostic] = []

    /// Lists `directory`; throws when it cannot be read.
    init(_ directory: String) throws {
        let fileManager = FileManager.default
        for name in try fileManager.contentsOfDirectory(atPath: directory).sorted() {
            var isDirectory: ObjCBool = false
            _ = fileManager.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory)
            if isDirectory.boolValue {
                guard !name.hasPrefix("."), name != DataDocuments.folder,
                    let nested = Self.jsonFiles(under: directory + "/" + name), !nested.isEmpty
                else { continue }
                let listed = nested.prefix(5).map { name + "/" + $0 }.joined(separator: ", ")
                let more = nested.count > 5 ? " and \(nested.count - 5) more" : ""
                notices.append(
                    FileDiagnostic(
                        file: name + "/",
                        diagnostic: .info(
                            "ignored_subfolder", .root,
                            "not served: pages are read only directly inside the pages directory (\(listed)\(more))")))
            } else if Self.isSkipped(name) {
                notices.append(
                    FileDiagnostic(
                        file: name,
                        diagnostic: .info("skipped_file", .root, "skipped: an editor backup, lock or hidden file")))
            } else if name.hasSuffix(".json") {
                pageFiles.append(name)
            }
        }
    }

    /// Editor backup and lock files and dotfiles: `*~`, `.#*`, `#*#`, `*.swp` (and `.swo`, `.swx`), `.DS_Store`,
    /// any name starting with a dot.
    static func isSkipped(_ name: String) -> Bool {
        name.hasPrefix(".") || name.hasPrefix("#") || name.hasSuffix("~") || name.hasSuffix("#")
            || name.hasSuffix(".swp") || name.hasSuffix(".swo") || name.hasSuffix(".swx")
    }

    /// The `*.json` files below `directory` (hidden folders skipped), relative to it and sorted; `nil` when it
    /// cannot be read. Bounded: at most 10,000 entries are visited on each load.
    static func jsonFiles(under directory: String) -> [String]? {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return nil }
        var found: [String] = []
        var visited = 0
        while let path = enumerator.nextObject() as? String, visited < 10_000 {
            visited += 1
            let name = (path as NSString).lastPathComponent
            if name.hasPrefix(".") {
                enumerator.skipDescendants()
            } else if name.hasSuffix(".json"), !isSkipped(name) {
                found.append(path)
            }
        }
        return found.sorted()
    }
}

extension PageCatalog {
    /// True for the names ``load(directory:defaults:catalog:unchecked:)`` skips with a notice: editor backup and
    /// lock files (`*~`, `.#*`, `#*#`, `*.swp`) and dotfiles (`.DS_Store`).
    public static func isSkipped(fileName: String) -> Bool { PageDirectory.isSkipped(fileName) }
}
