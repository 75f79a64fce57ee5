// `flow-bff import har FILE --pages DIR`: records the contract answers of a HAR capture as page files through the
// library's PageRecorder (docs/proxy.md § Recording and HAR import).
import BFFServer
import Foundation
import PageModel

/// `flow-bff import har FILE --pages DIR [--redact KEY]… [--no-normalize] [--no-stand-ins] [--config FILE]`: never
/// returns. `--redact` may be repeated, so it is collected before the generic parser sees the rest.
func importCommand(_ rawArguments: [String]) -> Never {
    var redacted: [String] = []
    var rest: [String] = []
    var remaining = rawArguments[...]
    while let argument = remaining.popFirst() {
        if argument == "--redact" {
            guard let key = remaining.popFirst() else { fail("--redact needs a value; see flow-bff import --help") }
            redacted.append(key)
        } else if argument.hasPrefix("--redact=") {
            redacted.append(String(argument.dropFirst("--redact=".count)))
        } else {
            rest.append(argument)
        }
    }
    let spec = CommandSpec.importHAR
    let arguments: CommandLineArguments
    do {
        arguments = try CommandLineArguments(
            ["import"] + rest, booleanFlags: ["help", "no-normalize", "no-stand-ins"])
        if arguments.flags["help"] != nil {
            print(spec.help)
            exit(0)
        }
        try spec.check(arguments)
    } catch {
        fail("\(error); see flow-bff import --help")
    }
    guard arguments.positional.first == "har" else {
        fail("import reads a HAR file: flow-bff import har FILE --pages DIR; see flow-bff import --help")
    }
    guard arguments.positional.count == 2 else { fail("import har needs one FILE; see flow-bff import --help") }
    guard let pages = arguments.flags["pages"], !pages.isEmpty else {
        fail("import har needs --pages DIR, the folder to write; see flow-bff import --help")
    }
    let file = arguments.positional[1]
    var rules = RecordingRules()
    rules.redactedKeys += redacted.filter { !$0.isEmpty }
    if arguments.flags["no-normalize"] != nil {
        rules.normalizedKeys = []
        rules.normalizesTimestamps = false
    }
    if arguments.flags["no-stand-ins"] != nil { rules.addsStandIns = false }
    let defaults = loadConfiguration(arguments).pages
    guard let data = FileManager.default.contents(atPath: file) else {
        fail("\(file): cannot read the file", status: 1)
    }
    let archive: HARArchive
    do {
        archive = try HARArchive(bytes: Array(data))
    } catch {
        fail("\(file): \(error)", status: 1)
    }
    let recorder = PageRecorder(directory: URL(fileURLWithPath: pages), rules: rules, defaults: defaults)
    let report = HARImporter.run(archive, recorder: recorder)
    for line in ImportReportText.lines(report, file: file) {
        let text = line.text + "\n"
        (line.isError ? FileHandle.standardError : FileHandle.standardOutput).write(Data(text.utf8))
    }
    exit(report.hasFailures || report.imported.isEmpty ? 1 : 0)
}

/// The lines `import har` prints for a report: what was imported (files written or unchanged, notes), then each
/// skipped entry with its reason, then a summary. Failures are errors (standard error), the rest output.
enum ImportReportText {
    static func lines(_ report: HARImportReport, file: String) -> [(text: String, isError: Bool)] {
        var lines: [(text: String, isError: Bool)] = []
        for item in report.imported {
            let entries =
                item.entries.count == 1
                ? "entry \(item.entries[0])" : "entries \(item.entries.map(String.init).joined(separator: ","))"
            var files: [String] = []
            if !item.outcome.written.isEmpty { files.append("written " + item.outcome.written.joined(separator: ", ")) }
            if !item.outcome.unchanged.isEmpty {
                files.append("unchanged " + item.outcome.unchanged.joined(separator: ", "))
            }
            lines.append(("imported \(item.subject) (\(entries)): \(files.joined(separator: "; "))", false))
            for note in item.outcome.notes { lines.append(("  note: \(note)", false)) }
        }
        for skipped in report.skipped {
            let severity = skipped.isFailure ? "error" : "skipped"
            lines.append(
                (
                    "\(file): entry \(skipped.entry) \(skipped.request): \(severity): \(skipped.reason)",
                    skipped.isFailure
                ))
        }
        let pages = report.imported.count { $0.subject.hasPrefix("page ") }
        let failures = report.skipped.count { $0.isFailure }
        let skipped = report.skipped.count - failures
        var summary =
            "\(file): \(counted(pages, "page")), \(counted(report.imported.count - pages, "action")) imported, "
            + "\(skipped) \(skipped == 1 ? "entry" : "entries") skipped, \(counted(failures, "failure"))"
        if report.imported.isEmpty && failures == 0 { summary += "; nothing to import" }
        lines.append((summary, failures > 0))
        return lines
    }
}
