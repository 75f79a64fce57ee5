import Foundation
import HTTPCore
import PageModel

/// The access-log members beyond the fixed ones, each only when known: the catalog page served (`page`), the
/// problem code of an error answer (`problem`), the peer address (`peer`), the client address a trusted proxy
/// forwarded (`client`, ``BFFConfiguration/Logging/trustedProxies``), the `User-Agent`, and the app's platform and
/// version from `X-Flow-Client` (`appPlatform`, `appVersion`), the trace (`traceID`, and `spanID` when this server
/// traced the request; else the caller's trace id from its `traceparent`), and the time spent in upstream calls
/// (`upstreamMs`, for answers Swift code computed).
///
/// Written straight from the entry into the sink's buffer, on the access log's hot path: no struct of copied strings,
/// and the request's fields are searched in one pass.
enum AccessLogExtras {
    /// Appends `,"page":…` and the other members `entry` has, as escaped JSON strings.
    static func append(_ entry: borrowing HTTPAccessLogEntry, trustedProxies: Set<String>, to line: inout [UInt8]) {
        var userAgent: String?
        var declaration: String?
        var traceparent: String?
        var forwardedFor: String?
        // The four fields wanted, told apart by length first (User-Agent 10, traceparent 11, X-Flow-Client 13,
        // X-Forwarded-For 15).
        for field in entry.requestHeaders {
            switch field.name.utf8.count {
            case 10 where field.name.asciiCaseInsensitiveEquals("User-Agent"): userAgent = field.value
            case 11 where field.name.asciiCaseInsensitiveEquals("traceparent"): traceparent = field.value
            case 13 where field.name.asciiCaseInsensitiveEquals(ClientCapabilities.headerName):
                declaration = field.value
            case 15 where field.name.asciiCaseInsensitiveEquals("X-Forwarded-For"): forwardedFor = field.value
            default: break
            }
        }
        let annotations = entry.annotations
        member(#","page":"#, annotations?.subject, to: &line)
        member(#","problem":"#, annotations?.errorCode, to: &line)
        if let peer = entry.remoteAddress {
            member(#","peer":"#, peer, to: &line)
            if let forwardedFor, !trustedProxies.isEmpty, trustedProxies.contains(Authority(peer)?.host ?? peer) {
                member(#","client":"#, client(forwardedFor: forwardedFor, trustedProxies: trustedProxies), to: &line)
            }
        }
        member(#","userAgent":"#, userAgent, to: &line)
        if let declaration {
            let (platform, version) = platformAndVersion(declaration)
            member(#","appPlatform":"#, platform, to: &line)
            member(#","appVersion":"#, version, to: &line)
        }
        if let trace = entry.trace {
            appendTrace(trace, to: &line)
        } else if let incoming = traceparent.flatMap(TraceParent.init) {
            member(#","traceID":"#, incoming.traceID.description, to: &line)
        }
        if let nanoseconds = annotations?.upstreamNanoseconds, nanoseconds > 0 {
            let micros = Int(nanoseconds / 1000)
            key(#","upstreamMs":"#, to: &line)
            ByteFormatting.appendDecimal(micros / 1000, to: &line)
            line.append(UInt8(ascii: "."))
            ByteFormatting.appendDecimal(micros % 1000, minimumDigits: 3, to: &line)
        }
    }

    /// `,"traceID":"…","spanID":"…"` in one append: 32 and 16 hex digits written from the ids.
    private static func appendTrace(_ trace: HTTPTraceIDs, to line: inout [UInt8]) {
        let prefix: StaticString = #","traceID":""#
        let middle: StaticString = #"","spanID":""#
        let length = prefix.utf8CodeUnitCount + 32 + middle.utf8CodeUnitCount + 16 + 1
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { buffer in
            let start = buffer.baseAddress!
            start.update(from: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
            var at = start + prefix.utf8CodeUnitCount
            ByteFormatting.writeHex(trace.traceHigh, digits: 16, to: at)
            ByteFormatting.writeHex(trace.traceLow, digits: 16, to: at + 16)
            at += 32
            at.update(from: middle.utf8Start, count: middle.utf8CodeUnitCount)
            at += middle.utf8CodeUnitCount
            ByteFormatting.writeHex(trace.span, digits: 16, to: at)
            at[16] = UInt8(ascii: "\"")
            line.append(contentsOf: UnsafeBufferPointer(buffer))
        }
    }

    private static func key(_ key: StaticString, to line: inout [UInt8]) {
        key.withUTF8Buffer { line.append(contentsOf: $0) }
    }

    private static func member(_ name: StaticString, _ value: String?, to line: inout [UInt8]) {
        guard let value else { return }
        key(name, to: &line)
        JSONWriter.appendString(value, to: &line)
    }

    private static func member(_ name: StaticString, _ value: Substring?, to line: inout [UInt8]) {
        guard let value else { return }
        key(name, to: &line)
        JSONWriter.appendString(value, to: &line)
    }

    /// The last address of `X-Forwarded-For` that is not a trusted proxy: each proxy appends the address it got the
    /// request from, so the addresses after the first untrusted one (from the right) were added by trusted hops.
    static func client(forwardedFor: String, trustedProxies: Set<String>) -> String? {
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return hops.last { !$0.isEmpty && !trustedProxies.contains($0) } ?? hops.first
    }

    /// `platform` and `version` of an `X-Flow-Client` value (`platform=ios; version=3.2.0; widgets=…`), read without
    /// parsing the rest: the log line shows what the app said, also when the declaration is malformed.
    static func platformAndVersion(_ declaration: String) -> (Substring?, Substring?) {
        var platform: Substring?
        var version: Substring?
        for parameter in declaration.split(separator: ";") {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let name = pair[0].trimmingCharacters(in: .whitespaces).lowercased()
            let value = pair[1].drop { $0 == " " }.prefix(64)
            if name == "platform" { platform = value } else if name == "version" { version = value }
        }
        return (platform, version)
    }
}
