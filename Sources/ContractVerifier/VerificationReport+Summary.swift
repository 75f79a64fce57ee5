extension VerificationReport {
    /// The readable report: one line per page target, every distinct violation with its request, path and message
    /// (and expected vs actual where there is a comparison) — identical ones once, with a count and three more
    /// places — then the coverage line, the changes against a baseline (breaking first) and the verdict.
    public var summary: String {
        var lines = ["flow-bff verify \(target)"]
        let width = min(40, pages.map(\.page.count).max() ?? 0)
        for page in pages {
            let mark = page.violationCount == 0 ? "ok  " : "FAIL"
            var facts = [page.state, "\(page.sections) sections", "\(page.widgets) widgets"]
            if page.cursors > 0 { facts.append("\(page.cursors) cursors") }
            if page.actionRequests > 0 { facts.append("\(page.actionRequests) action requests") }
            if page.expectedProblems > 0 { facts.append("\(page.expectedProblems) expected problems") }
            if !page.degradations.isEmpty { facts.append("\(page.degradations.count) degradations") }
            if page.violationCount > 0 { facts.append("\(page.violationCount) violations") }
            lines.append("  \(mark) \(page.page.padded(to: width))  \(facts.joined(separator: ", "))")
            for degradation in page.degradations.prefix(20) { lines.append("         degraded: \(degradation)") }
        }
        let all = violations
        if !all.isEmpty {
            lines.append("")
            lines.append("violations (\(violationCount)):")
            // Identical violations (same code, check, message and comparison) are listed once, with a count and
            // the first few other places they were found.
            var groups: [[String]: [Violation]] = [:]
            var order: [[String]] = []
            for violation in all {
                if groups[violation.sameness] == nil { order.append(violation.sameness) }
                groups[violation.sameness, default: []].append(violation)
            }
            for key in order {
                let group = groups[key]!
                let violation = group[0]
                let path = violation.path.isEmpty ? "" : " at \(violation.path)"
                let times = group.count > 1 ? "  × \(group.count)" : ""
                lines.append("  \(violation.code)  page \(violation.page)  [\(violation.check)]\(times)")
                if !violation.request.isEmpty { lines.append("      request: \(violation.request)") }
                lines.append("      \(violation.message)\(path)")
                if let expected = violation.expected { lines.append("      - expected: \(expected)") }
                if let actual = violation.actual { lines.append("      + actual:   \(actual)") }
                for other in group.dropFirst().prefix(3) {
                    let at = other.path.isEmpty ? "" : " at \(other.path)"
                    lines.append("      also: page \(other.page)\(at) (\(other.request))")
                }
                if group.count > 4 { lines.append("      … and \(group.count - 4) more like it") }
            }
            let suppressed = pages.reduce(0) { $0 + $1.checks.reduce(0) { $0 + $1.suppressed } }
            if suppressed > 0 { lines.append("  … and \(suppressed) more (limit per check)") }
        }
        lines.append("")
        lines.append(coverage.line)
        lines.append(coverage.exercised.line)
        lines.append(contentsOf: coverage.warnings)
        if let baseline {
            lines.append("")
            lines.append(contentsOf: baseline.summaryLines)
        }
        let seconds = (durationSeconds * 100).rounded() / 100
        if passed {
            lines.append("PASSED: no contract violations (\(seconds) s)")
        } else if violationCount > 0 {
            lines.append("FAILED: \(violationCount) violations (\(codes.joined(separator: ", "))) (\(seconds) s)")
        }
        if let shortfall = coverageShortfall { lines.append("FAILED: \(shortfall)") }
        if let failure = baseline?.failure { lines.append("FAILED: \(failure)") }
        return lines.joined(separator: "\n")
    }
}

extension String {
    fileprivate func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
