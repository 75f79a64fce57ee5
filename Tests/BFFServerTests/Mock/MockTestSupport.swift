import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A mock-mode configuration: watcher off unless asked, no access log.
func mockConfiguration(_ edit: (inout BFFConfiguration.Mock) -> Void = { _ in }) -> BFFConfiguration {
    var configuration = BFFConfiguration()
    configuration.logging.accessLog = false
    configuration.mock.enabled = true
    configuration.mock.watch = .off
    edit(&configuration.mock)
    return configuration
}

/// A temporary copy of the bundled pages plus `extra` files.
func copyOfBundledPages(adding extra: [String: String] = [:]) throws -> String {
    var files: [String: String] = [:]
    for folder in ["", DataDocuments.folder + "/"] {
        for name in try FileManager.default.contentsOfDirectory(atPath: TestServer.bundledPages + "/" + folder)
        where name.hasSuffix(".json") {
            files[folder + name] = try String(
                contentsOfFile: TestServer.bundledPages + "/" + folder + name, encoding: .utf8)
        }
    }
    return try temporaryPages(files.merging(extra) { $1 })
}

/// A page `id` with `count` sections `s0…` of one text widget each (`w0…`), `pageSize` sections per chunk and,
/// optionally, a button in the first section firing `action`, whose response removes `w0`.
func listPage(_ id: String, sections count: Int, pageSize: Int = 2, text: String = "item", action: String? = nil)
    -> String
{
    var sections: [String] = []
    for index in 0..<count {
        var widgets = [#"{"id": "w\#(index)", "type": "text", "content": {"text": "\#(text) \#(index)"}}"#]
        if index == 0, let action {
            widgets.append(
                #"{"id": "remove", "type": "button", "content": {"title": "Remove"}, "actions": {"tap": {"type": "api", "name": "\#(action)"}}}"#
            )
        }
        sections.append(#"{"id": "s\#(index)", "widgets": [\#(widgets.joined(separator: ", "))]}"#)
    }
    let actions =
        action.map {
            #", "actions": {"\#($0)": {"schemaVersion": 1, "kind": "actionResponse", "mutations": [{"type": "removeWidget", "id": "w0"}], "effects": []}}"#
        } ?? ""
    return
        #"{"schemaVersion": 1, "kind": "page", "page": {"id": "\#(id)", "title": "\#(text)", "sections": [\#(sections.joined(separator: ", "))]}, "server": {"pageSize": \#(pageSize)\#(actions)}}"#
}

/// Sends `request` on a fresh connection and reads until the server closes it (each read bounded by 5 s).
func rawExchange(port: Int, _ request: String) async -> RawExchange {
    await HTTPTestClient(port: port, timeoutSeconds: 5).exchange(raw: Array(request.utf8))
}

/// A GET with `Connection: close` and extra header lines.
func closingGET(_ target: String, _ headers: [String] = []) -> String {
    "GET \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        + headers.map { $0 + "\r\n" }.joined() + "\r\n"
}

/// URLSession (libcurl underneath on Linux), as an app would use it: data or the error.
func fetch(_ url: String, headers: [String: String] = [:]) async -> Result<(Data, HTTPURLResponse), any Error> {
    var request = URLRequest(url: URL(string: url)!)
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    do {
        let (data, response) = try await session.data(for: request)
        return .success((data, response as! HTTPURLResponse))
    } catch {
        return .failure(error)
    }
}

/// JSON of a response body.
func json(_ response: HTTPTestClient.Response) throws -> JSONValue {
    try JSONParser().parse(response.body)
}
