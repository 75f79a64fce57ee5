// product-page-example: flow-bff serving the bundled pages plus a page composed in Swift from two upstream JSON
// services and an "Add to cart" action answered in Swift through a cart service. Without --catalog/--reviews/--cart
// it starts demo upstreams on loopback.
//
//   swift run product-page-example [--catalog URL] [--reviews URL] [--cart URL] [--port 8080] [--pages pages]
//   curl -s 'localhost:8080/v1/pages/product-live?productID=p-2210'
import BFFServer
import Foundation
import HTTPCore
import PageModel
import ProductPageExample

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard flag.hasPrefix("--"), let value = arguments.popFirst() else {
        FileHandle.standardError.write(
            Data(
                "usage: product-page-example [--catalog URL] [--reviews URL] [--cart URL] [--port N] [--pages DIR]\n"
                    .utf8))
        exit(2)
    }
    options[String(flag.dropFirst(2))] = value
}

var demo: DemoUpstreams?
if options["catalog"] == nil || options["reviews"] == nil {
    let upstreams = DemoUpstreams()
    do { try upstreams.start() } catch {
        FileHandle.standardError.write(Data("cannot start demo upstreams: \(error)\n".utf8))
        exit(1)
    }
    demo = upstreams
}
// FLOW_BFF_* and the OpenTelemetry variables (OTEL_EXPORTER_OTLP_ENDPOINT turns tracing on, docs/operations.md).
var configuration: BFFConfiguration
do {
    configuration = try ConfigurationLoader().load(files: [], environment: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("configuration: \(error)\n".utf8))
    exit(2)
}
configuration.server.port = Int(options["port"] ?? "8080") ?? 8080
configuration.pages.directory = options["pages"] ?? "pages"
let service: BFFService
do {
    service = try makeServer(configuration: configuration)
    let provider = ProductPageProvider(
        catalogURL: options["catalog"] ?? demo!.catalogURL, reviewsURL: options["reviews"] ?? demo!.reviewsURL,
        metrics: service.application.providers.upstreamMetrics)
    provider.register(on: service.application)
    CartActions(cartURL: options["cart"] ?? demo!.cartURL, metrics: service.application.providers.upstreamMetrics)
        .register(on: service.application)
    try service.start()
} catch {
    FileHandle.standardError.write(Data("cannot start: \(error)\n".utf8))
    exit(1)
}
print("serving \(service.baseURL)\(ContractRoute.page.path(["pageID": ProductPageProvider.pageID]))?productID=p-2210")
service.server.installSignalHandlers(drainTimeout: .seconds(2)) { _ in service.application.setReady(false) }
service.waitUntilStopped()
demo?.shutdown()
