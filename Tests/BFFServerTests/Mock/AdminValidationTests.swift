import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// What the admin API and the mock headers refuse, as `docs/openapi.json` documents it (the findings of
/// `scripts/api-fuzz`, kept as regression tests).
@Suite struct AdminValidationTests {
    @Test(arguments: [
        "limit=-1", "limit=1.5", "limit=+1", "limit=", "limit=abc", "limit=1&limit=2", "limit=9999999999999999999",
        "after=-1", "after=x", "after=1e3",
    ])
    func journalCountsAreWholeNumbers(_ query: String) async throws {
        try await withTestApplication(configuration: mockConfiguration()) { http in
            let refused = try await http.get("/__admin/journal?\(query)")
            #expect(refused.status == 400, "\(query): \(refused.text)")
            #expect(refused.header("Content-Type") == "application/problem+json")
            #expect(try json(refused)["code"] == "invalid_query")
        }
    }

    @Test func journalCountsInRangeAreAnswered() async throws {
        try await withTestApplication(configuration: mockConfiguration()) { http in
            var statuses: [Int] = []
            for _ in 0..<3 { statuses.append(try await http.get("/healthz").status) }
            #expect(statuses == [200, 200, 200])
            func count(_ query: String) async throws -> Int? {
                try json(try await http.get("/__admin/journal?\(query)"))["entries"]?.arrayValue?.count
            }
            #expect(try await count("limit=0") == 0)
            #expect(try await count("limit=2") == 2)
            #expect(try await count("after=2&limit=007") == 1)
            #expect(try await count("limit=999999999999999999") == 3)
        }
    }

    @Test(arguments: [
        #"[null, null]"#, #""scenarios""#, #"null"#, #"{"extra": 1}"#, #"{"scenarios": {}, "extra": 1}"#,
        #"{"scenarios": []}"#, #"{"scenarios": {"cart": 1}}"#,
    ])
    func sessionBodiesOfTheWrongShapeAreRefused(_ body: String) async throws {
        try await withTestApplication(configuration: mockConfiguration()) { http in
            let refused = try await http.request(
                "PUT", "/__admin/sessions/s1", headers: [("X-Flow-Admin", "1"), ("Content-Type", "application/json")],
                body: Array(body.utf8))
            #expect(refused.status == 400, "\(body): \(refused.text)")
            #expect(try json(refused)["code"] == "invalid_request")
            #expect(try await http.get("/__admin/sessions/s1").status == 404, "nothing was created")
        }
    }

    @Test func sessionIDsAndPageKeysAreChecked() async throws {
        try await withTestApplication(configuration: mockConfiguration()) { http in
            #expect(
                try await http.request(
                    "PUT", "/__admin/sessions/s1",
                    headers: [("X-Flow-Admin", "1"), ("Content-Type", "application/json")], body: Array("{}".utf8)
                ).status == 200)
            for method in ["GET", "PUT", "DELETE"] {
                let malformed = try await http.request(
                    method, "/__admin/sessions/%C2%84",
                    headers: [("X-Flow-Admin", "1"), ("Content-Type", "application/json")], body: Array("{}".utf8))
                #expect(malformed.status == 400, "\(method)")
                #expect(try json(malformed)["code"] == "invalid_session")
            }
            let unknownPage = try await http.request(
                "PUT", "/__admin/sessions/s1", headers: [("X-Flow-Admin", "1"), ("Content-Type", "application/json")],
                body: Array(#"{"scenarios": {"nope": "empty"}}"#.utf8))
            #expect(unknownPage.status == 404)
            #expect(try json(unknownPage)["code"] == "page_not_found")
        }
    }

    @Test func aMalformedSessionIsRefusedOnEveryPageRoute() async throws {
        try await withTestApplication(configuration: mockConfiguration()) { http in
            let feed = try PageDecoder().decodePage(try await http.get("/v1/pages/feed").body).value
            let postback = try #require(feed.pagination?.postback)
            let session = [("X-Flow-Session", "bad session")]
            for response in [
                try await http.get("/v1/pages/feed", headers: session),
                try await http.get("/v1/pages/feed/next?postback=\(postback)", headers: session),
                try await http.post("/v1/pages/feed/next", json: #"{"postback": "\#(postback)"}"#, headers: session),
            ] {
                #expect(response.status == 400)
                #expect(try json(response)["code"] == "invalid_session")
            }
            #expect(try await http.get("/v1/pages/feed/next?postback=\(postback)").status == 200)
        }
    }

    @Test func anEmptyMockHeaderIsAnInvalidSpecification() async throws {
        try await withTestApplication(configuration: mockConfiguration()) { http in
            let empty = try await http.get("/v1/pages/home", headers: [("X-Flow-Mock", "")])
            #expect(empty.status == 400)
            #expect(try json(empty)["code"] == "invalid_mock_header")
            #expect(try await http.get("/v1/pages/home", headers: [("X-Flow-Mock", "none")]).status == 200)
        }
    }
}
