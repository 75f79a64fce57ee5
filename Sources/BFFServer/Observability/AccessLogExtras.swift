import Foundation
import HTTPCore
import PageModel

/// The access-log members beyond the fixed ones, each only when known: the catalog page served (`page`), the
/// problem code of an error answer (`problem`), the peer address (`peer`), the client address a trusted proxy
/// forwarded (`client`, ``BFFConfiguration/Logging/trustedProxies``), the `User-Agent`, and the app's platform and
/// version from `X-Flow-Client` (`appPlatform`, `appVersion`), the trace (`traceID`, and `spanID` when this server
/// traced the request; else the caller's trace id from its `traceparent`), and the time spent in upstream calls
/// (`upstreamMs`, for answers Swift code computed).
struct AccessLogExtras {
    var page: String?
    var problem: String?
    var peer: String?
    var client: String?
    var userAgent: String?
    var appPlatform: Substring?
    var appVersion: Substring?
    var traceID: Substring?
    var spanID: Substring?
    /// Upstream time in microseconds; nil when the answer made no upstream call.
    var upstreamMicroseconds: Int?

    init() {}

    init(_ entry: HTTPAccessLogEntry, trustedProxies: Set<String>) {
        page = entry.subject
        problem = entry.errorCode
        peer = entry.remoteAddress
        let headers = entry.requestHeaders
        userAgent = headers["User-Agent"]
        if let peer, !trustedProxies.isEmpty, trustedProxies.contains(String(Self.host(of: peer))),
            let forwarded = headers["X-Forwarded-For"]
        {
            client = Self.client(forwardedFor: forwarded, trustedProxies: trustedProxies)
        }
        if let declaration = headers[ClientCapabilities.headerName] {
            (appPlatform, appVersion) = Self.platformAndVersion(declaration)
        }
        if let traced = entry.traceParent.flatMap(TraceParent.init) {
            traceID = Substring(traced.traceID.description)
            spanID = Substring(traced.spanID.description)
        } else if let incoming = headers["traceparent"].flatMap(TraceParent.init) {
            traceID = Substring(incoming.traceID.description)
        }
        if entry.upstreamNanoseconds > 0 { upstreamMicroseconds = Int(entry.upstreamNanoseconds / 1000) }
    }

    /// The address of a peer written `1.2.3.4:80` or `[::1]:80`, without its port.
    static func host(of peer: String) -> Substring {
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") {
            return peer[peer.index(after: peer.startIndex)..<close]
        }
        guard let colon = peer.lastIndex(of: ":"), peer.firstIndex(of: ":") == colon else { return peer[...] }
        return peer[..<colon]
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

    /// Appends `,"page":…` and the other members present, as escaped JSON strings (straight from each value's UTF-8:
    /// no `String` is made per member).
    func append(to line: inout [UInt8]) {
        func member(_ key: StaticString, _ value: String?) {
            guard let value else { return }
            key.withUTF8Buffer { line.append(contentsOf: $0) }
            JSONWriter.appendString(value, to: &line)
        }
        func member(_ key: StaticString, _ value: Substring?) {
            guard let value else { return }
            key.withUTF8Buffer { line.append(contentsOf: $0) }
            JSONWriter.appendString(value, to: &line)
        }
        member(#","page":"#, page)
        member(#","problem":"#, problem)
        member(#","peer":"#, peer)
        member(#","client":"#, client)
        member(#","userAgent":"#, userAgent)
        member(#","appPlatform":"#, appPlatform)
        member(#","appVersion":"#, appVersion)
        member(#","traceID":"#, traceID)
        member(#","spanID":"#, spanID)
        if let micros = upstreamMicroseconds {
            line.append(contentsOf: #","upstreamMs":"#.utf8)
            ByteFormatting.appendDecimal(micros / 1000, to: &line)
            line.append(UInt8(ascii: "."))
            ByteFormatting.appendDecimal(micros % 1000, minimumDigits: 3, to: &line)
        }
    }
}
