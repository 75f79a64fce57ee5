import Testing

@testable import BFFServer

/// `host[:port]` of a `Host` field or a peer address: what `server.address`/`server.port` and `client.address`
/// say on a server span, and `server.*` on an upstream call's client span.
@Suite struct AuthorityTests {
    @Test(
        arguments: [
            ("example.com", "example.com", nil),
            ("example.com:8080", "example.com", 8080),
            ("127.0.0.1:54321", "127.0.0.1", 54321),
            ("[::1]:8080", "::1", 8080),
            ("[2001:db8::1]", "2001:db8::1", nil),
            ("::1", "::1", nil),  // an IPv6 address without brackets has no port
            ("host:", "host", nil),
            ("host:http", "host", nil),
            ("host:65536", "host", nil),
            ("host:0080", "host", 80),
        ] as [(String, String, Int?)])
    func splitsHostAndPort(text: String, host: String, port: Int?) throws {
        let authority = try #require(Authority(text))
        #expect(authority.host == host)
        #expect(authority.port == port)
    }

    @Test func emptyOrUnclosedIsNoAuthority() {
        #expect(Authority("") == nil)
        #expect(Authority("[::1") == nil)
    }

    @Test func anUpstreamURLsAuthorityDefaultsToTheSchemesPort() throws {
        let plain = try #require(UpstreamClient.authority(of: "http://catalog.internal/v1/items?id=1"))
        #expect(plain.host == "catalog.internal" && plain.port == 80)
        let tls = try #require(UpstreamClient.authority(of: "https://[::1]:9443/x"))
        #expect(tls.host == "::1" && tls.port == 9443)
    }
}
