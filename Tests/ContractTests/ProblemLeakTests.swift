import Testing

@testable import ContractVerifier

/// Problem bodies must leak nothing internal (contract § 13): what counts as a leak, and what does not.
@Suite struct ProblemLeakTests {
    static func leak(_ detail: String) -> ProblemLeak? {
        ProblemLeak.find(
            in: Array(#"{"type":"about:blank","title":"x","status":400,"detail":"\#(detail)","code":"x"}"#.utf8))
    }

    @Test func stackTracesAndPathsAreLeaks() {
        #expect(Self.leak(#"Fatal error: index out of range"#)?.kind == "stack trace")
        #expect(Self.leak(#"boom\n\tat com.example.Cursor.decode(Cursor.java:42)"#)?.kind == "stack trace")
        #expect(Self.leak(#"Traceback (most recent call last): ..."#)?.kind == "stack trace")
        #expect(Self.leak(#"failed in CursorCodec.swift:42"#)?.kind == "source path")
        #expect(Self.leak(#"cannot open /var/lib/app/keys.json"#)?.kind == "file path")
        #expect(Self.leak(#"cannot open \/home\/ci\/keys.json"#)?.kind == "file path", "JSON-escaped slashes")
    }

    @Test func routesAndUrlsAreNotLeaks() {
        #expect(Self.leak("No route for /v1/pages/home/next?postback=pA.") == nil)
        #expect(Self.leak("See https://flow-bff.dev/problems/invalid_cursor and /v1/pages/tmp/next") == nil)
        #expect(Self.leak("The postback is malformed, tampered with or signed by an unknown key.") == nil)
    }
}
