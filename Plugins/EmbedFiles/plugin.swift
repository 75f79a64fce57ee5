import Foundation
import PackagePlugin

/// Compiles files into a target as Swift strings, so a binary needs nothing beside it: BFFServer's OpenAPI document
/// (docs/openapi.json, served at `/openapi.json`) and the browser preview's HTML, CSS and JavaScript
/// (Sources/BFFServer/Preview/web, served at `/__preview/`). `scripts/embed-files` writes `EmbeddedFiles.swift` into
/// the build directory, an `enum EmbeddedFiles` with one static string per file holding its exact text; nothing
/// generated is checked in, and an edited file is picked up by the next build.
@main
struct EmbedFiles: BuildToolPlugin {
    /// The files each target embeds: the name of the static member, and the path from the package's root.
    static let files: [String: [(name: String, path: String)]] = [
        "BFFServer": [
            ("openapiJSON", "docs/openapi.json"),
            ("previewIndexHTML", "Sources/BFFServer/Preview/web/index.html"),
            ("previewCSS", "Sources/BFFServer/Preview/web/preview.css"),
            ("previewJS", "Sources/BFFServer/Preview/web/preview.js"),
            ("widgetsJS", "Sources/BFFServer/Preview/web/widgets.js"),
        ]
    ]

    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let files = Self.files[target.name] else { return [] }
        let root = context.package.directoryURL
        let script = root.appending(path: "scripts/embed-files")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFiles.swift")
        let inputs = files.map { root.appending(path: $0.path) }
        // The commit (`EmbeddedFiles.buildCommit`, for `flow_bff_build_info`): re-embedded whenever HEAD moves,
        // which appends to git's HEAD log.
        let headLog = root.appending(path: ".git/logs/HEAD")
        let commitInputs = FileManager.default.fileExists(atPath: headLog.path()) ? [headLog] : []
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) files in \(target.name)",
                executable: URL(filePath: "/bin/sh"),
                arguments: [script.path(), output.path(), "--commit-of", root.path()]
                    + zip(files, inputs).map { "\($0.name)=\($1.path())" },
                inputFiles: [script] + inputs + commitInputs, outputFiles: [output])
        ]
    }
}
