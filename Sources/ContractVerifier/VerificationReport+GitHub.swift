import Foundation

extension VerificationReport {
    /// Where a violation is in the sources: a file (relative to the repository) and a 1-based line.
    public struct SourceLocation: Sendable, Hashable {
        public var file: String
        public var line: Int

        public init(file: String, line: Int) {
            self.file = file
            self.line = line
        }
    }

    /// The report as GitHub Actions workflow commands (`--report github FILE`): one
    /// `::error file=…,line=…,title=…::message` per violation — `file` and `line` when `locate` knows where the
    /// violation is (a page file when verifying `--pages`) —, one `::error` per breaking change against a baseline,
    /// and a `::notice` with the verdict.
    ///
    /// - Parameter locate: the source location of a violation, or `nil` (the annotation then names no file).
    public func githubAnnotations(locate: (Violation) -> SourceLocation? = { _ in nil }) -> String {
        var lines: [String] = []
        for violation in violations {
            var properties: [String] = []
            if let location = locate(violation) {
                properties.append("file=\(Self.escapeProperty(location.file))")
                properties.append("line=\(location.line)")
            }
            properties.append("title=\(Self.escapeProperty("verify \(violation.code) (page \(violation.page))"))")
            var message = violation.codedMessage
            if !violation.request.isEmpty { message += "\nrequest: \(violation.request)" }
            if !violation.path.isEmpty { message += "\nat \(violation.path)" }
            if let expected = violation.expected { message += "\nexpected: \(expected)" }
            if let actual = violation.actual { message += "\nactual: \(actual)" }
            lines.append("::error \(properties.joined(separator: ","))::\(Self.escapeData(message))")
        }
        // Breaking changes against a baseline name no file: what they are about may be gone from the pages.
        for change in baseline?.breaking ?? [] {
            let title = Self.escapeProperty("verify \(change.kind) (page \(change.page))")
            lines.append("::error title=\(title)::\(Self.escapeData("\(change.id): \(change.detail)"))")
        }
        var verdict =
            violationCount == 0
            ? "flow-bff verify \(target): no contract violations"
            : "flow-bff verify \(target): \(violationCount) violations (\(codes.joined(separator: ", ")))"
        if let shortfall = coverageShortfall { verdict += "; FAILED: " + shortfall }
        if let baseline { verdict += "; " + baseline.line }
        if let failure = baseline?.failure { verdict += "; FAILED: " + failure }
        lines.append("::notice title=flow-bff verify::\(Self.escapeData(verdict + "; " + coverage.line))")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Escapes a workflow command's message: `%`, CR and LF.
    public static func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// Escapes a workflow command's property value: as a message, plus `:` and `,`.
    public static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
