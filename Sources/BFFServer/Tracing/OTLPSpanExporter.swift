import Dispatch
import HTTPCore
import PageModel
import Synchronization

/// The batching span processor and OTLP/HTTP exporter: ``record(_:)`` (on the event loops) encodes the span — once,
/// while it is still in the cache, and outside any lock — and appends its bytes to the open batch under a lock; a
/// task exports the batches every `scheduleDelaySeconds`, or at once when one is full, through an ``UpstreamClient``
/// (libcurl on the HTTP client's own loop), never on the server's loops. No span is kept as a value after it ended:
/// a batch is its spans' encoded bytes back to back, put in the request's envelope when sent.
///
/// A full queue drops the span (`flow_bff_trace_spans_dropped_total{reason="queue_full"}`). An export that fails
/// transiently — the collector answers 429, 502, 503 or 504, or cannot be reached in time — is retried up to
/// ``maximumRetries`` times after 1, 2 and 4 s (OTLP/HTTP's "retryable" answers; spans keep queueing meanwhile, within
/// the queue's bound); one that still fails, or fails otherwise, drops its batch (`reason="export_failed"`) and is
/// logged at most once per minute. Nothing is fatal. ``shutdown()`` exports what is left, once, without retries.
public final class OTLPSpanExporter: SpanSink {
    struct State: ~Copyable {
        /// The batch spans are appended to (``OTLPTraceEncoder/encodeSpan(_:as:into:)``), and how many it holds.
        var open: ProtobufWriter
        var openCount = 0
        /// Full batches waiting for the exporter's task.
        var full: [SpanBatch] = []
        /// Spans in `open` and `full`: what the queue bound counts.
        var queued = 0
        var exported: UInt64 = 0
        var droppedFull: UInt64 = 0
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
    private let state: Mutex<State>
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
        state = Mutex(State(open: ProtobufWriter(capacity: Self.batchCapacity(configuration))))
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

    /// Room for a batch's spans: ~400 bytes each in protobuf.
    private static func batchCapacity(_ configuration: BFFConfiguration.Tracing) -> Int {
        configuration.batchSize * 400
    }

    /// Encodes `span` and adds it to the open batch, or counts it dropped when the queue is full. The lock is held
    /// for a copy of its bytes only; never blocks on I/O.
    public func record(_ span: SpanData) {
        var encoded = ProtobufWriter(capacity: 512)
        encoder.encodeSpan(span, as: configuration.exportProtocol, into: &encoded)
        let json = configuration.exportProtocol == .httpJSON
        let wakeWorker = state.withLock { state -> Bool in
            guard state.queued < configuration.queueSize else {
                state.droppedFull += 1
                return false
            }
            if json && state.openCount > 0 { state.open.append(UInt8(ascii: ",")) }
            state.open.append(encoded)
            state.openCount += 1
            state.queued += 1
            guard state.openCount >= configuration.batchSize else { return false }
            Self.closeOpenBatch(&state, configuration)
            guard !state.woken else { return false }
            state.woken = true
            return true
        }
        if wakeWorker { wake.yield() }
    }

    /// Moves the open batch to the full ones and opens a new one.
    private static func closeOpenBatch(_ state: inout State, _ configuration: BFFConfiguration.Tracing) {
        var spans = ProtobufWriter(capacity: batchCapacity(configuration))
        swap(&spans, &state.open)
        state.full.append(SpanBatch(spans: spans, count: state.openCount))
        state.openCount = 0
    }

    /// Exports the full batches, one request at a time, and with `all` also the open one as it is when this is
    /// called (spans arriving meanwhile wait for a full batch or the next tick, so a busy server is not exported a
    /// handful of spans at a time).
    func exportQueued(all: Bool = true) async {
        if all {
            state.withLock { state in
                if state.openCount > 0 { Self.closeOpenBatch(&state, configuration) }
            }
        }
        while true {
            let batch = state.withLock { state -> SpanBatch? in
                state.woken = false
                guard !state.full.isEmpty else { return nil }
                let batch = state.full.removeFirst()
                state.queued -= batch.count
                return batch
            }
            guard let batch else { return }
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
        state.withLock { ($0.droppedFull, $0.droppedFailed) }
    }

    /// `flow_bff_trace_spans_exported_total`, `flow_bff_trace_spans_dropped_total{reason}` and
    /// `flow_bff_trace_queue_spans`.
    var families: [MetricFamily] {
        let state = state.withLock { ($0.exported, $0.droppedFull, $0.droppedFailed, $0.queued) }
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
