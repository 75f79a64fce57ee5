import Foundation
import HTTPCore
import HTTPTesting
import PageModel

/// Builds a HAR 1.2 archive from real exchanges with a test server: every request is sent with the test client and
/// its answer stored as the browser's "save as HAR" would store it.
struct HARCapture {
    let baseURL: String
    private(set) var entries: [JSONValue] = []

    /// Sends `method target` (with a JSON `body` for POST) and stores the exchange; returns the answer's body.
    /// `base64` stores the body the way browsers store binary answers (`content.encoding`).
    @discardableResult
    mutating func exchange(
        _ http: HTTPTestClient, _ method: String, _ target: String, json body: String? = nil, base64: Bool = false
    ) async throws -> HTTPTestClient.Response {
        let response: HTTPTestClient.Response
        if let body {
            response = try await http.post(target, json: body)
        } else {
            response = try await http.request(method, target)
        }
        let url = baseURL + target
        let query = URLComponents(string: url)?.queryItems ?? []
        var request: JSONValue = [
            "method": .string(method), "url": .string(url), "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": body == nil ? [] : [["name": "Content-Type", "value": "application/json"]],
            "queryString": .array(query.map { ["name": .string($0.name), "value": .string($0.value ?? "")] }),
            "headersSize": -1, "bodySize": .number(Double(body?.utf8.count ?? 0)),
        ]
        if let body, case .object(var object) = request {
            object["postData"] = ["mimeType": "application/json", "text": .string(body)]
            request = .object(object)
        }
        let text = response.text
        var content = JSONObject()
        content["size"] = .number(Double(response.body.count))
        content["mimeType"] = .string(response.header("Content-Type") ?? "application/octet-stream")
        if base64 {
            content["text"] = .string(Data(response.body).base64EncodedString())
            content["encoding"] = "base64"
        } else {
            content["text"] = .string(text)
        }
        let entry: JSONValue = [
            "startedDateTime": "2024-05-01T09:30:00.000Z", "time": 1,
            "request": request,
            "response": [
                "status": .number(Double(response.status)), "statusText": "", "httpVersion": "HTTP/1.1",
                "cookies": [],
                "headers": .array(
                    response.headers.map { ["name": .string($0.name), "value": .string($0.value)] }),
                "content": .object(content), "redirectURL": "", "headersSize": -1,
                "bodySize": .number(Double(response.rawBody.count)),
            ],
            "cache": [:], "timings": ["send": 0, "wait": 1, "receive": 0],
        ]
        entries.append(entry)
        return response
    }

    /// The archive: `{"log": {"version": "1.2", "creator": …, "entries": […]}}`.
    var document: JSONValue {
        [
            "log": [
                "version": "1.2", "creator": ["name": "flow-bff tests", "version": "1"],
                "entries": .array(entries),
            ]
        ]
    }
}

/// The members HAR 1.2 requires (http://www.softwareishard.com/blog/har-12-spec/), with their JSON types: what an
/// archive must hold for other tools (browsers' importers, HAR viewers) to read it.
enum HARShape {
    enum Kind { case string, number, object, array }

    static let log: [(String, Kind)] = [("version", .string), ("creator", .object), ("entries", .array)]
    static let creator: [(String, Kind)] = [("name", .string), ("version", .string)]
    static let entry: [(String, Kind)] = [
        ("startedDateTime", .string), ("time", .number), ("request", .object), ("response", .object),
        ("cache", .object), ("timings", .object),
    ]
    static let request: [(String, Kind)] = [
        ("method", .string), ("url", .string), ("httpVersion", .string), ("cookies", .array), ("headers", .array),
        ("queryString", .array), ("headersSize", .number), ("bodySize", .number),
    ]
    static let response: [(String, Kind)] = [
        ("status", .number), ("statusText", .string), ("httpVersion", .string), ("cookies", .array),
        ("headers", .array), ("content", .object), ("redirectURL", .string), ("headersSize", .number),
        ("bodySize", .number),
    ]
    static let content: [(String, Kind)] = [("size", .number), ("mimeType", .string)]
    static let timings: [(String, Kind)] = [("send", .number), ("wait", .number), ("receive", .number)]
    static let nameValue: [(String, Kind)] = [("name", .string), ("value", .string)]

    /// Every required member that is missing or of the wrong type, as `JSON-path: expected kind`.
    static func violations(_ archive: JSONValue) -> [String] {
        var found: [String] = []
        func check(_ value: JSONValue?, _ members: [(String, Kind)], at path: JSONPointer) {
            guard case .object(let object)? = value else {
                found.append("\(path): expected an object")
                return
            }
            for (name, kind) in members {
                let ok: Bool =
                    switch (kind, object[name]) {
                    case (.string, .string?), (.number, .number?), (.object, .object?), (.array, .array?): true
                    default: false
                    }
                if !ok { found.append("\(path / name): expected a \(kind)") }
            }
        }
        check(archive["log"], log, at: "/log")
        check(archive["log"]?["creator"], creator, at: "/log/creator")
        for (index, entry) in (archive["log"]?["entries"]?.arrayValue ?? []).enumerated() {
            let path = JSONPointer("/log/entries") / index
            check(entry, Self.entry, at: path)
            check(entry["request"], request, at: path / "request")
            check(entry["response"], response, at: path / "response")
            check(entry["response"]?["content"], content, at: path / "response" / "content")
            check(entry["timings"], timings, at: path / "timings")
            for list in ["headers", "cookies", "queryString"] {
                for (item, value) in (entry["request"]?[list]?.arrayValue ?? []).enumerated() {
                    check(value, nameValue, at: path / "request" / list / item)
                }
            }
            for (item, value) in (entry["response"]?["headers"]?.arrayValue ?? []).enumerated() {
                check(value, nameValue, at: path / "response" / "headers" / item)
            }
            if let postData = entry["request"]?["postData"] {
                check(postData, [("mimeType", .string), ("text", .string)], at: path / "request" / "postData")
            }
        }
        return found
    }
}
