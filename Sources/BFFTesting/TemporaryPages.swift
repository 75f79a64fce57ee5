import Foundation

/// A fresh temporary pages directory holding `files` (file name → contents), for a test's own pages.
public func temporaryPages(_ files: [String: String]) throws -> String {
    let directory = NSTemporaryDirectory() + "flow-bff-pages-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    for (name, text) in files {
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/" + name))
    }
    return directory
}
