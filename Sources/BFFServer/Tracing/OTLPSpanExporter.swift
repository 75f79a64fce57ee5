import Dispatch
import HTTPCore
import PageModel
import Synchronization

/// The batching span processor and OTLP/HTTP exporter: ``record(_:lane:)`` (on the event loops) encodes the span —
/// once, while it is still in the cache — straight into the open batch of the loop it ended on, under that loop's
/// own lock (spans ending in tasks share one more). A batch that fills is handed to the HTTP client's own loop
/// (``HTTPClient/start(_:completion:)``, libcurl on a thread of its own, never on the server's loops) and sent from
/// where it was written: the request's envelope is written in room the batch kept in front of its spans, and
/// libcurl reads the bytes in place. One export is in flight at a time; the next full batch starts when it ends,
/// on the client's thread. A timer sends the open batches every `scheduleDelaySeconds`. No span is kept as a value
/// after it ended, no task waits on an export, and no batch is copied on its way out.
///
/// A full queue drops the span (`flow_bff_trace_spans_dropped_total{reason="queue_full"}`). An export that fails
/// transiently — the collector answers 429, 502, 503 or 504, or cannot be reached in time — is retried up to
/// ``maximumRetries`` times after 1, 2 and 4 s (OTLP/HTTP's "retryable" answers; spans keep queueing meanwhile, within
/// the queue's bound); one that still fails, or fails otherwise, drops its batch (`reason="export_failed"`) and is
/// logged at most once per minute. Nothing is fatal. ``shutdown()`` exports what is left, without retries.
public final class OTLPSpanExporter: SpanSink {
    struct State {
        /// Full batches waiting for their export, oldest first.
        var full: [SpanBatch] = []
        /// Whether an export is in flight or waiting for its retry (one at a time). Set whenever `full` is not empty.
        var exporting = false
        var exported: UInt64 = 0
        var droppedFailed: UInt64 = 0
        var lastFailureLog: ContinuousClock.Instant?
        var suppressedFailures = 0
        /// Callers of ``flush()`` waiting until nothing is queued or in flight.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let configuration: BFFConfiguration.Tracing
    let encoder: OTLPTraceEncoder
    let client: HTTPClient
    /// The endpoint's URL, and the fields every export sends (the configured headers, `Content-Type`).
    let url: String
    let fields: [(name: String, value: String)]
    let timeout: Duration
    let log: Logger
    private let state = Mutex(State())
    /// The open batches: `lanes[0]` for spans that end off the event loops, `lanes[1 + i]` for loop `i` (modulo
    /// their number).
    private let lanes: [Lane]
    /// Spans in the open, full and exporting batches: what the queue bound counts.
    private let queued = Atomic<Int>(0)
    /// Spans dropped because the queue was full: counted without a lock, as a loop may drop one per request.
    private let droppedFull = Atomic<UInt64>(0)
    private let ticker = Mutex<Task<Void, Never>?>(nil)
    /// Set by ``shutdown()``: a failed export is not retried any more.
    private let stopping = Atomic<Bool>(false)
    /// Retries of a transiently failed export at most.
    static let maximumRetries = 3
    /// The wait before the first retry, doubled for each further one.
    let retryBackoff: Duration

    /// - Parameters:
    ///   - configuration: endpoint, headers, protocol, queue and batch sizes, delays (``BFFConfiguration/Tracing``).
    ///   - log: where export failures are reported.
    ///   - client: the HTTP client exports go through (on its own loop). Default the process's shared one.
    ///   - retryBackoff: the wait before the first retry of a transiently failed export. Default 1 s.
    /// - Precondition: `configuration.endpoint` is an `http(s)://` URL (the configuration loader checks it).
    public init(
        configuration: BFFConfiguration.Tracing, log: Logger, client: HTTPClient = .shared,
        retryBackoff: Duration = .seconds(1)
    ) {
        guard let endpoint = OTLPEndpoint(configuration.endpoint) else {
            preconditionFailure("tracing.endpoint is checked when loaded")
        }
        self.configuration = configuration
        self.retryBackoff = retryBackoff
        let encoder = OTLPTraceEncoder(
            serviceName: configuration.serviceName,
            serviceVersion: configuration.serviceVersion.isEmpty ? BuildInfo.version : configuration.serviceVersion)
        self.encoder = encoder
        self.client = client
        url = endpoint.base + endpoint.path
        timeout = .milliseconds(Int(configuration.exportTimeoutSeconds * 1000))
        var headers: [String: String] = [:]
        for entry in configuration.headers {
            if let (name, value) = OpenTelemetryEnvironment.header(entry) { headers[name] = value }
        }
        headers["Content-Type"] = OTLPTraceEncoder.contentType(configuration.exportProtocol)
        fields = headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        self.log = log
        lanes = (0...Platform.availableCPUs).map { _ in Lane(Self.emptyBatch(configuration, encoder)) }
        let delay = Duration.milliseconds(Int(configuration.scheduleDelaySeconds * 1000))
        ticker.withLock {
            $0 = Task.detached { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: delay)
                    guard let self, !Task.isCancelled else { return }
                    self.closeOpenBatches()
                }
            }
        }
    }

    deinit { ticker.withLock { $0 }?.cancel() }

    /// An open batch of spans and its lock.
    private final class Lane: Sendable {
        let open: Mutex<OpenBatch>

        init(_ batch: consuming ProtobufWriter) { open = Mutex(OpenBatch(spans: batch)) }
    }

    /// The batch spans are encoded into (``OTLPTraceEncoder/encodeSpan(_:as:into:)``, after the room its request's
    /// envelope is written in), and how many it holds.
    private struct OpenBatch: ~Copyable {
        var spans: ProtobufWriter
        var count = 0
        /// The lane's last server span's repeating part (kept from batch to batch).
        var template: ServerSpanTemplate?
    }

    /// An empty batch: room for its spans (~400 bytes each in protobuf) after the room for its envelope.
    private static func emptyBatch(_ configuration: BFFConfiguration.Tracing, _ encoder: OTLPTraceEncoder)
        -> ProtobufWriter
    {
        ProtobufWriter(
            capacity: configuration.batchSize * 400, headroom: encoder.headroom(configuration.exportProtocol))
    }

    /// Makes a lane's open batch a request body (``SpanBatch``) and opens an empty one; called under its lock.
    private func close(_ open: inout OpenBatch) -> SpanBatch {
        var full = Self.emptyBatch(configuration, encoder)
        swap(&full, &open.spans)
        defer { open.count = 0 }
        let start = encoder.finishRequest(&full, as: configuration.exportProtocol)
        return SpanBatch(body: full, from: start, count: open.count)
    }

    /// Encodes `span` into the open batch of `lane` (the event loop it ended on; `nil` off the loops), or counts it
    /// dropped when the queue is full. Never blocks on I/O; the lock it takes is its loop's own.
    func record(_ span: SpanData, lane: Int?) {
        let format = configuration.exportProtocol
        enqueue(lane: lane) { encoder.encodeSpan(span, as: format, into: &$0.spans) }
    }

    /// A server span, encoded from its access entry (``OTLPTraceEncoder/encodeServerSpan(_:method:version:requestHeaders:peer:status:route:start:end:template:into:)``)
    /// into the batch of the loop it ended on; in JSON, as a record.
    func recordServer(
        _ span: Span, _ entry: borrowing HTTPAccessLogEntry, route: ServerRoute?, start: UInt64, end: UInt64
    ) {
        guard configuration.exportProtocol == .httpProtobuf else {
            return record(span.serverData(entry, route: route, start: start, end: end), lane: entry.loop)
        }
        // The closure captures the fields it needs, not the entry: capturing that copies it (a dozen references).
        let (method, version, status) = (entry.method, entry.version, entry.status)
        let (headers, peer) = (entry.requestHeaders, entry.remoteAddress)
        enqueue(lane: entry.loop) { open in
            encoder.encodeServerSpan(
                span, method: method, version: version, requestHeaders: headers, peer: peer, status: status,
                route: route, start: start, end: end, template: &open.template, into: &open.spans)
        }
    }

    /// Has `encode` append one span to the open batch of `lane` (a JSON element after a comma), unless the queue is
    /// full; queues the batch for export when that fills it.
    private func enqueue(lane: Int?, _ encode: (inout OpenBatch) -> Void) {
        guard queued.add(1, ordering: .relaxed).oldValue < configuration.queueSize else {
            queued.subtract(1, ordering: .relaxed)
            droppedFull.add(1, ordering: .relaxed)
            return
        }
        let lane = lanes[lane.map { 1 + $0 % (lanes.count - 1) } ?? 0]
        let json = configuration.exportProtocol == .httpJSON
        let closed = lane.open.withLock { open -> SpanBatch? in
            if json && open.count > 0 { open.spans.append(UInt8(ascii: ",")) }
            encode(&open)
            open.count += 1
            guard open.count >= configuration.batchSize else { return nil }
            return close(&open)
        }
        if let closed { queue(closed) }
    }

    /// Queues the open batches as they are (the timer; ``flush()``). Spans arriving meanwhile wait for a full
    /// batch or the next tick, so a busy server is not exported a handful of spans at a time.
    private func closeOpenBatches() {
        for lane in lanes {
            if let batch = lane.open.withLock({ $0.count > 0 ? close(&$0) : nil }) { queue(batch) }
        }
    }

    /// Queues a full batch; starts its export when none is in flight.
    private func queue(_ batch: SpanBatch) {
        let start = state.withLock { state -> Bool in
            state.full.append(batch)
            guard !state.exporting else { return false }
            state.exporting = true
            return true
        }
        if start { exportNext() }
    }

    /// Sends the oldest queued batch (an export was started: `exporting` is set), or, when none is left, ends the
    /// run of exports and wakes ``flush()``'s callers.
    private func exportNext() {
        let (next, idle) = state.withLock { state -> (SpanBatch?, [CheckedContinuation<Void, Never>]) in
            guard state.full.isEmpty else { return (state.full.removeFirst(), []) }
            state.exporting = false
            defer { state.idleWaiters = [] }
            return (nil, state.idleWaiters)
        }
        for waiter in idle { waiter.resume() }
        if let next { send(next, retries: 0) }
    }

    /// One attempt at exporting `batch`; its answer is handled on the HTTP client's loop (``finished(_:retries:_:)``).
    private func send(_ batch: SpanBatch, retries: Int) {
        var request = HTTPClientRequest(method: "POST", url: url, headers: fields, timeout: timeout)
        request.sharedBody = batch
        client.start(request) { result in self.finished(batch, retries: retries, result) }
    }

    /// The answer to an export: counted, retried (after a wait, in a task: failures only), or dropped; then the
    /// next batch.
    private func finished(_ batch: SpanBatch, retries: Int, _ result: Result<HTTPClientResponse, HTTPClientError>) {
        let error: UpstreamError
        switch result {
        case .success(let response) where (200..<300).contains(response.status):
            queued.subtract(batch.count, ordering: .relaxed)
            state.withLock { $0.exported += UInt64(batch.count) }
            return exportNext()
        case .success(let response):
            error = UpstreamError(
                upstream: "otlp", code: "upstream_status", message: "answered \(response.status)",
                status: response.status)
        case .failure(let failure):
            error = UpstreamError(failure, upstream: "otlp")
            // A shut-down client does not get better.
            if failure.kind == .shutdown { return drop(batch, error) }
        }
        guard retries < Self.maximumRetries, Self.isTransient(error), !stopping.load(ordering: .relaxed) else {
            return drop(batch, error)
        }
        let delay = retryBackoff * (1 << retries)
        Task.detached {
            try? await Task.sleep(for: delay)
            self.send(batch, retries: retries + 1)
        }
    }

    /// Gives up on `batch` (counted, logged) and goes on with the next.
    private func drop(_ batch: SpanBatch, _ error: UpstreamError) {
        queued.subtract(batch.count, ordering: .relaxed)
        failed(batch, error)
        exportNext()
    }

    /// Queues the open batches and returns when every queued span was exported or dropped (retries included).
    func flush() async {
        closeOpenBatches()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                guard state.exporting else { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Whether a failed export may succeed when tried again: the answers OTLP/HTTP calls retryable (429, 502, 503,
    /// 504), a refused or lost connection, a timeout.
    static func isTransient(_ error: UpstreamError) -> Bool {
        if let status = error.status { return [429, 502, 503, 504].contains(status) }
        return error.code == "upstream_unavailable" || error.code == "upstream_timeout"
    }

    /// Counts `batch` dropped and logs `error`, at most once a minute.
    private func failed(_ batch: SpanBatch, _ error: UpstreamError) {
        let report = state.withLock { state -> Int? in
            state.droppedFailed += UInt64(batch.count)
            let now = ContinuousClock.now
            if let last = state.lastFailureLog, now - last < .seconds(60) {
                state.suppressedFailures += 1
                return nil
            }
            state.lastFailureLog = now
            defer { state.suppressedFailures = 0 }
            return state.suppressedFailures
        }
        if let suppressed = report {
            log.warning(
                "span export failed",
                [
                    "endpoint": .string(configuration.endpoint), "spans": .number(Double(batch.count)),
                    "error": .string(error.description), "failuresNotLogged": .number(Double(suppressed)),
                ])
        }
    }

    /// Stops the timer and exports what is queued, without retries (graceful shutdown). A span that ends after it
    /// began is exported only if it fills a batch.
    public func shutdown() async {
        stopping.store(true, ordering: .relaxed)
        ticker.withLock { $0 }?.cancel()
        await flush()
    }

    /// ``shutdown()`` for a caller outside the concurrency pool (the CLI's main thread after the server stopped):
    /// blocks the calling thread until the queued spans are exported or `timeout` passes.
    @available(*, noasync, message: "blocks a thread; await shutdown() instead")
    public func shutdown(waitingAtMost timeout: Duration) {
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            await self.shutdown()
            done.signal()
        }
        _ = done.wait(timeout: .now() + .milliseconds(Int(timeout.seconds * 1000)))
    }

    /// Spans exported so far.
    public var exportedCount: UInt64 { state.withLock { $0.exported } }

    /// Spans dropped so far: queue full, and export failed.
    public var droppedCount: (queueFull: UInt64, exportFailed: UInt64) {
        (droppedFull.load(ordering: .relaxed), state.withLock { $0.droppedFailed })
    }

    /// `flow_bff_trace_spans_exported_total`, `flow_bff_trace_spans_dropped_total{reason}` and
    /// `flow_bff_trace_queue_spans`.
    var families: [MetricFamily] {
        let queued = queued.load(ordering: .relaxed)
        let droppedFull = droppedFull.load(ordering: .relaxed)
        let state = state.withLock { ($0.exported, droppedFull, $0.droppedFailed, queued) }
        return [
            MetricFamily(
                "flow_bff_trace_spans_exported_total", .counter, help: "Spans the OTLP endpoint accepted.",
                samples: [.init(labels: [], value: .count(state.0))]),
            MetricFamily(
                "flow_bff_trace_spans_dropped_total", .counter,
                help: "Spans not exported: the queue was full, or their export request failed.", labels: ["reason"],
                samples: [
                    .init(labels: ["queue_full"], value: .count(state.1)),
                    .init(labels: ["export_failed"], value: .count(state.2)),
                ]),
            MetricFamily(
                "flow_bff_trace_queue_spans", .gauge, help: "Spans waiting for export.",
                samples: [.init(labels: [], value: .real(Double(state.3)))]),
        ]
    }
}

/// A full batch as its export request's body: the envelope and its spans, encoded back to back where they were
/// written (``OTLPTraceEncoder/finishRequest(_:as:)``), and how many spans. Immutable once made, so it may cross
/// from the event loop that closed it to the HTTP client's; libcurl reads its bytes in place.
final class SpanBatch: HTTPClientSharedBody {
    private let body: ProtobufWriter
    private let start: Int
    let count: Int

    init(body: consuming ProtobufWriter, from start: Int, count: Int) {
        self.body = body
        self.start = start
        self.count = count
    }

    /// The request body: from where the envelope starts to the last span (the batch is never written again).
    var bodyBytes: UnsafeRawBufferPointer { body.unsafeBytes(from: start) }
}
