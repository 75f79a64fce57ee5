import Foundation

/// A fresh temporary pages directory holding `files` (file name → contents; `data/orders.json` makes the folder),
/// for a test's own pages.
public func temporaryPages(_ files: [String: String]) throws -> String {
    let directory = NSTemporaryDirectory() + "flow-bff-pages-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    for (name, text) in files {
        let url = URL(fileURLWithPath: directory + "/" + name)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }
    return directory
}
