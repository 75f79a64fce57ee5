import Foundation
import HTTPCore
import PageModel

/// `GET /` in mock mode: what this mock serves — pages (with their scenarios and preview links), broken page
/// files, api actions and the admin routes. HTML for a browser (`Accept` naming `text/html` before
/// `application/json`), JSON otherwise. Production has no such route (`/` is `404 not_found`).
extension MockLayer {
    /// The admin routes a person opens or calls by hand, as (method, path, summary).
    static let indexAdminLinks: [(method: String, path: String, summary: String)] = [
        ("GET", "/__admin/status", "catalog, reloads and their diagnostics, sessions, journal"),
        ("GET", "/__admin/scenarios", "scenarios by page"),
        ("GET", "/__admin/sessions", "live sessions"),
        ("GET", "/__admin/faults", "network simulation rules"),
        ("GET", "/__admin/journal", "the requests received, filterable"),
        ("GET", "/__admin/journal/count", "how many journaled requests pass the filters"),
        ("GET", "/__admin/echo", "the request as parsed"),
        ("POST", "/__admin/reload", "reload the pages directory now"),
        ("POST", "/__admin/reset", "forget sessions, runtime faults, the journal"),
    ]

    /// The HTML index's only style, allowed by its hash in ``indexPolicy`` (no `'unsafe-inline'`): the preview's
    /// palette, light or dark as the system prefers, each list a card of rows.
    static let indexStyle =
        ":root{color-scheme:light dark;--bg:#f4f4f6;--fg:#1b1b1f;--card:#fff;--muted:#6b6b76;--accent:#2f5bea;"
        + "--line:#e1e1e6;--stale:#b3261e}"
        + "@media (prefers-color-scheme:dark){:root{--bg:#141418;--fg:#ececf1;--card:#202027;--muted:#a0a0ab;"
        + "--accent:#8aa8ff;--line:#34343d;--stale:#ff8a80}}"
        + "body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;padding:2em 1.5em;max-width:60em;"
        + "background:var(--bg);color:var(--fg)}"
        + "h1{font-size:1.5em;margin:0 0 .3em}p{color:var(--muted)}"
        + "h2{font-size:.8em;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);margin:2em 0 .5em}"
        + "a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}"
        + "ul{list-style:none;padding:0;margin:0;background:var(--card);border:1px solid var(--line);"
        + "border-radius:10px}li{padding:.45em .9em;border-top:1px solid var(--line)}li:first-child{border-top:0}"
        + "code{font:13px ui-monospace,monospace;background:var(--bg);padding:.1em .35em;border-radius:4px}"
        + "small{color:var(--muted)}.stale,.stale code{color:var(--stale)}"
    static let indexPolicy = BrowserHardening.indexPolicy(style: indexStyle)

    /// `GET /` (and `HEAD`).
    func serveIndex(_ request: HTTPRequest) -> HTTPResponse {
        let index = indexJSON()
        var headers: HTTPFields = ["Cache-Control": "no-store", "Vary": "Accept"]
        if Self.prefersHTML(request.headers["Accept"]) {
            headers.set("Content-Type", "text/html; charset=utf-8")
            BrowserHardening.apply(to: &headers, policy: Self.indexPolicy)
            return HTTPResponse(headers: headers, body: .bytes(Array(Self.indexHTML(index).utf8)))
        }
        return .json(JSONWriter().write(index), headers: headers)
    }

    /// Whether `accept` names `text/html` (or `application/xhtml+xml`) before `application/json`.
    static func prefersHTML(_ accept: String?) -> Bool {
        guard let accept = accept?.lowercased() else { return false }
        guard let html = accept.range(of: "text/html") ?? accept.range(of: "application/xhtml+xml") else {
            return false
        }
        guard let json = accept.range(of: "application/json") else { return true }
        return html.lowerBound < json.lowerBound
    }

    func indexJSON() -> JSONValue {
        let snapshot = application.snapshot
        let catalog = snapshot.catalog
        let preview = configuration.servesPreview
        let providerIDs = Set(application.providers.pageIDs)
        var pages: [JSONValue] = []
        for id in Set(catalog.pageIDs).union(providerIDs).sorted() {
            var page = JSONObject()
            page["id"] = .string(id)
            page["source"] = .string(providerIDs.contains(id) ? "provider" : "file")
            page["href"] = .string("/v1/pages/" + id)
            if preview { page["preview"] = .string("/__preview?page=" + Self.queryEncoded(id)) }
            // A page made per data item answers only with its parameter: its links carry a sample, each listed.
            if let samples = catalog.sampleParameters(of: id) {
                let queries = samples.map { sample in
                    sample.sorted { $0.key < $1.key }.map {
                        "\(Self.queryEncoded($0.key))=\(Self.queryEncoded($0.value))"
                    }
                    .joined(separator: "&")
                }
                page["href"] = .string("/v1/pages/\(id)?\(queries.first ?? "")")
                page["samples"] = .array(
                    zip(samples, queries).map { sample, query in
                        var entry = JSONObject()
                        entry["parameters"] = .object(
                            JSONObject(sample.sorted { $0.key < $1.key }.map { .init(key: $0, value: .string($1)) }))
                        entry["href"] = .string("/v1/pages/\(id)?\(query)")
                        if preview {
                            let parameters = sample.sorted { $0.key < $1.key }.map {
                                "&p.\(Self.queryEncoded($0.key))=\(Self.queryEncoded($0.value))"
                            }
                            entry["preview"] = .string("/__preview?page=\(Self.queryEncoded(id))" + parameters.joined())
                        }
                        return .object(entry)
                    })
                if preview, case .object(let first)? = page["samples"]?.arrayValue?.first {
                    page["preview"] = first["preview"]
                }
            }
            page["scenarios"] = .array(
                (catalog.scenarios[id] ?? [:]).keys.sorted().map { name in
                    var scenario = JSONObject()
                    scenario["name"] = .string(name)
                    scenario["href"] = .string(
                        "/v1/pages/\(id)?\(FlowHeader.scenarioQuery)=\(Self.queryEncoded(name))")
                    if preview {
                        scenario["preview"] = .string(
                            "/__preview?page=\(Self.queryEncoded(id))&scenario=\(Self.queryEncoded(name))")
                    }
                    return .object(scenario)
                })
            if let file = catalog.pages[id]?.file,
                let notice = snapshot.staleNotice(for: file)
            {
                page["stale"] = .string(notice)
            }
            pages.append(.object(page))
        }
        let broken: [JSONValue] = snapshot.brokenFiles.keys.sorted().map { file in
            let notice = snapshot.staleNotice(for: file) ?? file
            return [
                "file": .string(file), "error": .string(notice),
                "message": .string(snapshot.brokenFiles[file]!.diagnostic.message),
            ]
        }
        let actions: [JSONValue] = catalog.actions.keys.sorted().map { name in
            [
                "name": .string(name), "pageID": .string(catalog.actions[name]!.pageID),
                "href": .string("/v1/actions/" + name),
            ]
        }
        let data: [JSONValue] = catalog.data.names.map { name in
            [
                "name": .string(name), "file": .string("\(DataDocuments.folder)/\(name).json"),
                "items": catalog.data.documents[name]?.arrayValue.map { .number(Double($0.count)) } ?? .null,
            ]
        }
        let admin: [JSONValue] = Self.indexAdminLinks.map {
            ["method": .string($0.method), "href": .string($0.path), "summary": .string($0.summary)]
        }
        return [
            "mock": true,
            "catalogVersion": .string(catalog.version),
            "preview": preview ? .string(BFFApplication.previewPrefix) : .null,
            "pages": .array(pages),
            "brokenFiles": .array(broken),
            "data": .array(data),
            "actions": .array(actions),
            "admin": .array(admin),
            "openAPI": "/openapi.json",
        ]
    }

    /// The HTML form of ``indexJSON()``: every name escaped.
    static func indexHTML(_ index: JSONValue) -> String {
        func text(_ value: JSONValue?) -> String { escaped(value?.stringValue ?? "") }
        func link(_ href: JSONValue?, _ label: JSONValue?) -> String {
            "<a href=\"\(text(href))\">\(text(label))</a>"
        }
        var html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>flow-bff mock</title><link rel="icon" href="data:,">
            <style>\(indexStyle)</style></head><body>
            <h1>flow-bff mock</h1>
            <p>Catalog <code>\(text(index["catalogVersion"]))</code> · <a href="/openapi.json">OpenAPI</a>
            """
        if index["preview"]?.stringValue != nil { html += " · " + link(index["preview"], "Preview") }
        html += "</p>\n<h2>Pages</h2>\n<ul>\n"
        for page in index["pages"]?.arrayValue ?? [] {
            html += "<li>" + link(page["href"], page["id"])
            if page["preview"] != nil { html += " (" + link(page["preview"], "preview") + ")" }
            if page["source"]?.stringValue == "provider" { html += " <small>provider</small>" }
            let scenarios = page["scenarios"]?.arrayValue ?? []
            if !scenarios.isEmpty {
                html += " — scenarios: "
                html += scenarios.map { link($0["href"], $0["name"]) }.joined(separator: ", ")
            }
            let samples = page["samples"]?.arrayValue ?? []
            if !samples.isEmpty {
                html += " — made per data item: "
                html +=
                    samples.map { sample in
                        let label = (sample["parameters"]?.objectValue?.members ?? []).map {
                            "\($0.key)=\($0.value.stringValue ?? "")"
                        }.joined(separator: "&")
                        return link(sample["href"], .string(label))
                    }.joined(separator: ", ")
            }
            if page["stale"] != nil {
                html += " <span class=\"stale\">stale: <code>\(text(page["stale"]))</code></span>"
            }
            html += "</li>\n"
        }
        html += "</ul>\n"
        let broken = index["brokenFiles"]?.arrayValue ?? []
        if !broken.isEmpty {
            html += "<h2>Broken page files</h2>\n<ul>\n"
            for file in broken {
                html += "<li class=\"stale\"><code>\(text(file["error"]))</code>: \(text(file["message"]))</li>\n"
            }
            html += "</ul>\n"
        }
        let data = index["data"]?.arrayValue ?? []
        if !data.isEmpty {
            html += "<h2>Data</h2>\n<ul>\n"
            for document in data {
                let items = document["items"]?.numberValue.map { " — \(Int($0)) items" } ?? ""
                html +=
                    "<li><code>\(text(document["file"]))</code> (<code>data.\(text(document["name"]))</code>)\(items)</li>\n"
            }
            html += "</ul>\n"
        }
        html += "<h2>Actions</h2>\n<ul>\n"
        for action in index["actions"]?.arrayValue ?? [] {
            html += "<li><code>POST \(text(action["href"]))</code> — declared by \(text(action["pageID"]))</li>\n"
        }
        html += "</ul>\n<h2>Admin</h2>\n<ul>\n"
        for route in index["admin"]?.arrayValue ?? [] {
            let target =
                route["method"]?.stringValue == "GET"
                ? link(route["href"], route["href"]) : "<code>\(text(route["method"])) \(text(route["href"]))</code>"
            html += "<li>\(target) — \(text(route["summary"]))</li>\n"
        }
        html += "</ul>\n</body></html>\n"
        return html
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` escaped for HTML text and attribute values.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// `value` percent-encoded for a query component.
    static func queryEncoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? value
    }
}

extension CharacterSet {
    /// Unreserved characters (RFC 3986): all a query value needs unescaped.
    fileprivate static let urlQueryValueAllowed = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
