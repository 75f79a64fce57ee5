import BFFTesting
import ContractVerifier
import Foundation
import PageModel
import Testing

/// `--report github`: workflow commands GitHub turns into annotations, and the JSON line finder behind their
/// `file=…,line=…`.
@Suite struct GitHubReportTests {
    static func report() -> VerificationReport {
        var report = VerificationReport(target: "http://127.0.0.1:8080")
        var page = PageReport(page: "home")
        var check = CheckResult(name: "load")
        check.violations.append(
            Violation(
                code: "error_diagnostic", page: "home", check: "load", request: "GET /v1/pages/home",
                path: "/page/sections/0/widgets/0/children", message: "missing_children: 50% of it, a:b, c\nd",
                expected: "≥ 1 child"))
        page.checks.append(check)
        report.pages.append(page)
        report.coverage.pages = 1
        return report
    }

    @Test func oneErrorPerViolationWithFileAndLineAndAVerdict() {
        let text = Self.report().githubAnnotations { _ in .init(file: "pages/home,v1.json", line: 7) }
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(
            lines[0]
                == "::error file=pages/home%2Cv1.json,line=7,title=verify error_diagnostic (page home)::"
                + "error_diagnostic: missing_children: 50%25 of it, a:b, c%0Ad%0Arequest: GET /v1/pages/home"
                + "%0Aat /page/sections/0/widgets/0/children%0Aexpected: ≥ 1 child")
        #expect(
            lines[1].hasPrefix("::notice title=flow-bff verify::flow-bff verify http://127.0.0.1:8080: 1 violations"))
    }

    @Test func withoutALocationTheAnnotationNamesNoFile() {
        let text = Self.report().githubAnnotations()
        #expect(text.hasPrefix("::error title=verify error_diagnostic (page home)::"))
        #expect(VerificationReport(target: "x").githubAnnotations().hasPrefix("::notice title=flow-bff verify::"))
    }

    @Test func jsonLocatorFindsTheLineOfAPointerOrOfItsDeepestPresentPart() {
        let text = Array(
            """
            {
              "page": { "id": "home",
                "sections": [
                  { "id": "s0", "widgets": [] },
                  { "id": "s\\"1",
                    "widgets": [ { "id": "a", "content": { "x": [1, {"y": 2}] } },
                                 { "id": "b" } ] }
                ] }
            }
            """.utf8)
        #expect(JSONLocator.line(of: "/page", in: text) == 2)
        #expect(JSONLocator.line(of: "/page/sections/1/widgets/1", in: text) == 7)
        #expect(JSONLocator.line(of: "/page/sections/1/widgets/0/content", in: text) == 6)
        #expect(JSONLocator.line(of: "/page/sections/1/widgets/9/content", in: text) == 6)
        #expect(JSONLocator.line(of: "/page/sections/0/id", in: text) == 4)
        #expect(JSONLocator.line(of: "/nothing/here", in: text) == 1)
        #expect(JSONLocator.line(of: "/page", in: Array("not json".utf8)) == 1)
    }
}

/// Readable reports (issue 32): identical violations are grouped, and no code is printed twice.
@Suite struct ReadableReportTests {
    static func report(repeating count: Int) -> VerificationReport {
        var report = VerificationReport(target: "http://127.0.0.1:8080")
        var page = PageReport(page: "feed")
        var check = CheckResult(name: "load")
        for index in 0..<count {
            check.violations.append(
                Violation(
                    code: "error_diagnostic", page: "feed", check: "load", request: "GET /v1/pages/feed",
                    path: JSONPointer("/page/sections") / index / "id",
                    message: "duplicate_id: id \"row\" is already used in this scope"))
        }
        page.checks.append(check)
        report.pages.append(page)
        return report
    }

    @Test func identicalViolationsAreListedOnceWithACount() {
        let summary = Self.report(repeating: 28).summary
        #expect(summary.ranges(of: "is already used in this scope").count == 1, "\(summary)")
        #expect(summary.contains("error_diagnostic  page feed  [load]  × 28"))
        #expect(summary.contains("also: page feed at /page/sections/1/id (GET /v1/pages/feed)"))
        #expect(summary.contains("also: page feed at /page/sections/3/id"))
        #expect(!summary.contains("/page/sections/4/id"))
        #expect(summary.contains("… and 24 more like it"))
    }

    @Test func aCodeIsNotRepeatedInAnnotationsOrJUnit() throws {
        var report = Self.report(repeating: 1)
        report.pages[0].checks[0].violations[0].code = "duplicate_id"
        let annotation = report.githubAnnotations()
        #expect(annotation.contains("::duplicate_id: id"), "\(annotation)")
        #expect(!annotation.contains("duplicate_id: duplicate_id"))
        let junit = report.junitXML
        #expect(!junit.contains("duplicate_id: duplicate_id"), "\(junit)")
    }
}

/// Targets kept out by the limits are named, with the limit and the page that linked to them (issue 32).
@Suite struct SkippedTargetTests {
    @Test func theReportSaysWhichTargetsWereNotCrawledAndWhy() async throws {
        let report = try await withTestServer { server in
            let configuration = VerifierConfiguration(
                baseURL: URL(string: server.baseURL)!, entryPages: [PageTarget(pageID: "home")], maximumChunks: 50,
                maximumPageLoads: 1, timeout: 30)
            return try await ContractVerifier(configuration: configuration).run()
        }
        let skipped = report.coverage.skippedTargets
        #expect(!skipped.isEmpty, "home links to other pages")
        #expect(skipped.count == report.coverage.skippedLinks)
        #expect(skipped.allSatisfy { $0.reason == "maximumPageLoads (1)" && $0.linkedFrom == "home" })
        #expect(report.coverage.line.contains("not crawled (limits: \(skipped[0].target)"), "\(report.coverage.line)")
        let json = String(decoding: try report.jsonData(), as: UTF8.self)
        #expect(json.contains(#""skippedTargets""#) && json.contains(#""reason" : "maximumPageLoads (1)""#), "\(json)")
    }
}
