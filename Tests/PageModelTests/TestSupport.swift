import Foundation

@testable import PageModel

/// Decodes a page envelope written as a JSON literal, failing the test on a thrown error.
func decodePage(_ text: String, catalog: WidgetCatalog = .standard) throws -> Decoded<PageModel> {
    try PageDecoder(catalog: catalog).decodePage(Array(text.utf8))
}

/// Wraps a page object's JSON in a page envelope.
func envelope(_ page: String) -> String {
    #"{"schemaVersion": 1, "kind": "page", "page": "# + page + "}"
}

/// The repository root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

func readBytes(_ relativePath: String) throws -> [UInt8] {
    Array(try Data(contentsOf: repositoryRoot.appendingPathComponent(relativePath)))
}

func listFiles(_ relativeDirectory: String, suffix: String = ".json") throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent(relativeDirectory).path)
        .filter { $0.hasSuffix(suffix) }.sorted().map { relativeDirectory + "/" + $0 }
}
