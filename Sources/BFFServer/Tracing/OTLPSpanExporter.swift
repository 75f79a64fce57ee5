import Dispatch
import HTTPCore
import PageModel
import Synchronization

/// The batching span processor and OTLP/HTTP exporter: ``record(_:lane:)`` (on the event loops) encodes the span —
/// once, while it is still in the cache — straight into the open batch of the loop it ended on, under that loop's
/// own lock (spans ending in tasks share one more); a task exports the full batches every `scheduleDelaySeconds`,
/// or at once when one fills, through an ``UpstreamClient`` (libcurl on the HTTP client's own loop), never on the
/// server's loops. No span is kept as a value after it ended: a batch is its spans' encoded bytes back to back, put
/// in the request's envelope when sent.
///
/// A full queue drops the span (`flow_bff_trace_spans_dropped_total{reason="queue_full"}`). An export that fails
/// transiently — the collector answers 429, 502, 503 or 504, or cannot be reached in time — is retried up to
/// ``maximumRetries`` times after 1, 2 and 4 s (OTLP/HTTP's "retryable" answers; spans keep queueing meanwhile, within
/// the queue's bound); one that still fails, or fails otherwise, drops its batch (`reason="export_failed"`) and is
/// logged at most once per minute. Nothing is fatal. ``shutdown()`` exports what is left, once, without retries.
public final class OTLPSpanExporter: SpanSink {
    struct State {
        /// Full batches waiting for the exporter's task.
        var full: [SpanBatch] = []
        var exported: UInt64 = 0
        var droppedFailed: UInt64 = 0
        /// Whether a full batch already woke the worker (one wake-up per batch).
        var woken = false
        /// Whether the timer asked for everything queued to go, partial batch included.
        var flushDue = false
        var lastFailureLog: ContinuousClock.Instant?
        var suppressedFailures = 0
    }

    let configuration: BFFConfiguration.Tracing
    let encoder: OTLPTraceEncoder
    let client: UpstreamClient
    let path: String
    let headers: [String: String]
    let log: Logger
    private let state = Mutex(State())
    /// The open batches: `lanes[0]` for spans that end off the event loops, `lanes[1 + i]` for loop `i` (modulo
    /// their number).
    private let lanes: [Lane]
    /// Spans in the open and full batches: what the queue bound counts.
    private let queued = Atomic<Int>(0)
    /// Spans dropped because the queue was full: counted without a lock, as a loop may drop one per request.
    private let droppedFull = Atomic<UInt64>(0)
    private let wake: AsyncStream<Void>.Continuation
    private let worker = Mutex<Task<Void, Never>?>(nil)
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
    ///   - client: the HTTP client exports go through. Default the process's shared one.
    /// - Precondition: `configuration.endpoint` is an `http(s)://` URL (the configuration loader checks it).
    ///   - retryBackoff: the wait before the first retry of a transiently failed export. Default 1 s.
    public init(
        configuration: BFFConfiguration.Tracing, log: Logger, client: HTTPClient = .shared,
        retryBackoff: Duration = .seconds(1)
    ) {
        guard let endpoint = OTLPEndpoint(configuration.endpoint) else {
            preconditionFailure("tracing.endpoint is checked when loaded")
        }
        self.configuration = configuration
        self.retryBackoff = retryBackoff
        encoder = OTLPTraceEncoder(
            serviceName: configuration.serviceName,
            serviceVersion: configuration.serviceVersion.isEmpty ? BuildInfo.version : configuration.serviceVersion)
        self.client = UpstreamClient(
            UpstreamConfiguration(
                name: "otlp", baseURL: endpoint.base,
                timeout: .milliseconds(Int(configuration.exportTimeoutSeconds * 1000)),
                retries: 0, maximumConcurrentRequests: 1),
            metrics: UpstreamMetrics(), client: client)
        path = endpoint.path
        var headers: [String: String] = [:]
        for entry in configuration.headers {
            if let (name, value) = OpenTelemetryEnvironment.header(entry) { headers[name] = value }
        }
        self.headers = headers
        self.log = log
        lanes = (0...Platform.availableCPUs).map { _ in Lane(capacity: Self.batchCapacity(configuration)) }
        let (stream, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.wake = wake
        let delay = Duration.milliseconds(Int(configuration.scheduleDelaySeconds * 1000))
        ticker.withLock {
            $0 = Task.detached { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: delay)
                    guard let self else { return }
                    self.state.withLock { $0.flushDue = true }
                    wake.yield()
                }
            }
        }
        worker.withLock {
            $0 = Task.detached { [weak self] in
                for await _ in stream {
                    guard let self else { return }
                    // A full batch's wake-up sends full batches only; the timer's sends the rest too.
                    let all = self.state.withLock { state in
                        defer { state.flushDue = false }
                        return state.flushDue
                    }
                    await self.exportQueued(all: all)
                }
            }
        }
    }

    deinit { ticker.withLock { $0 }?.cancel() }

    /// An open batch of spans and its lock.
    private final class Lane: Sendable {
        let open: Mutex<OpenBatch>

        init(capacity: Int) { open = Mutex(OpenBatch(spans: ProtobufWriter(capacity: capacity))) }
    }

    /// The batch spans are encoded into (``OTLPTraceEncoder/encodeSpan(_:as:into:)``), and how many it holds.
    private struct OpenBatch: ~Copyable {
        var spans: ProtobufWriter
        var count = 0

        /// The batch as it is, leaving an empty one of `capacity` bytes open.
        mutating func close(capacity: Int) -> SpanBatch {
            var full = ProtobufWriter(capacity: capacity)
            swap(&full, &spans)
            defer { count = 0 }
            return SpanBatch(spans: full, count: count)
        }
    }

    /// Room for a batch's spans: ~400 bytes each in protobuf.
    private static func batchCapacity(_ configuration: BFFConfiguration.Tracing) -> Int {
        configuration.batchSize * 400
    }

    /// Encodes `span` into the open batch of `lane` (the event loop it ended on; `nil` off the loops), or counts it
    /// dropped when the queue is full. Never blocks on I/O; the lock it takes is its loop's own.
    func record(_ span: SpanData, lane: Int?) {
        let format = configuration.exportProtocol
        enqueue(lane: lane) { encoder.encodeSpan(span, as: format, into: &$0) }
    }

    /// A server span, encoded from its access entry (``OTLPTraceEncoder/encodeServerSpan(_:method:version:requestHeaders:peer:status:route:start:end:into:)``)
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
        enqueue(lane: entry.loop) {
            encoder.encodeServerSpan(
                span, method: method, version: version, requestHeaders: headers, peer: peer, status: status,
                route: route, start: start, end: end, into: &$0)
        }
    }

    /// Has `encode` append one span to the open batch of `lane` (a JSON element after a comma), unless the queue is
    /// full; hands the batch to the worker when that fills it.
    private func enqueue(lane: Int?, _ encode: (inout ProtobufWriter) -> Void) {
        guard queued.add(1, ordering: .relaxed).oldValue < configuration.queueSize else {
            queued.subtract(1, ordering: .relaxed)
            droppedFull.add(1, ordering: .relaxed)
            return
        }
        let lane = lanes[lane.map { 1 + $0 % (lanes.count - 1) } ?? 0]
        let json = configuration.exportProtocol == .httpJSON
        let closed = lane.open.withLock { open -> SpanBatch? in
            if json && open.count > 0 { open.spans.append(UInt8(ascii: ",")) }
            encode(&open.spans)
            open.count += 1
            guard open.count >= configuration.batchSize else { return nil }
            return open.close(capacity: Self.batchCapacity(configuration))
        }
        guard let closed else { return }
        let wakeWorker = state.withLock { state -> Bool in
            state.full.append(closed)
            guard !state.woken else { return false }
            state.woken = true
            return true
        }
        if wakeWorker { wake.yield() }
    }

    /// Exports the full batches, one request at a time, and with `all` also the open ones as they are when this is
    /// called (spans arriving meanwhile wait for a full batch or the next tick, so a busy server is not exported a
    /// handful of spans at a time).
    func exportQueued(all: Bool = true) async {
        if all {
            let capacity = Self.batchCapacity(configuration)
            for lane in lanes {
                if let batch = lane.open.withLock({ $0.count > 0 ? $0.close(capacity: capacity) : nil }) {
                    state.withLock { $0.full.append(batch) }
                }
            }
        }
        while true {
            let batch = state.withLock { state -> SpanBatch? in
                state.woken = false
                guard !state.full.isEmpty else { return nil }
                return state.full.removeFirst()
            }
            guard let batch else { return }
            queued.subtract(batch.count, ordering: .relaxed)
            await export(batch)
        }
    }

    private func export(_ batch: SpanBatch) async {
        let (body, contentType) = encoder.request(spans: batch.spans, as: configuration.exportProtocol)
        var fields = headers
        fields["Content-Type"] = contentType
        var delay = retryBackoff
        var retries = 0
        while true {
            do {
                _ = try await client.send("POST", path, body: body, headers: fields)
                state.withLock { $0.exported += UInt64(batch.count) }
                return
            } catch {
                guard retries < Self.maximumRetries, Self.isTransient(error), !stopping.load(ordering: .relaxed) else {
                    return failed(batch, error)
                }
                retries += 1
                try? await Task.sleep(for: delay)
                delay *= 2
            }
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

    /// Stops the timer and exports what is queued (graceful shutdown). Spans recorded after it are not exported.
    public func shutdown() async {
        stopping.store(true, ordering: .relaxed)
        ticker.withLock { $0 }?.cancel()
        wake.finish()
        await worker.withLock { $0 }?.value
        await exportQueued()
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

/// A full batch: its spans encoded back to back (``OTLPTraceEncoder/encodeSpan(_:as:into:)``) and their number.
/// Immutable once made, so it may cross from the event loop that closed it to the exporter's task.
final class SpanBatch: Sendable {
    let spans: ProtobufWriter
    let count: Int

    init(spans: consuming ProtobufWriter, count: Int) {
        self.spans = spans
        self.count = count
    }
}
