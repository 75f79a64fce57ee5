import Foundation
import HTTPCore
import PageModel
import Testing

@testable import BFFServer

/// What the hot path's byte-level formatting writes: the access-log line, request ids, per-loop metrics and
/// preformatted header blocks, checked against the text the slower code wrote before.
@Suite struct HotPathFormattingTests {
    @Test func accessLogLineIsTheDocumentedJSON() throws {
        let line = AccessLogLine(
            requestID: "abc", method: "GET", path: "/v1/pages/feed"[...], route: "page", status: 200, bytes: 8034,
            gzip: true, seconds: 0.012_034)
        var bytes: [UInt8] = []
        line.append(to: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        let time = try #require(text.firstMatch(of: /^\{"time":"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)",/))
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let parsed = try #require(formatter.date(from: String(time.1)))
        #expect(abs(parsed.timeIntervalSinceNow) < 5)
        #expect(
            text.hasSuffix(
                #","requestID":"abc","method":"GET","path":"/v1/pages/feed","route":"page","status":200,"#
                    + #""bytes":8034,"gzip":true,"durationMs":12.034}"#))
    }

    @Test func durationKeepsThreeDecimalsAndPathsAreEscaped() {
        let line = AccessLogLine(
            requestID: "-", method: "POST", path: #"/a"b"#[...], route: "x", status: 404, bytes: 0, gzip: false,
            seconds: 3.000_007)
        var bytes: [UInt8] = []
        line.append(to: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasSuffix(#""path":"/a\"b","route":"x","status":404,"bytes":0,"durationMs":3000.007}"#))
    }

    @Test func longFieldsTakeTheGeneralPathAndReadTheSame() {
        let longID = String(repeating: "r", count: 200)
        for requestID in ["short-id", longID] {
            let line = AccessLogLine(
                requestID: requestID, method: "GET", path: "/v1/pages/feed"[...], route: "page", status: 304, bytes: 0,
                gzip: false, seconds: 0.000_45)
            var bytes: [UInt8] = []
            line.append(to: &bytes)
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(
                text.hasSuffix(
                    #"Z","requestID":"\#(requestID)","method":"GET","path":"/v1/pages/feed","route":"page","status":304,"#
                        + #""bytes":0,"durationMs":0.450}"#), "\(requestID.count) characters")
            #expect(text.hasPrefix(#"{"time":""#))
        }
    }

    @Test func decimalPadding() {
        for (value, digits, expected) in [
            (7, 3, "007"), (42, 2, "42"), (1234, 2, "1234"), (0, 4, "0000"), (2026, 4, "2026"),
        ] {
            var bytes: [UInt8] = []
            ByteFormatting.appendDecimal(value, minimumDigits: digits, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == expected)
        }
    }

    @Test func generatedRequestIDsAreThirtyTwoHexDigitsAndAcceptedOnesAreKept() {
        let first = RequestID.accept(nil)
        let second = RequestID.accept(nil)
        #expect(first.utf8.count == 32 && second.utf8.count == 32)
        #expect(first.allSatisfy(\.isHexDigit) && first == first.lowercased())
        #expect(first.prefix(16) == second.prefix(16), "one random prefix per process")
        #expect(UInt64(first.suffix(16), radix: 16)! + 1 == UInt64(second.suffix(16), radix: 16)!)
        #expect(RequestID.make(0x1f) == String(RequestID.prefix, radix: 16).leftPadded(16) + "000000000000001f")
        #expect(RequestID.accept("client-42") == "client-42")
        #expect(RequestID.accept(#"bad"quote"#) != #"bad"quote"#)
        #expect(RequestID.accept("") != "")
    }

    @Test func postbackKeysCompareWholeTextsThoughTheyHashTheirTails() {
        let one = PostbackKey(text: "eyJwIjoiYSJ9.SAME-TAIL")
        let other = PostbackKey(text: "eyJwIjoiYiJ9.SAME-TAIL")
        #expect(one != other)
        #expect(one.hashValue == other.hashValue, "only the signature's last 8 bytes are hashed")
        #expect(Set([one, other, PostbackKey(text: "eyJwIjoiYSJ9.SAME-TAIL"), PostbackKey(text: "x")]).count == 3)
    }

    @Test func metricsFromSeveralLoopsAreMergedOnScrape() throws {
        let metrics = Metrics()
        metrics.record(route: "page", status: 200, seconds: 0.0004, loop: 0)
        metrics.record(route: "page", status: 200, seconds: 0.002, loop: 1)
        metrics.record(route: "page", status: 304, seconds: 0.0001, loop: 65)
        metrics.record(route: "nextPage", status: 200, seconds: 3, loop: 1)
        let families = metrics.families(openConnections: 0)
        let text = MetricsRegistry.render(families)
        let requests = try #require(families.first { $0.name == "flow_bff_requests_total" })
        #expect(requests.value("page", "200") == .count(2), "the registry's families are the test sink")
        #expect(text.contains(#"flow_bff_requests_total{route="page",status="200"} 2"#))
        #expect(text.contains(#"flow_bff_requests_total{route="page",status="304"} 1"#))
        #expect(text.contains(#"flow_bff_request_duration_seconds_bucket{route="page",le="0.0005"} 2"#))
        #expect(text.contains(#"flow_bff_request_duration_seconds_bucket{route="page",le="0.0025"} 3"#))
        #expect(text.contains(#"flow_bff_request_duration_seconds_count{route="page"} 3"#))
        #expect(text.contains(#"flow_bff_request_duration_seconds_bucket{route="nextPage",le="2.5"} 0"#))
        #expect(text.contains(#"flow_bff_request_duration_seconds_bucket{route="nextPage",le="+Inf"} 1"#))
        let page = text.range(of: #"route="page",status="200""#)!.lowerBound
        let next = text.range(of: #"route="nextPage",status="200""#)!.lowerBound
        #expect(next < page, "routes sorted by name")
    }

    @Test func pageHeaderBlockHoldsWhatTheFieldsWould() throws {
        let page = CatalogPage(
            page: PageModel(id: "p", title: "P", sections: []), pageSize: 10, cacheControl: "public, max-age=60")
        let block = try #require(page.headerBlock)
        #expect(
            String(decoding: block.bytes, as: UTF8.self)
                == "Cache-Control: public, max-age=60\r\nVary: X-Flow-Client\r\n")
        #expect(block == HTTPHeaderBlock(page.responseHeaders(locale: nil)))
        var edited = page
        edited.cacheControl = "no-store"
        #expect(
            edited.headerBlock.map { String(decoding: $0.bytes, as: UTF8.self) }?.hasPrefix(
                "Cache-Control: no-store\r\n") == true)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }

    /// The one renderer writes every kind of family in the text format, label values escaped.
    @Test func theRegistryWritesEveryKindOfFamily() {
        let registry = MetricsRegistry()
        let counter = LabeledCounter("demo_total", help: "Demo events.", labels: ["name", "kind"])
        counter.increment(["b", "x"])
        counter.increment(["a", "quote\"back\\slash\nline"], by: 2)
        registry.register { [counter.family] }
        registry.register {
            [
                MetricFamily("demo_up", .gauge, help: "Up.", samples: [.init(labels: [], value: .real(0.5))]),
                MetricFamily(
                    "demo_seconds", .histogram, help: "Time.", labels: ["route"],
                    samples: [
                        .init(
                            labels: ["r"],
                            value: .histogram(buckets: [(0.1, 1), (1, 3)], sum: 1.25, count: 4))
                    ]),
            ]
        }
        #expect(
            registry.render() == """
                # HELP demo_total Demo events.
                # TYPE demo_total counter
                demo_total{name="a",kind="quote\\"back\\\\slash\\nline"} 2
                demo_total{name="b",kind="x"} 1
                # HELP demo_up Up.
                # TYPE demo_up gauge
                demo_up 0.5
                # HELP demo_seconds Time.
                # TYPE demo_seconds histogram
                demo_seconds_bucket{route="r",le="0.1"} 1
                demo_seconds_bucket{route="r",le="1.0"} 3
                demo_seconds_bucket{route="r",le="+Inf"} 4
                demo_seconds_sum{route="r"} 1.25
                demo_seconds_count{route="r"} 4

                """)
        #expect(registry.family("demo_total")?.value("b", "x") == .count(1))
        #expect(counter.value(["a", "quote\"back\\slash\nline"]) == 2)
    }
}
