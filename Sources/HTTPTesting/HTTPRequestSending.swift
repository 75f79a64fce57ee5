/// What a test sends requests with: a connection to a live server (``HTTPTestClient``) or a responder called
/// directly (``HTTPResponderClient``). Helpers take `some HTTPRequestSending` and work with both.
public protocol HTTPRequestSending: Sendable {
    func request(_ method: String, _ target: String, headers: [(String, String)], body: [UInt8]?) async throws
        -> HTTPTestClient.Response
}

extension HTTPRequestSending {
    public func get(_ target: String, headers: [(String, String)] = []) async throws -> HTTPTestClient.Response {
        try await request("GET", target, headers: headers, body: nil)
    }

    public func post(_ target: String, json: String, headers: [(String, String)] = []) async throws
        -> HTTPTestClient.Response
    {
        try await request(
            "POST", target, headers: [("Content-Type", "application/json")] + headers, body: Array(json.utf8))
    }

    public func request(_ method: String, _ target: String, headers: [(String, String)] = []) async throws
        -> HTTPTestClient.Response
    {
        try await request(method, target, headers: headers, body: nil)
    }
}

extension HTTPTestClient: HTTPRequestSending {}
extension HTTPResponderClient: HTTPRequestSending {}
