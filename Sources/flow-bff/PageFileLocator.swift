import BFFServer
import ContractVerifier
import Foundation
import PageModel

/// With `verify --pages DIR`: the page file and line a violation points at, for `--report github`. A page's
/// violations go to `DIR/{pageID}.json`; the line is the one of the violation's JSON Pointer in that file (page
/// answers have the file's shape, `/page/…`; a canned action answer is under `/server/actions/{name}`), or of
/// the deepest part of it the file holds.
struct PageFileLocator {
    let directory: String

    func locate(_ violation: Violation) -> VerificationReport.SourceLocation? {
        let pageID = violation.page.split(separator: "?", maxSplits: 1).first.map(String.init) ?? violation.page
        var file = directory
        while file.hasSuffix("/") { file.removeLast() }
        file += "/\(pageID).json"
        guard let bytes = FileManager.default.contents(atPath: file) else { return nil }
        let path = violation.path
        var pointer: String
        if violation.check.hasPrefix("action "), path.hasPrefix("/mutations") || path.hasPrefix("/effects") {
            let name = violation.check.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            pointer =
                "/server/actions/"
                + name.replacingOccurrences(of: "~", with: "~0")
                .replacingOccurrences(of: "/", with: "~1") + path
        } else if path.hasPrefix("/page") {
            pointer = path
        } else if path.hasPrefix("/sections") {
            pointer = "/page/sections"  // a chunk's positions are not the file's
        } else {
            pointer = "/page"
        }
        return .init(file: file, line: JSONLocator.line(of: JSONPointer(string: pointer), in: Array(bytes)))
    }

    /// GitHub workflow commands for the lint findings of the page files (`flow-bff check`'s), each naming its
    /// file and the line of its JSON Pointer: errors as `::error`, warnings as `::warning`.
    func annotations(for diagnostics: [FileDiagnostic]) -> String {
        var lines: [String] = []
        var base = directory
        while base.hasSuffix("/") { base.removeLast() }
        for finding in diagnostics where finding.diagnostic.severity != .info {
            let file = base + "/" + finding.file
            let bytes = FileManager.default.contents(atPath: file).map(Array.init) ?? []
            let line = JSONLocator.line(of: finding.diagnostic.path, in: bytes)
            let level = finding.diagnostic.severity == .error ? "error" : "warning"
            let title = VerificationReport.escapeProperty("flow-bff check \(finding.diagnostic.code)")
            let message = VerificationReport.escapeData(
                "\(finding.diagnostic.code): \(finding.diagnostic.message) at \(finding.diagnostic.path)")
            lines.append(
                "::\(level) file=\(VerificationReport.escapeProperty(file)),line=\(line),title=\(title)::\(message)")
        }
        return lines.map { $0 + "\n" }.joined()
    }
}
