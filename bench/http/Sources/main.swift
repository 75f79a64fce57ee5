// bench-http: serves every file of a directory through HTTPCore's prepared (cached) body path.
//
//   bench-http --dir DIR [--host 127.0.0.1] [--port 0] [--threads N] [--event-loop epoll|dispatch]
//              [--tls-cert FILE --tls-key FILE]
//
// `DIR/name.json` is served at `/name.json`; when `DIR/name.json.gz` exists its bytes are used as the gzip
// variant (the same bytes nginx's gzip_static sends). Prints `listening <port>` once ready; SIGTERM/SIGINT
// shut it down gracefully and print statistics to stderr.
import Foundation
import HTTPCore

struct Options {
    var directory = "."
    var host = "127.0.0.1"
    var port = 0
    var threads: Int?
    var eventLoop = HTTPServer.Configuration.EventLoopKind.platformDefault
    /// HTTPS with this PEM certificate (chain) and key (bench/tls).
    var tlsCertificate: String?
    var tlsKey: String?
}

func parseOptions() -> Options {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst().makeIterator()
    while let argument = arguments.next() {
        switch argument {
        case "--dir": options.directory = arguments.next() ?? "."
        case "--host": options.host = arguments.next() ?? options.host
        case "--port": options.port = Int(arguments.next() ?? "") ?? 0
        case "--threads": options.threads = Int(arguments.next() ?? "")
        case "--tls-cert": options.tlsCertificate = arguments.next()
        case "--tls-key": options.tlsKey = arguments.next()
        case "--event-loop":
            guard let kind = HTTPServer.Configuration.EventLoopKind(rawValue: arguments.next() ?? "") else {
                FileHandle.standardError.write(Data("--event-loop: epoll or dispatch\n".utf8))
                exit(2)
            }
            options.eventLoop = kind
        default:
            FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
            exit(2)
        }
    }
    return options
}

func contentType(for name: String) -> String {
    if name.hasSuffix(".json") { return "application/json" }
    if name.hasSuffix(".html") { return "text/html; charset=utf-8" }
    if name.hasSuffix(".txt") { return "text/plain; charset=utf-8" }
    return "application/octet-stream"
}

let options = parseOptions()
let fileManager = FileManager.default
var bodies: [String: PreparedBody] = [:]
for name in (try? fileManager.contentsOfDirectory(atPath: options.directory)) ?? [] where !name.hasSuffix(".gz") {
    let path = options.directory + "/" + name
    guard let data = fileManager.contents(atPath: path) else { continue }
    let gzip = fileManager.contents(atPath: path + ".gz").map { [UInt8]($0) }
    bodies["/" + name] = PreparedBody(
        [UInt8](data), contentType: contentType(for: name), gzip: gzip, compress: gzip == nil)
}
let routes = bodies

var configuration = HTTPServer.Configuration(host: options.host, port: options.port)
if let threads = options.threads { configuration.workerThreads = threads }
configuration.eventLoop = options.eventLoop
configuration.limits.maxRequestsPerConnection = 1_000_000
if let certificate = options.tlsCertificate, let key = options.tlsKey {
    configuration.tls = HTTPServer.Configuration.TLS(certificateChainFile: certificate, privateKeyFile: key)
}
let server = HTTPServer(configuration: configuration, logger: HTTPStderrLogSink()) { request in
    if let body = routes[request.path] {
        return .response(.prepared(body))
    }
    return .error(HTTPError.notFound())
}
do {
    try server.start()
} catch {
    FileHandle.standardError.write(Data("bench-http: \(error)\n".utf8))
    exit(1)
}
server.installSignalHandlers()
FileHandle.standardOutput.write(Data("listening \(server.port)\n".utf8))
server.waitUntilStopped()
let statistics = server.statistics
FileHandle.standardError.write(
    Data(
        "bench-http: \(statistics.connectionsAccepted) connections, \(statistics.responsesSent) responses\n".utf8))
exit(0)
