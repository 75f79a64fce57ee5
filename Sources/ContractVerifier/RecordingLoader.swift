import PageModel
import PageStore
import Synchronization

/// The crawl's ``PageLoader``: the real ``HTTPPageLoader``, plus a note of the latest request and, for next-page
/// requests, the latest response bytes, so the crawler can replay a postback and name the request of a violation.
///
/// Only the latest chunk's bytes are kept: memory stays bounded however long the page.
final class RecordingLoader: PageLoader {
    struct Record: Sendable {
        var lastRequest: PageRequest?
        var lastNextPageBytes: [UInt8]?
        var requests = 0
    }

    let http: HTTPPageLoader
    private let record = Mutex(Record())

    init(http: HTTPPageLoader) {
        self.http = http
    }

    func load(_ request: PageRequest) async throws -> [UInt8] {
        record.withLock {
            $0.lastRequest = request
            $0.lastNextPageBytes = nil
            $0.requests += 1
        }
        let bytes = try await http.load(request)
        if case .nextPage = request.kind { record.withLock { $0.lastNextPageBytes = bytes } }
        return bytes
    }

    /// The bytes of the latest next-page response, taken (not kept).
    func takeNextPageBytes() -> [UInt8]? {
        record.withLock { record in
            defer { record.lastNextPageBytes = nil }
            return record.lastNextPageBytes
        }
    }

    var requests: Int { record.withLock { $0.requests } }

    /// The latest request sent.
    var lastRequest: PageRequest? { record.withLock { $0.lastRequest } }

    /// `METHOD /path?query` of `request`, as the HTTP loader sends it.
    func describe(_ request: PageRequest) -> String {
        let urlRequest = http.urlRequest(for: request)
        return HTTPProbe.describe(urlRequest)
    }
}
