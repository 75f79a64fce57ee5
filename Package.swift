// swift-tools-version: 6.2
// flow-bff — a Swift backend-for-frontend for server-driven UI.
// Arrows point down: flow-bff → BFFServer → HTTPCore / PageModel; PageStore → PageModel;
// BFFTesting → BFFServer, HTTPTesting → HTTPCore (so HTTPCoreTests use the test client without the application).
import PackageDescription

let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error), .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "flow-bff",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .executable(name: "flow-bff", targets: ["flow-bff"]),
        .library(name: "PageModel", targets: ["PageModel"]),
        .library(name: "HTTPCore", targets: ["HTTPCore"]),
        .library(name: "BFFServer", targets: ["BFFServer"]),
        .library(name: "BFFRedis", targets: ["BFFRedis"]),
        .library(name: "PageStore", targets: ["PageStore"]),
        .library(name: "HTTPTesting", targets: ["HTTPTesting"]),
        .library(name: "BFFTesting", targets: ["BFFTesting"]),
        .library(name: "ContractVerifier", targets: ["ContractVerifier"]),
    ],
    targets: [
        // System libraries (Debian: zlib1g-dev, libssl-dev, libcurl4-openssl-dev).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // Linux calls the Glibc module does not export (epoll, eventfd, sendfile, accept4, memfd_create, …).
        .target(name: "CLinux"),

        // The wire contract: Codable value types, lenient decoding, ids, mutations, lint. No I/O.
        .target(
            name: "PageModel", swiftSettings: strict, linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        // HTTP/1.1 (and TLS, on libssl) over sockets and Dispatch, and the upstream client on libcurl. Knows nothing
        // about pages.
        .target(
            name: "HTTPCore",
            dependencies: [
                "CZlib", "CCurl", "CCrypto", .target(name: "CLinux", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strict),
        // The application: catalog, routes, pagination, actions, mock features.
        .target(
            name: "BFFServer", dependencies: ["HTTPCore", "PageModel", "CCrypto"], exclude: ["Preview/web"],
            swiftSettings: strict, plugins: ["EmbedFiles"]),
        // Compiles docs/openapi.json and the preview's web files into BFFServer (scripts/embed-files).
        .plugin(name: "EmbedFiles", capability: .buildTool()),
        // The Redis client and the shared Idempotency-Key store it backs (injected into makeServer).
        .target(name: "BFFRedis", dependencies: ["BFFServer", "HTTPCore", "PageModel"], swiftSettings: strict),
        // The embedded, headless device client. Never imports the server.
        .target(name: "PageStore", dependencies: ["PageModel"], swiftSettings: strict),
        // The contract-test crawler: drives any server through PageStore over HTTP. Never imports the server.
        .target(name: "ContractVerifier", dependencies: ["PageStore", "PageModel"], swiftSettings: strict),
        // Socket test kit: the one test HTTP client (blocking calls on its own threads), events to await.
        .target(name: "HTTPTesting", dependencies: ["HTTPCore", "CCrypto"], swiftSettings: strict),
        // Test kit: servers on ephemeral loopback ports, fixtures.
        .target(
            name: "BFFTesting", dependencies: ["BFFServer", "BFFRedis", "HTTPCore", "HTTPTesting", "PageModel"],
            swiftSettings: strict),
        // The thin command-line executable.
        .executableTarget(
            name: "flow-bff",
            dependencies: ["BFFServer", "BFFRedis", "HTTPCore", "PageStore", "PageModel", "ContractVerifier"],
            swiftSettings: strict),

        // Example: a page composed from two upstream JSON services (Sources/ProductPageExample).
        .target(
            name: "ProductPageExample", dependencies: ["BFFServer", "HTTPCore", "PageModel"], swiftSettings: strict),
        .executableTarget(
            name: "product-page-example", dependencies: ["ProductPageExample", "BFFServer", "PageModel"],
            swiftSettings: strict),

        // Benchmark executables (see bench/README.md).
        .executableTarget(
            name: "bench-codec", dependencies: ["PageModel"], path: "bench/codec/Sources", swiftSettings: strict),
        .executableTarget(
            name: "bench-http", dependencies: ["HTTPCore"], path: "bench/http/Sources", swiftSettings: strict),

        .testTarget(
            name: "PageModelTests", dependencies: ["PageModel"], exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "HTTPCoreTests", dependencies: ["HTTPCore", "HTTPTesting", "CZlib"], swiftSettings: strict),
        .testTarget(
            name: "BFFServerTests", dependencies: ["BFFServer", "BFFRedis", "BFFTesting", "HTTPTesting"],
            exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "PageStoreTests", dependencies: ["PageStore", "PageModel", "HTTPCore", "HTTPTesting"],
            swiftSettings: strict),
        .testTarget(
            name: "FlowBFFCommandTests", dependencies: ["flow-bff", "ContractVerifier"], swiftSettings: strict),
        .testTarget(
            name: "ProductPageExampleTests",
            dependencies: [
                "ProductPageExample", "BFFServer", "BFFTesting", "HTTPCore", "HTTPTesting", "PageModel",
                "ContractVerifier",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "ContractTests",
            dependencies: [
                "PageModel", "PageStore", "BFFServer", "BFFTesting", "HTTPCore", "HTTPTesting", "ContractVerifier",
            ],
            exclude: ["BrokenServers", "CapabilityServers", "LegalServers"], swiftSettings: strict),

        // libFuzzer targets (docs/fuzzing.md): `scripts/fuzz` builds them into .build/fuzz with libFuzzer and
        // AddressSanitizer; in a normal build each one replays the saved inputs given as arguments.
        .target(name: "FuzzSupport", dependencies: ["HTTPCore"], path: "Tests/Fuzz/FuzzSupport", swiftSettings: strict),
        fuzzTarget("http-parser"), fuzzTarget("cursor"), fuzzTarget("page-decoder"), fuzzTarget("config-headers"),
        fuzzTarget("http-over-tls"),
    ]
)

/// The executable of one fuzz target, `Tests/Fuzz/fuzz-<name>`.
func fuzzTarget(_ name: String) -> Target {
    .executableTarget(
        name: "fuzz-\(name)", dependencies: ["FuzzSupport", "HTTPCore", "PageModel", "BFFServer", "CCrypto"],
        path: "Tests/Fuzz/fuzz-\(name)", swiftSettings: strict)
}
