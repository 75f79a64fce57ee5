// `flow-bff check`: lints page files offline with the server's own loader (PageCatalog), so it reports exactly
// what `serve` and a reload would (docs/check.md).
import BFFServer
import Foundation
import PageModel

/// `flow-bff check [DIR | FILE…] [--strict]`: never returns. A FILE is checked inside its folder (so references
/// to the other pages there resolve), and only its own findings are printed.
func check(_ arguments: CommandLineArguments) -> Never {
    let strict = arguments.flags["strict"].map { $0 != "false" } ?? false
    let configuration = loadConfiguration(arguments)
    let targets = arguments.positional.isEmpty ? [configuration.pages.directory] : arguments.positional
    var failed = false
    for target in targets {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory) else {
            fail("\(target): no such file or directory")
        }
        let parent = (target as NSString).deletingLastPathComponent
        let directory = isDirectory.boolValue ? target : (parent.isEmpty ? "." : parent)
        let file = isDirectory.boolValue ? nil : (target as NSString).lastPathComponent
        if let file, !file.hasSuffix(".json"), !PageCatalog.isSkipped(fileName: file) {
            fail("\(target): page files are *.json")
        }
        let catalog = PageCatalog.load(directory: directory, defaults: configuration.pages)
        var findings = catalog.diagnostics.filter { file == nil || $0.file == file }
        if strict {
            for index in findings.indices where findings[index].diagnostic.severity == .warning {
                findings[index].diagnostic.severity = .error
            }
        }
        printDiagnostics(findings, in: file == nil || !parent.isEmpty ? directory : nil)
        let errors = findings.errorCount
        let warnings = findings.warningCount
        let notices = findings.count - errors - warnings
        var summary: [String] = []
        if file == nil {
            summary = [counted(catalog.pages.count, "page"), counted(catalog.actions.count, "action")]
            // Data documents (data/*.json) are listed only where there are some: most folders have none.
            if !catalog.data.names.isEmpty {
                summary.append(counted(catalog.data.names.count, "data file"))
            }
        }
        summary += [counted(errors, "error"), counted(warnings, "warning")]
        if notices > 0 { summary.append(counted(notices, "notice")) }
        print("\(target): \(summary.joined(separator: ", "))")
        failed = failed || errors > 0
    }
    exit(failed ? 1 : 0)
}
