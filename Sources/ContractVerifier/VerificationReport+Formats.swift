import Foundation

extension VerificationReport {
    /// The report as pretty-printed JSON with sorted keys (`--report json FILE`): target, passed, coverage,
    /// durationSeconds, violations, and pages with their checks.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(JSONForm(report: self))
    }

    private struct JSONForm: Encodable {
        var target: String
        var passed: Bool
        var violationCount: Int
        var codes: [String]
        var coverage: Coverage
        var durationSeconds: Double
        var violations: [Violation]
        var pages: [PageReport]
        var baseline: ReportDiff?

        init(report: VerificationReport) {
            target = report.target
            passed = report.passed
            violationCount = report.violationCount
            codes = report.codes
            coverage = report.coverage
            durationSeconds = report.durationSeconds
            violations = report.violations
            pages = report.pages
            baseline = report.baseline
        }
    }

    /// Reads a report ``jsonData()`` wrote (`verify --baseline FILE`); reports written before page shapes were
    /// recorded decode too, without them.
    public init(jsonData: some DataProtocol) throws(BaselineError) {
        do {
            self = try JSONDecoder().decode(VerificationReport.self, from: Data(jsonData))
        } catch let error as DecodingError {
            throw BaselineError(message: "not a flow-bff verify JSON report: \(Self.describe(error))")
        } catch {
            throw BaselineError(message: "not a flow-bff verify JSON report: \(error)")
        }
    }

    /// What is wrong and where (`pages.0.checks`), without the decoder's internals.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "no \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let at = context.codingPath.isEmpty ? "" : " at \(path(context.codingPath))"
            return context.debugDescription + at
        @unknown default: return "\(error)"
        }
    }

    /// The report as JUnit XML (`--report junit FILE`): one `<testsuite>` per page target, one `<testcase>` per
    /// check (load, http, pagination, replay, tampered_cursor, each action, lifecycle), a `<failure>` listing the
    /// check's violations. The first suite carries the run's coverage as `<properties>` (``junitProperties``).
    public var junitXML: String {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        let baselineFails = baseline.map { !$0.breaking.isEmpty } ?? false
        let tests = pages.reduce(0) { $0 + $1.checks.count } + (baseline == nil ? 0 : 1)
        let failures = pages.reduce(0) { $0 + $1.checks.filter { !$0.passed }.count } + (baselineFails ? 1 : 0)
        xml +=
            #"<testsuites name="flow-bff verify" tests="\#(tests)" failures="\#(failures)" errors="0" time="\#(durationSeconds)">"#
            + "\n"
        for (index, page) in pages.enumerated() {
            let pageFailures = page.checks.filter { !$0.passed }.count
            xml +=
                #"  <testsuite name="\#(Self.escape(page.page))" id="\#(index)" tests="\#(page.checks.count)" failures="\#(pageFailures)" errors="0" skipped="0">"#
                + "\n"
            if index == 0 {
                xml += "    <properties>\n"
                for (name, value) in junitProperties {
                    xml +=
                        #"      <property name="\#(Self.escape(name))" value="\#(Self.escapeAttribute(value))"/>"#
                        + "\n"
                }
                xml += "    </properties>\n"
            }
            for check in page.checks {
                let caseHead =
                    #"    <testcase classname="verify.\#(Self.escape(page.page))" name="\#(Self.escape(check.name))""#
                if check.passed {
                    xml += caseHead + "/>\n"
                    continue
                }
                let codes = Array(Set(check.violations.map(\.code))).sorted().joined(separator: " ")
                let first = check.violations.first.map(\.codedMessage) ?? "violations"
                xml += caseHead + ">\n"
                xml += #"      <failure type="\#(Self.escape(codes))" message="\#(Self.escapeAttribute(first))">"#
                var body: [String] = []
                for violation in check.violations {
                    body.append("\(violation.request) \(violation.path): \(violation.codedMessage)")
                    if let expected = violation.expected { body.append("  expected: \(expected)") }
                    if let actual = violation.actual { body.append("  actual:   \(actual)") }
                }
                if check.suppressed > 0 { body.append("… and \(check.suppressed) more") }
                xml += Self.escape(body.joined(separator: "\n"))
                xml += "</failure>\n    </testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        if let baseline { xml += Self.junitSuite(baseline, id: pages.count) }
        xml += "</testsuites>\n"
        return xml
    }

    /// With `--baseline`: a suite `baseline` whose one test case, `breaking_changes`, fails listing them — so a CI
    /// system that reads only JUnit shows the run red as the exit status does.
    static func junitSuite(_ diff: ReportDiff, id: Int) -> String {
        let breaking = diff.breaking
        var xml =
            #"  <testsuite name="baseline" id="\#(id)" tests="1" failures="\#(breaking.isEmpty ? 0 : 1)" errors="0" skipped="0">"#
            + "\n"
        let head = #"    <testcase classname="verify.baseline" name="breaking_changes""#
        guard !breaking.isEmpty else { return xml + head + "/>\n  </testsuite>\n" }
        xml += head + ">\n"
        xml +=
            #"      <failure type="\#(Self.escape(Array(Set(breaking.map(\.kind))).sorted().joined(separator: " ")))" message="\#(Self.escapeAttribute(diff.line))">"#
        xml += Self.escape(breaking.map { "\($0.kind) \($0.page) \($0.id): \($0.message)" }.joined(separator: "\n"))
        return xml + "</failure>\n    </testcase>\n  </testsuite>\n"
    }

    /// The coverage section as JUnit properties (`coverage.pages`, …, `exercised.widgetTypes` as a comma-separated
    /// list, `exercised.percent`), and with a baseline the counts of its changes.
    public var junitProperties: [(name: String, value: String)] {
        let exercised = coverage.exercised
        var properties: [(String, String)] = [
            ("coverage.pages", "\(coverage.pages)"), ("coverage.pageLoads", "\(coverage.pageLoads)"),
            ("coverage.sections", "\(coverage.sections)"), ("coverage.widgets", "\(coverage.widgets)"),
            ("coverage.actions", "\(coverage.actions)"), ("coverage.actionRequests", "\(coverage.actionRequests)"),
            ("coverage.cursors", "\(coverage.cursors)"), ("coverage.skippedLinks", "\(coverage.skippedLinks)"),
            ("exercised.widgetTypes", exercised.widgetTypes.sorted().joined(separator: ",")),
            ("exercised.actionTypes", exercised.actionTypes.sorted().joined(separator: ",")),
            ("exercised.effectTypes", exercised.effectTypes.sorted().joined(separator: ",")),
            ("exercised.mutationTypes", exercised.mutationTypes.sorted().joined(separator: ",")),
            ("exercised.profiles", exercised.profiles.sorted().joined(separator: ",")),
            ("exercised.percent", "\(Int(exercised.percent().rounded(.down)))"),
        ]
        if let baseline {
            properties.append(("baseline.breaking", "\(baseline.breaking.count)"))
            properties.append(("baseline.additive", "\(baseline.additive.count)"))
        }
        return properties
    }

    /// ``escape(_:)`` plus line breaks and tabs as character references, which attribute values would
    /// otherwise normalise to spaces.
    static func escapeAttribute(_ text: String) -> String {
        escape(text).replacingOccurrences(of: "\n", with: "&#10;").replacingOccurrences(of: "\t", with: "&#9;")
    }

    /// XML text and attribute escaping; control characters XML 1.0 forbids become U+FFFD.
    static func escape(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&apos;"
            case "\n", "\t": output.unicodeScalars.append(scalar)
            case "\r": output += "&#13;"
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    output += "\u{FFFD}"
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        return output
    }
}
