import HTTPCore

/// The OpenAPI 3.1 description of the routes, served at `/openapi.json` and kept in the repository as
/// `docs/openapi.json` (a test keeps the two identical).
enum OpenAPIDocument {
    static let prepared = PreparedBody(Array(text.utf8), contentType: "application/json")

    static let text = #"{"openapi":"3.1.0"}"#
}
