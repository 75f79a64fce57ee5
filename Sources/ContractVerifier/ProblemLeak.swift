import Foundation

/// Server internals in a problem body, which the contract forbids (§ 13: "never HTML, never a stack trace";
/// `internal_error` carries "no internals in the body"): stack-trace frames and source or file-system paths.
struct ProblemLeak: Sendable, Hashable {
    /// What was found: `stack trace`, `source path`, `file path`.
    var kind: String
    /// The text around it, at most 80 characters.
    var excerpt: String

    /// Markers of stack traces in the runtimes backends are written in (Swift, Java/Kotlin, Python, Node, Go).
    static let stackMarkers = [
        "Fatal error:", "Stack trace", "stack trace", "Traceback (most recent call last)", "\n\tat ", "\n    at ",
        "Exception in thread", "goroutine ", "panic: ",
    ]
    /// Source file suffixes followed by a line number (`App.swift:42`).
    static let sourceSuffixes = [".swift:", ".java:", ".kt:", ".py\", line", ".js:", ".ts:", ".go:", ".rb:"]
    /// Absolute file-system roots.
    static let pathRoots = ["/home/", "/Users/", "/usr/", "/var/", "/tmp/", "/opt/", "C:\\"]

    /// The first leak in `body`, read as UTF-8 (the JSON escapes of `/` and line breaks undone), or `nil`.
    static func find(in body: [UInt8]) -> ProblemLeak? {
        let text = String(decoding: body, as: UTF8.self).replacingOccurrences(of: "\\/", with: "/")
            .replacingOccurrences(of: "\\n", with: "\n").replacingOccurrences(of: "\\t", with: "\t")
        for (kind, markers) in [
            ("stack trace", stackMarkers), ("source path", sourceSuffixes), ("file path", pathRoots),
        ] {
            for marker in markers {
                guard let range = firstRange(of: marker, in: text, standalone: kind == "file path") else { continue }
                let start = text.index(range.lowerBound, offsetBy: -30, limitedBy: text.startIndex) ?? text.startIndex
                let end = text.index(range.upperBound, offsetBy: 50, limitedBy: text.endIndex) ?? text.endIndex
                return ProblemLeak(kind: kind, excerpt: String(text[start..<end]))
            }
        }
        return nil
    }

    /// The first occurrence of `marker`; when `standalone`, only one that starts a path (not `/v1/pages/home/…`,
    /// where `/home/` is a page id inside a route).
    static func firstRange(of marker: String, in text: String, standalone: Bool) -> Range<String.Index>? {
        var searchStart = text.startIndex
        while let range = text.range(of: marker, range: searchStart..<text.endIndex) {
            guard standalone, range.lowerBound > text.startIndex else { return range }
            let before = text[text.index(before: range.lowerBound)]
            if !(before.isLetter || before.isNumber || "/._-~%".contains(before)) { return range }
            searchStart = range.upperBound
        }
        return nil
    }
}
