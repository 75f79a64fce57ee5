import Foundation
import HTTPCore
import PageModel
import Synchronization

/// A purpose-built loopback server for broken behaviours a page directory cannot express (duplicate ids across
/// chunks, endless cursors, invalid JSON, wrong headers): it answers from a route table, `routes.json`.
///
/// ```json
/// { "entry": ["home"], "compression": true,
///   "routes": [ { "method": "GET", "path": "/v1/pages/home", "query": "*", "requestHeaders": {"Cache-Control": "no-cache"},
///                 "responses": [ { "status": 200, "headers": {"ETag": "\"1\""}, "body": {…} }, { "text": "…" } ] } ] }
/// ```
///
/// Routes are tried in order. `method` defaults to GET; `query` absent matches requests without a query, `"*"`
/// any query, otherwise the raw query exactly; `requestHeaders` values must match exactly (`"*"`: present).
/// `responses` are served in turn (cycling); each has `status` (200), `headers`, and a JSON `body` (sent as
/// `application/json` unless `headers` set a type) or a raw `text`. No match: 404 problem+json.
///
/// The server has one state, `""` at start: a route with `state` matches only in that state, and a route with
/// `setState` switches to it when it answers (a backend whose actions change what later loads return).
/// `POST /v1/pages/{id}/next` with `{"postback": P}` is matched as `GET …/next?postback=P` (the contract's two
/// spellings) unless the table says `"postNext": false`.
/// Like a conforming server, it refuses an action request naming a widget that no body of the table has (`400
/// unknown_widget`) or an event the widget does not declare (`400 undeclared_event`), before any route — unless
/// the table says `"checksActions": false` (a server that answers whatever it is sent). It also refuses, first, a
/// body without string `pageID`, `widgetID` or `event` (`400 invalid_request`) and a `pageID` the table serves no
/// page for (`404 page_not_found`) — unless `"checksRequests": false` or `"checksActions": false`.
final class RawServer: Sendable {
    struct Table: Decodable {
        var entry: [String]
        var compression: Bool?
        var postNext: Bool?
        var checksActions: Bool?
        var checksRequests: Bool?
        /// Whether answers carry the request's `X-Request-ID` (default true, as the contract says).
        var echoesRequestID: Bool?
        /// The answer to a request no route matches; default a `404` problem+json `page_not_found`.
        var notFound: Answer?
        var routes: [Route]

        /// Widget id → the events its `actions` declare, from every JSON body of the table.
        var widgetEvents: [String: Set<String>] {
            var found: [String: Set<String>] = [:]
            func walk(_ value: JSONValue) {
                switch value {
                case .object(let object):
                    if case .string(let id)? = object["id"], case .object(let actions)? = object["actions"] {
                        found[id, default: []].formUnion(actions.members.map(\.key))
                    }
                    for member in object.members { walk(member.value) }
                case .array(let items): items.forEach(walk)
                default: break
                }
            }
            for route in routes { for answer in route.responses { answer.body.map(walk) } }
            return found
        }
    }

    struct Route: Decodable {
        var method: String?
        var path: String
        var query: String?
        var requestHeaders: [String: String]?
        var state: String?
        var setState: String?
        var responses: [Answer]
    }

    struct Answer: Decodable {
        var status: Int?
        var headers: [String: String]?
        var body: JSONValue?
        var text: String?
    }

    /// How many times each route answered, so `responses` are served in turn, and the server's state.
    final class Turns: Sendable {
        private let counts = Mutex<[Int: Int]>([:])
        let state = Mutex("")

        func next(_ route: Int) -> Int {
            counts.withLock { counts in
                defer { counts[route, default: 0] += 1 }
                return counts[route, default: 0]
            }
        }
    }

    let table: Table
    let server: HTTPServer

    init(routesFile: String) throws {
        let table = try JSONDecoder().decode(Table.self, from: Data(contentsOf: URL(fileURLWithPath: routesFile)))
        self.table = table
        let turns = Turns()
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.workerThreads = 1
        configuration.compression.enabled = table.compression ?? true
        let widgets = table.checksActions ?? true ? table.widgetEvents : nil
        let pages: Set<String>? =
            (table.checksActions ?? true) && (table.checksRequests ?? true)
            ? Set(
                table.entry
                    + table.routes.compactMap { route in
                        let parts = route.path.split(separator: "/")
                        return parts.count == 3 && parts[0] == "v1" && parts[1] == "pages" ? String(parts[2]) : nil
                    }) : nil
        let echoes = table.echoesRequestID ?? true
        server = HTTPServer(configuration: configuration) { request in
            var reply =
                pages.flatMap { RawServer.malformed(request, pages: $0) }
                ?? widgets.flatMap { RawServer.refusal(of: request, widgets: $0) }
                ?? RawServer.answer(request, table: table, turns: turns)
            if echoes, case .response(var response) = reply, let id = request.headers["X-Request-ID"] {
                response.headers.set("X-Request-ID", id)
                reply = .response(response)
            }
            return reply
        }
    }

    var baseURL: URL { URL(string: "http://" + server.localAddress)! }

    static func answer(_ request: HTTPRequest, table: Table, turns: Turns) -> HTTPReply {
        var request = request
        if table.postNext ?? true, request.method.rawValue == "POST", request.path.hasSuffix("/next"),
            let body = try? JSONParser().parse(request.body), let postback = body["postback"]?.stringValue
        {
            request.method = .get
            request.query = "postback=" + ContractRoute.percentEncodedSegment(postback)
        }
        let state = turns.state.withLock { $0 }
        for (index, route) in table.routes.enumerated() where matches(route, request) {
            if let wanted = route.state, wanted != state { continue }
            if let next = route.setState { turns.state.withLock { $0 = next } }
            let turn = turns.next(index)
            return response(route.responses[turn % route.responses.count], status: 200)
        }
        if let answer = table.notFound { return response(answer, status: 404) }
        let problem = ProblemDetails(
            status: 404, code: "page_not_found", title: "Not found", detail: "No route for \(request.target).")
        return .response(
            .bytes(JSONWriter().write(problem.json), contentType: ProblemDetails.mediaType, status: 404))
    }

    /// `answer` as sent: its headers (`Content-Type: application/json` for a JSON body by default), its body, its
    /// status or `status`.
    static func response(_ answer: Answer, status: Int) -> HTTPReply {
        var headers = HTTPFields()
        for (name, value) in (answer.headers ?? [:]).sorted(by: { $0.key < $1.key }) { headers.set(name, value) }
        let bytes = answer.text.map { Array($0.utf8) } ?? answer.body.map { JSONWriter().write($0) } ?? []
        if headers["Content-Type"] == nil, answer.body != nil { headers.set("Content-Type", "application/json") }
        return .response(
            HTTPResponse(status: HTTPStatus(code: answer.status ?? status), headers: headers, body: .bytes(bytes)))
    }

    /// The contract's `400 invalid_request` for an action request without string `pageID`, `widgetID` or `event`,
    /// and `404 page_not_found` for one naming a page the table does not serve.
    static func malformed(_ request: HTTPRequest, pages: Set<String>) -> HTTPReply? {
        guard request.method.rawValue == "POST", request.path.hasPrefix("/v1/actions/") else { return nil }
        let body = try? JSONParser().parse(request.body)
        let problem: ProblemDetails
        if let missing = ["pageID", "widgetID", "event"].first(where: { body?[$0]?.stringValue == nil }) {
            problem = ProblemDetails(
                status: 400, code: "invalid_request", title: "Invalid request", detail: "\(missing) is required.")
        } else if let pageID = body?["pageID"]?.stringValue, !pages.contains(pageID) {
            problem = ProblemDetails(
                status: 404, code: "page_not_found", title: "Not found", detail: "No page \(pageID).")
        } else {
            return nil
        }
        return .response(
            .bytes(
                JSONWriter().write(problem.json), contentType: ProblemDetails.mediaType,
                status: HTTPStatus(code: problem.status)))
    }

    /// The contract's `400` for an action request whose widget or event the table's bodies do not declare.
    static func refusal(of request: HTTPRequest, widgets: [String: Set<String>]) -> HTTPReply? {
        guard request.method.rawValue == "POST", request.path.hasPrefix("/v1/actions/"),
            let body = try? JSONParser().parse(request.body), let widgetID = body["widgetID"]?.stringValue,
            let event = body["event"]?.stringValue
        else { return nil }
        let problem: ProblemDetails
        if let events = widgets[widgetID] {
            guard !events.contains(event) else { return nil }
            problem = ProblemDetails(
                status: 400, code: "undeclared_event", title: "Undeclared event", detail: "\(widgetID) has no \(event)."
            )
        } else {
            problem = ProblemDetails(
                status: 400, code: "unknown_widget", title: "Unknown widget", detail: "No widget \(widgetID).")
        }
        return .response(.bytes(JSONWriter().write(problem.json), contentType: ProblemDetails.mediaType, status: 400))
    }

    static func matches(_ route: Route, _ request: HTTPRequest) -> Bool {
        guard request.method.rawValue == (route.method ?? "GET"), request.path == route.path else { return false }
        switch route.query {
        case nil: if let query = request.query, !query.isEmpty { return false }
        case "*": break
        case let query?: if request.query != query { return false }
        }
        for (name, value) in route.requestHeaders ?? [:] {
            guard let sent = request.headers[name] else { return false }
            if value != "*" && sent != value { return false }
        }
        return true
    }
}
