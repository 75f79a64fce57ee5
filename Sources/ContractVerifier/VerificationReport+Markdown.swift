import Foundation

extension VerificationReport {
    /// The report as a pull-request comment (`--report markdown FILE`): the verdict, the counts of pages and
    /// violations, the coverage and exercised lines, and with a baseline a table of the breaking changes and one of
    /// the additive changes.
    ///
    /// - Parameter limit: rows per table (25); the rest are counted ("… and 12 more").
    public func markdown(limit: Int = 25) -> String {
        var lines: [String] = []
        lines.append("### \(passed ? "✅" : "❌") flow-bff verify: \(passed ? "passed" : "FAILED")")
        lines.append("")
        var counts = "\(coverage.pages) pages (\(coverage.pageLoads) loads), \(violationCount) violations"
        if violationCount > 0 { counts += " (" + codes.map { "`\($0)`" }.joined(separator: ", ") + ")" }
        lines.append("- \(counts) — \(Self.markdownCode(target))")
        if let shortfall = coverageShortfall { lines.append("- FAILED: \(Self.markdownText(shortfall))") }
        if let failure = baseline?.failure { lines.append("- FAILED: \(Self.markdownText(failure))") }
        lines.append("- \(Self.markdownCode(coverage.line))")
        lines.append("- \(Self.markdownCode(coverage.exercised.line))")
        if let baseline {
            lines.append("- \(Self.markdownText(baseline.line))")
            for (title, group) in [("Breaking changes", baseline.breaking), ("Additive changes", baseline.additive)]
            where !group.isEmpty {
                lines.append("")
                lines.append("#### \(title) against \(Self.markdownCode(baseline.baseline)) (\(group.count))")
                lines.append("")
                lines.append("| change | page | id | what changed |")
                lines.append("| --- | --- | --- | --- |")
                for change in group.prefix(limit) {
                    let cells = [
                        Self.markdownCode(change.kind), Self.markdownCode(change.page), Self.markdownCode(change.id),
                        Self.markdownText(change.detail),
                    ]
                    lines.append("| " + cells.joined(separator: " | ") + " |")
                }
                if group.count > limit {
                    lines += ["", "… and \(group.count - limit) more (the JSON report lists all)"]
                }
            }
            if !baseline.notCompared.isEmpty {
                lines.append("")
                lines.append("Not compared (\(baseline.notCompared.count)):")
                for page in baseline.notCompared.prefix(limit) {
                    lines.append("- \(Self.markdownCode(page.page)): \(Self.markdownText(page.reason))")
                }
                if baseline.notCompared.count > limit {
                    lines.append("- … and \(baseline.notCompared.count - limit) more")
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text for a table cell or list item: `|` escaped, line breaks as spaces, `<` and `&` as entities.
    static func markdownText(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }

    /// A code span, fenced with more backticks than the text holds in a row; `|` escaped for tables.
    static func markdownCode(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "|", with: "\\|")
        var longest = 0
        var run = 0
        for character in flat {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        let pad = flat.hasPrefix("`") || flat.hasSuffix("`") ? " " : ""
        return fence + pad + flat + pad + fence
    }
}
