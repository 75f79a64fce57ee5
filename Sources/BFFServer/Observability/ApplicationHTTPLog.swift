import HTTPCore
import PageModel

/// The application's ``HTTPLogSink``: metrics and the access log are fed from what HTTPCore actually wrote
/// (status, bytes, encoding, duration), with the route and request id the application set on the response
/// (``HTTPResponse/route``, ``HTTPResponse/requestID``). HTTPCore's own error reports become structured log lines. (The mock journal subscribes to
/// what was sent on its own responses, ``HTTPResponse/onSent``.)
///
/// A class: HTTPCore holds it as an `any HTTPLogSink`, and a reference is one count to copy where a struct of four
/// fields would be several.
final class ApplicationHTTPLog: HTTPLogSink {
    let metrics: Metrics
    let log: Logger
    let accessLog: Bool
    /// Where HTTPCore's error reports also go (tests).
    let forward: any HTTPLogSink
    /// `forward.wantsAccessLog`, read once.
    private let forwardsAccess: Bool
    /// `log.sink`, held directly (no `Logger` copy per line).
    private let sink: any BFFLogSink
    /// `logging.trustedProxies`: peers whose `X-Forwarded-For` names the client.
    let trustedProxies: Set<String>

    init(
        metrics: Metrics, log: Logger, accessLog: Bool, forward: any HTTPLogSink, trustedProxies: Set<String> = []
    ) {
        self.metrics = metrics
        self.log = log
        self.accessLog = accessLog
        self.forward = forward
        self.trustedProxies = trustedProxies
        forwardsAccess = forward.wantsAccessLog
        sink = log.sink
    }

    /// Always: metrics and the journal need every entry even with the access log off.
    var wantsAccessLog: Bool { true }

    func access(_ entry: HTTPAccessLogEntry) {
        // Answers HTTPCore made itself (malformed requests, a dropped promise) name no route.
        let route = entry.route ?? "server"
        let requestID = entry.requestID ?? "-"
        let seconds = Double(entry.durationNanoseconds) / 1e9
        metrics.record(
            route: route, status: entry.status, seconds: seconds, loop: entry.loop, page: entry.subject,
            code: entry.errorCode)
        if accessLog {
            // The target is ASCII (the parser rejects anything else): search its bytes, not its Characters, and
            // keep the path a slice of it (no copy).
            var target = entry.target
            let query = target.withUTF8 { $0.firstIndex(of: UInt8(ascii: "?")) }
            let path = query.map { target.utf8.prefix($0) }.map(Substring.init) ?? target[...]
            let line = AccessLogLine(
                requestID: requestID, method: entry.method.rawValue, path: path, route: route, status: entry.status,
                bytes: entry.bodyBytes, gzip: entry.gzip, seconds: seconds)
            let trustedProxies = trustedProxies
            // A closure literal, not the method reference `line.append(to:)` (that would allocate a context).
            sink.writeLine { line.append(to: &$0, extrasOf: entry, trustedProxies: trustedProxies) }
        }
        if forwardsAccess { forward.access(entry) }
    }

    func error(_ message: String) {
        log.error(message, ["source": "http"])
        forward.error(message)
    }
}
