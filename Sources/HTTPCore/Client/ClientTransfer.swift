import CCurl
import Synchronization

/// One request in flight on an ``HTTPClientLoop``: what to send, what came back so far, and the task waiting for
/// it (or the callback, ``HTTPClient/start(_:completion:)``). Created by the caller; from
/// ``HTTPClientLoop/submit(_:)`` on, touched only on the loop (except ``isCancelled``), and finished exactly once.
// @unchecked Sendable: handed to the loop through its inbox Mutex and confined to it from then on.
final class ClientTransfer: @unchecked Sendable {
    let request: HTTPClientRequest
    let maximumBytes: Int
    var continuation: UnsafeContinuation<Result<HTTPClientResponse, HTTPClientError>, Never>?
    /// Called instead of resuming a task, on the loop (``HTTPClient/start(_:completion:)``).
    var completion: (@Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void)?
    /// The loop the transfer was submitted to, where it runs (set before it is submitted).
    var loop: HTTPClientLoop?
    private let cancelled = Atomic<Bool>(false)

    // Loop state.
    var easy: CurlEasy?
    var headerList: UnsafeMutablePointer<curl_slist>?
    var headerBytes: [UInt8] = []
    var body: [UInt8] = []
    var tooLarge = false
    var finished = false

    init(_ request: HTTPClientRequest, maximumBytes: Int) {
        self.request = request
        self.maximumBytes = maximumBytes
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() { cancelled.store(true, ordering: .releasing) }

    /// Resumes the waiting task with `result`, or calls the completion (once; later calls are ignored).
    func finish(_ result: Result<HTTPClientResponse, HTTPClientError>) {
        guard !finished else { return }
        finished = true
        if let headerList {
            curl_slist_free_all(headerList)
            self.headerList = nil
        }
        let continuation = self.continuation
        self.continuation = nil
        continuation?.resume(returning: result)
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }

    /// Body bytes from libcurl (already decoded); `false` stops the transfer when the limit is passed.
    func received(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= maximumBytes else {
            tooLarge = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// A header line from libcurl. A status line starts a new response (after `100 Continue`, or a redirect's
    /// answer), so only the final response's fields are kept.
    func receivedHeader(_ line: UnsafeRawBufferPointer) {
        if line.count > 5, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"), line[2] == UInt8(ascii: "T"),
            line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/")
        {
            headerBytes.removeAll(keepingCapacity: true)
            return
        }
        headerBytes.append(contentsOf: line)
    }
}

/// A libcurl easy handle and its error buffer, reused across transfers (``HTTPClientLoop`` keeps a few).
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// Whether the loop's shared options are set (``HTTPClientLoop`` sets them once, on first use).
    var prepared = false

    init?() {
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// libcurl's detail for the last failure (the error buffer), or the code's generic text.
    func message(for code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    }
}
