import Foundation

extension CatalogSnapshot {
    /// The `X-Flow-Mock-Stale` value for `file` (relative to `directory`) when it has an error: its first error as
    /// `file: line:column: code`. The file is read once per snapshot to find where the error's JSON Pointer is
    /// written; if it cannot be read (or changed beyond recognition since), the pointer stands in for the position.
    func staleNotice(for file: String, directory: String) -> String? {
        guard !file.isEmpty, let first = brokenFiles[file] else { return nil }
        return staleNotices.value(for: file) {
            let source = FileManager.default.contents(atPath: directory + "/" + file).map { Array($0) }
            return first.staleNotice(source: source)
        }
    }
}
