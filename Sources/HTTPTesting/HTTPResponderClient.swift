import HTTPCore

/// Sends requests straight to an ``HTTPResponder`` — no socket, no parser, no event loop — and returns what it
/// answered, in the shape of ``HTTPTestClient/Response``, so a test can move between the two clients
/// (Hummingbird's router test mode). For the fast tests of routing, problems and the mock; what needs the wire
/// stays with ``HTTPTestClient`` and a live server.
///
/// A reply is resolved the way the server resolves it: ``HTTPReply/deferred(_:)`` and ``HTTPReply/task(_:)`` are
/// awaited (the task on the test's executor, not an event loop), a thrown error becomes its problem response
/// (``HTTPResponseConvertible``) or HTTPCore's generic 500, and ``HTTPResponse/observer`` is told what was delivered.
/// The response holds what the responder made: its status; the fields of its ``HTTPResponse/headerBlock``, of its
/// prepared body (`Content-Type`, `ETag`, `Vary`), of ``HTTPResponse/headers`` and `X-Request-ID`; the identity
/// body (none for `HEAD`), or 304 for a prepared body's matching `If-None-Match` (HTTPCore's own matcher). What
/// else HTTPCore adds on the wire is not applied — `Date`, `Connection`, `Content-Length`, gzip, header checks —
/// and faults and streamed bodies cannot be delivered without a connection: they throw ``Undeliverable``.
public struct HTTPResponderClient: Sendable {
    /// A reply this client cannot deliver without a connection.
    public struct Undeliverable: Error, CustomStringConvertible {
        public var description: String
    }

    public let responder: any HTTPResponder
    /// The request's `Host` unless a test sends one.
    public var host: String
    /// The peer address requests come from (``HTTPRequest/remoteAddress``).
    public var remoteAddress: String

    public init(_ responder: any HTTPResponder, host: String = "127.0.0.1", remoteAddress: String = "127.0.0.1:49152") {
        self.responder = responder
        self.host = host
        self.remoteAddress = remoteAddress
    }

    /// Sends one request (with `Host`, and `Content-Length` when there is a body, as ``HTTPTestClient`` does).
    public func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) async throws -> HTTPTestClient.Response {
        var fields = HTTPFields(headers)
        if fields["Host"] == nil { fields = HTTPFields([("Host", host)] + headers) }
        if let body { fields.append("Content-Length", String(body.count)) }
        var request = HTTPRequest(method: HTTPMethod(method), target: target, headers: fields, body: body ?? [])
        request.remoteAddress = remoteAddress
        let start = ContinuousClock.now
        var reply: HTTPReply
        do {
            reply = try responder.respond(to: request)
        } catch {
            reply = .response(Self.response(for: error))
        }
        let response = try await Self.resolve(reply)
        let delivered = try Self.delivered(
            response, head: method == "HEAD",
            ifNoneMatch: method == "GET" || method == "HEAD" ? fields["If-None-Match"] : nil)
        if let observer = response.observer {
            let elapsed = (ContinuousClock.now - start).components
            var entry = HTTPAccessLogEntry.answered(
                method: HTTPMethod(method), target: target, version: .http11, status: delivered.status,
                bodyBytes: delivered.rawBody.count, gzip: false, remoteAddress: remoteAddress,
                durationNanoseconds: UInt64(elapsed.seconds) * 1_000_000_000
                    + UInt64(elapsed.attoseconds / 1_000_000_000),
                route: response.route, requestID: response.requestID, annotations: response.annotations)
            entry.trace = observer.trace
            observer.responseSent(entry)
        }
        return delivered
    }

    private static func resolve(_ reply: consuming HTTPReply) async throws -> HTTPResponse {
        while true {
            switch consume reply {
            case .response(let response):
                return response
            case .task(let work):
                do { reply = try await work() } catch { reply = .response(response(for: error)) }
            case .deferred(let start):
                let result = await withCheckedContinuation { continuation in
                    start(HTTPPromise { continuation.resume(returning: $0) })
                }
                switch result {
                case .success(let next): reply = next
                case .failure(let error): reply = .response(response(for: error))
                }
            case .fault(let fault):
                throw Undeliverable(description: "a fault (\(fault)) needs a connection: use HTTPTestClient")
            }
        }
    }

    private static func response(for error: any Error) -> HTTPResponse {
        (error as? any HTTPResponseConvertible)?.makeResponse() ?? HTTPError.genericInternal.makeResponse()
    }

    private static func delivered(_ response: HTTPResponse, head: Bool, ifNoneMatch: String?) throws
        -> HTTPTestClient.Response
    {
        var fields = HTTPFields()
        func appendLines(_ bytes: [UInt8]) {
            for line in bytes.split(separator: UInt8(ascii: "\n")) {
                let text = String(decoding: line.dropLast(line.last == UInt8(ascii: "\r") ? 1 : 0), as: UTF8.self)
                guard let colon = text.firstIndex(of: ":") else { continue }
                let name = String(text[..<colon])
                guard name.lowercased() != "content-length" else { continue }
                fields.append(name, String(text[text.index(after: colon)...].drop { $0 == " " }))
            }
        }
        var body: [UInt8] = []
        var status = response.status.code
        switch response.body {
        case .empty: break
        case .bytes(let bytes): body = bytes
        case .prepared(let prepared):
            if status == 200, let ifNoneMatch, prepared.matches(ifNoneMatch: ifNoneMatch) {
                status = 304
                appendLines(prepared.identityNotModifiedHead)
            } else {
                appendLines(prepared.identityHead)
                body = prepared.identityBytes
            }
        case .stream:
            throw Undeliverable(description: "a streamed body needs a connection: use HTTPTestClient")
        }
        if let block = response.headerBlock { appendLines(block.bytes) }
        for field in response.headers { fields.append(field.name, field.value) }
        if let requestID = response.requestID { fields.append("X-Request-ID", requestID) }
        return HTTPTestClient.Response(status: status, headers: fields, rawBody: head ? [] : body)
    }
}
