/// The routes of the wire contract (docs/contract.md), one definition for the server's router, the device's
/// HTTP loader and the contract verifier.
public struct ContractRoute: Sendable, Hashable, CustomStringConvertible {
    /// The route's name in metrics and the access log (`page`, `nextPage`, `action`, …).
    public let name: String
    /// The path pattern, `{parameter}` segments capturing one path segment.
    public let template: String

    public var description: String { template }

    /// `GET /v1/pages/{pageID}` — a page's first chunk; the query holds page parameters.
    public static let page = ContractRoute(name: "page", template: "/v1/pages/{pageID}")
    /// `GET /v1/pages/{pageID}/next?postback=…` or `POST` with `{"postback": …}` — the next chunk.
    public static let nextPage = ContractRoute(name: "nextPage", template: "/v1/pages/{pageID}/next")
    /// `GET /v1/pages` — the page index (optional in the contract): `{"pages": [id…], "scenarios"?: {id: [name…]}}`.
    public static let pageIndex = ContractRoute(name: "pageIndex", template: "/v1/pages")
    /// `POST /v1/actions/{name}` — an api action.
    public static let action = ContractRoute(name: "action", template: "/v1/actions/{name}")
    /// The operational routes.
    public static let healthz = ContractRoute(name: "healthz", template: "/healthz")
    public static let readyz = ContractRoute(name: "readyz", template: "/readyz")
    public static let metrics = ContractRoute(name: "metrics", template: "/metrics")
    public static let openAPI = ContractRoute(name: "openapi", template: "/openapi.json")

    /// Every public route, for "did you mean" hints.
    public static let all: [ContractRoute] = [pageIndex, page, nextPage, action, healthz, readyz, metrics, openAPI]

    /// The path of this route with `parameters` substituted, each percent-encoded as one path segment.
    /// - Precondition: every `{name}` of the template has a value.
    public func path(_ parameters: [String: String] = [:]) -> String {
        var path = ""
        for segment in template.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            path += "/"
            if segment.hasPrefix("{"), segment.hasSuffix("}") {
                let key = String(segment.dropFirst().dropLast())
                guard let value = parameters[key] else { preconditionFailure("no value for {\(key)} in \(template)") }
                path += Self.percentEncodedSegment(value)
            } else {
                path += segment
            }
        }
        return path
    }

    /// `value` with everything but RFC 3986 unreserved characters percent-encoded.
    public static func percentEncodedSegment(_ value: String) -> String {
        var output = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                output += "%"
                output.unicodeScalars.append(digits[Int(byte >> 4)])
                output.unicodeScalars.append(digits[Int(byte & 0xF)])
            }
        }
        return output
    }
}
