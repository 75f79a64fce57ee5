import Foundation
import PageModel

extension BFFConfiguration {
    /// The proxy in front of a real backend (docs/proxy.md): page, next-page and action requests that no local page
    /// file, provider or declared answer serves are forwarded to ``upstream``; a local file wins ("map local").
    /// Off while ``upstream`` is empty.
    public struct Proxy: Sendable, Hashable {
        public init() {}

        /// The backend's base URL, `http` or `https` (`serve --upstream URL`), e.g. `https://staging.example.com`;
        /// request targets are appended to it, nothing else is ever reached. Empty: no proxy. Default empty.
        public var upstream = ""
        /// Route patterns (`[METHOD ]/path*`, as in `mock.faults`) that may be forwarded. Default `["/v1/*"]`.
        public var include = ["/v1/*"]
        /// Route patterns never forwarded, checked before ``include``. Default none.
        public var exclude: [String] = []
        /// Seconds one forwarded request may take, every attempt included, connect to last byte. Default 10.
        public var timeoutSeconds = 10.0
        /// Requests forwarded at once; more wait their turn. Default 64.
        public var maximumConcurrentRequests = 64
        /// Where each page and action answer forwarded is written as a page file (`serve --record DIR`): a page's
        /// chunks are followed to the end and merged. Empty: nothing recorded. Default empty.
        public var recordDirectory = ""
        /// Member names whose string values a recording replaces with `[redacted]` (in addition to the defaults
        /// of ``RecordingRules``). Default none.
        public var recordRedactKeys: [String] = []
        /// Member names whose values a recording replaces with `<normalized>` (volatile values: a cart id, a
        /// session token that is not a secret), in addition to the defaults of ``RecordingRules``. Default none.
        public var recordNormalizeKeys: [String] = []

        /// Whether requests are forwarded at all.
        public var isEnabled: Bool { !upstream.isEmpty }
    }
}

extension ConfigurationKey {
    /// The `proxy.*` keys, appended to ``all``.
    static let proxyKeys: [ConfigurationKey] = [
        ConfigurationKey(
            path: "proxy.upstream", type: .string, defaultValue: "(none: no proxy)",
            summary: "The real backend page, next-page and action requests without a local answer are forwarded to."
        ) { (configuration, value) throws(ConfigurationError) in
            guard case .string(let url) = value else { throw .wrongType("proxy.upstream", .string, value) }
            if let problem = ProxyTarget.problem(baseURL: url) {
                throw ConfigurationError(code: "invalid_value", key: "proxy.upstream", message: problem)
            }
            configuration.proxy.upstream = url
            configuration.pages.referencesMayBeRemote = !url.isEmpty
        },
        .stringList(
            "proxy.include", "Route patterns (`[METHOD ]/path*`) that may be forwarded.", defaultValue: "[\"/v1/*\"]",
            message: "each entry is a route pattern [METHOD ]/path*", isValid: ProxyTarget.isValidPattern
        ) { $0.proxy.include = $1 },
        .stringList(
            "proxy.exclude", "Route patterns never forwarded (checked first).", defaultValue: "[]",
            message: "each entry is a route pattern [METHOD ]/path*", isValid: ProxyTarget.isValidPattern
        ) { $0.proxy.exclude = $1 },
        .seconds("proxy.timeoutSeconds", 10, "Seconds one forwarded request may take, every attempt included.") {
            $0.proxy.timeoutSeconds = $1
        },
        .integer("proxy.maximumConcurrentRequests", 64, 1...4_096, "Requests forwarded at once; more wait.") {
            $0.proxy.maximumConcurrentRequests = $1
        },
        .string(
            "proxy.recordDirectory", "(none)",
            "Writes each forwarded page (chunks followed and merged) and action answer as page files here."
        ) { $0.proxy.recordDirectory = $1 },
        .stringList(
            "proxy.recordRedactKeys", "Member names whose string values recordings replace with `[redacted]`.",
            defaultValue: "[]"
        ) { $0.proxy.recordRedactKeys = $1 },
        .stringList(
            "proxy.recordNormalizeKeys",
            "Member names whose values recordings replace with `<normalized>` (volatile values).", defaultValue: "[]"
        ) { $0.proxy.recordNormalizeKeys = $1 },
    ]
}
