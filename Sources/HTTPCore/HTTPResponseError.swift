/// An error that renders its own response. Throw one from a handler (or fail a ``HTTPPromise`` with one) and the
/// server answers with ``makeResponse()``; any other error thrown by a handler is logged and answered with a generic
/// 500 that reveals nothing internal.
public protocol HTTPResponseConvertible: Error {
    /// The response this error is answered with.
    func makeResponse() -> HTTPResponse
}

/// An error that knows the HTTP response it maps to, rendered as `application/problem+json` (RFC 9457): the body
/// is `{"type","title","status","detail","code"}`.
public protocol HTTPResponseError: HTTPResponseConvertible {
    var status: HTTPStatus { get }
    /// A stable, machine-readable code such as `"page_not_found"`.
    var code: String { get }
    /// Short human-readable summary; defaults to the status reason phrase.
    var title: String { get }
    /// Human-readable explanation of this occurrence; defaults to empty (omitted).
    var detail: String { get }
    /// Problem type URI; defaults to `"about:blank"`.
    var type: String { get }
    /// Extra response headers (e.g. `Allow` for 405, `Retry-After`).
    var headers: HTTPFields { get }
}

extension HTTPResponseError {
    public var title: String { status.reasonPhrase }
    public var detail: String { "" }
    public var type: String { "about:blank" }
    public var headers: HTTPFields { HTTPFields() }

    /// The problem+json response for this error.
    public func makeResponse() -> HTTPResponse {
        var json = "{\"type\":"
        JSONString.append(type, to: &json)
        json += ",\"title\":"
        JSONString.append(title, to: &json)
        json += ",\"status\":\(status.code)"
        if !detail.isEmpty {
            json += ",\"detail\":"
            JSONString.append(detail, to: &json)
        }
        json += ",\"code\":"
        JSONString.append(code, to: &json)
        json += "}"
        var fields = headers
        fields.set("Content-Type", "application/problem+json")
        return HTTPResponse(status: status, headers: fields, body: .bytes(Array(json.utf8)))
    }
}

/// A ready-made ``HTTPResponseError``.
public struct HTTPError: HTTPResponseError, Sendable, Equatable {
    public var status: HTTPStatus
    public var code: String
    public var title: String
    public var detail: String
    public var headers: HTTPFields

    public init(
        _ status: HTTPStatus, code: String, title: String? = nil, detail: String = "", headers: HTTPFields = [:]
    ) {
        self.status = status
        self.code = code
        self.title = title ?? status.reasonPhrase
        self.detail = detail
        self.headers = headers
    }

    public static func notFound(_ detail: String = "") -> HTTPError {
        HTTPError(.notFound, code: "not_found", detail: detail)
    }

    public static func badRequest(code: String = "bad_request", _ detail: String = "") -> HTTPError {
        HTTPError(.badRequest, code: code, detail: detail)
    }

    /// 503 `too_many_connections` with `Connection: close`: the answer to a connection over the limit.
    public static let tooManyConnections = HTTPError(
        .serviceUnavailable, code: "too_many_connections", headers: ["Connection": "close"])

    /// The generic 500 used for errors that are not ``HTTPResponseError``s.
    public static let genericInternal = HTTPError(.internalServerError, code: "internal_error")
}

enum JSONString {
    static func append(_ string: String, to output: inout String) {
        output.append("\"")
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output.append("\\\"")
            case "\\": output.append("\\\\")
            case "\n": output.append("\\n")
            case "\r": output.append("\\r")
            case "\t": output.append("\\t")
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: output.unicodeScalars.append(scalar)
            }
        }
        output.append("\"")
    }
}
