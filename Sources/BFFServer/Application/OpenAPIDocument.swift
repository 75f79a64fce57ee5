import HTTPCore

/// The OpenAPI 3.1 description of the routes, served at `/openapi.json`: docs/openapi.json as it is, compiled in by
/// the EmbedFiles build plugin.
enum OpenAPIDocument {
    static let prepared = PreparedBody(Array(EmbeddedFiles.openapiJSON.utf8), contentType: "application/json")
}
