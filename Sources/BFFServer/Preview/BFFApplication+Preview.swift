import Foundation
import HTTPCore
import PageModel

/// The browser preview (docs/preview.md): static HTML, CSS and JavaScript compiled into the binary
/// (``PreviewAssets``) and one JSON index. The page itself is drawn by the browser from the public routes
/// (`/v1/pages/…`, `/v1/actions/…`), the same pipeline a device uses; nothing here renders a page.
extension BFFApplication {
    /// The path prefix of every preview route.
    static let previewPrefix = "/__preview"

    /// `GET /__preview`, `/__preview/` and `/__preview/{asset}` (served when ``BFFConfiguration/servesPreview``,
    /// PreviewResponder.swift).
    func makePreviewRouter() -> ContextRouter<RequestContext> {
        var router = ContextRouter<RequestContext>()
        let hosts = HostPolicy(allowedHosts: configuration.mock.allowedHosts)
        let index = route("preview.index") { request, _ in
            try hosts.check(request)
            return .now(Self.previewAsset("index.html")!)
        }
        router.get(Self.previewPrefix, index)
        router.get(Self.previewPrefix + "/", index)
        router.get(
            Self.previewPrefix + "/{asset}",
            route("preview.asset") { request, _ in
                try hosts.check(request)
                let name = request.pathParameters["asset"] ?? ""
                if name == "catalog.json" { return .now(self.previewCatalog()) }
                if name == "events" { return .now(self.previewEvents()) }
                guard let response = Self.previewAsset(name) else {
                    throw ProblemDetails(
                        .unknownPreviewAsset,
                        detail:
                            "The preview has no file \"\(name)\"; it serves \((PreviewAssets.files.keys.sorted() + ["catalog.json", "events"]).joined(separator: ", "))."
                    )
                }
                return .now(response)
            })
        return router
    }

    /// `GET /__preview/events`: server-sent events, one `reload` event (with the reload count) per reload of the
    /// pages directory, the current count first (``ReloadEvents``).
    func previewEvents() -> HTTPResponse {
        let events = reload.events
        return HTTPResponse(
            headers: [
                "Content-Type": "text/event-stream", "Cache-Control": "no-store",
                // nginx and similar proxies would otherwise buffer the stream.
                "X-Accel-Buffering": "no",
            ],
            body: .stream { writer in events.open(writer) })
    }

    /// One compiled-in file, or `nil` for an unknown name.
    static func previewAsset(_ name: String) -> HTTPResponse? {
        guard let file = PreviewAssets.files[name] else { return nil }
        let type =
            switch name.split(separator: ".").last {
            case "html": "text/html; charset=utf-8"
            case "css": "text/css; charset=utf-8"
            default: "text/javascript; charset=utf-8"
            }
        var headers: HTTPFields = ["Cache-Control": "no-cache"]
        BrowserHardening.apply(to: &headers, policy: name.hasSuffix(".html") ? BrowserHardening.previewPolicy : nil)
        return .bytes(Array(file.utf8), contentType: type, headers: headers)
    }

    /// `GET /__preview/catalog.json`: what the preview's index and menus list — every page (file and provider)
    /// with its scenarios (and, made per data item, sample parameters), the data documents, the capability
    /// profiles, and whether the mock backend (journal, live reload) is on.
    func previewCatalog() -> HTTPResponse {
        let catalog = self.catalog
        var pages: [JSONValue] = []
        let providerIDs = Set(providers.pageIDs)
        for id in Set(catalog.pageIDs).union(providerIDs).sorted() {
            let scenarios = catalog.scenarios[id]?.keys.sorted() ?? []
            var page = JSONObject()
            page["id"] = .string(id)
            page["source"] = .string(providerIDs.contains(id) ? "provider" : "file")
            page["scenarios"] = .array(scenarios.map { .string($0) })
            // A page made per data item is opened with a sample of its parameters (it has no page without one).
            if let samples = catalog.sampleParameters(of: id) {
                page["parameters"] = .array(
                    samples.map { sample in
                        .object(
                            JSONObject(sample.sorted { $0.key < $1.key }.map { .init(key: $0, value: .string($1)) }))
                    })
            }
            pages.append(.object(page))
        }
        // The data documents page templates read (pages/data/), with their item counts.
        let data: [JSONValue] = catalog.data.names.map { name in
            let count = catalog.data.documents[name]?.arrayValue.map { JSONValue.number(Double($0.count)) } ?? .null
            return ["name": .string(name), "items": count]
        }
        var profiles: [JSONValue] = []
        if let data = FileManager.default.contents(atPath: configuration.preview.profiles),
            let loaded = try? CapabilityProfile.load(Array(data))
        {
            profiles = loaded.map {
                ["name": .string($0.name), "description": .string($0.summary), "header": .string($0.header)]
            }
        }
        let body: JSONValue = [
            "mock": .bool(configuration.mock.enabled),
            "catalogVersion": .string(catalog.version),
            "widgetTypes": .array(WidgetCatalog.standard.types.map { .string($0) }),
            "pages": .array(pages),
            "data": .array(data),
            "profiles": .array(profiles),
        ]
        return .json(
            JSONWriter().write(body), headers: ["Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"])
    }
}
