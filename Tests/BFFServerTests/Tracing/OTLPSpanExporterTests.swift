import HTTPCore
import HTTPTesting
import PageModel
import Synchronization
import Testing

@testable import BFFServer

/// The OTLP encodings and the batching exporter's bounds: a full queue drops and counts, a failed export drops its
/// batch, is logged once and is not fatal.
@Suite struct OTLPSpanExporterTests {
    static func span(_ index: UInt64, parent: UInt64? = nil) -> SpanData {
        SpanData(
            traceID: TraceID(high: 0x4bf9_2f35_77b3_4da6, low: 0xa3ce_929d_0e0e_4736), spanID: SpanID(index),
            parentSpanID: parent.map(SpanID.init), traceState: parent == nil ? nil : "vendor=1", flags: 1,
            name: "GET /v1/pages/{pageID}", kind: .server, startNanoseconds: 1_700_000_000_000_000_000,
            endNanoseconds: 1_700_000_000_002_000_000,
            attributes: [.string("http.request.method", "GET"), .int("http.response.status_code", 503)],
            status: .error("HTTP 503"))
    }

    @Test func theJSONMappingPinsIdsAsHexAndNanosecondsAsStrings() {
        let encoder = OTLPTraceEncoder(serviceName: "flow-bff", serviceVersion: "1.2.3")
        let (body, contentType) = encoder.encode([Self.span(0x00f0_67aa_0ba9_02b7, parent: 1)], as: .httpJSON)
        #expect(contentType == "application/json")
        #expect(
            String(decoding: body, as: UTF8.self)
                == #"{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"flow-bff"}},"#
                + #"{"key":"service.version","value":{"stringValue":"1.2.3"}}]},"scopeSpans":[{"scope":{"name":"flow-bff"},"#
                + #""spans":[{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"00f067aa0ba902b7","#
                + #""traceState":"vendor=1","parentSpanId":"0000000000000001","flags":1,"name":"GET /v1/pages/{pageID}","#
                + #""kind":2,"startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000000002000000","#
                + #""attributes":[{"key":"http.request.method","value":{"stringValue":"GET"}},"#
                + #"{"key":"http.response.status_code","value":{"intValue":"503"}}],"#
                + #""status":{"message":"HTTP 503","code":2}}]}]}]}"#)
    }

    @Test func theProtobufEncodingOfOneAttribute() {
        var writer = ProtobufWriter()
        writer.message(9) { value in
            value.string(1, "a")
            value.message(2) { $0.varint(3, 200, always: true) }
        }
        // field 9 length-delimited (0x4a), 8 bytes: key "a" (0a 01 61), value (12 03: int_value 18 c8 01).
        #expect(writer.bytes == [0x4A, 0x08, 0x0A, 0x01, 0x61, 0x12, 0x03, 0x18, 0xC8, 0x01])
        // The same KeyValue from a key encoded once (AttributeKey), and with a string value either way.
        var encoded = ProtobufWriter()
        AttributeKey("a").field.withUnsafeBufferPointer { encoded.keyValue(9, key: $0, encodedKey: true, int: 200) }
        #expect(encoded.bytes == writer.bytes)
        var fromKey = ProtobufWriter()
        var fromName = ProtobufWriter()
        let value = Array("value".utf8)
        value.withUnsafeBufferPointer { value in
            AttributeKey("url.path").field.withUnsafeBufferPointer {
                fromKey.keyValue(9, key: $0, encodedKey: true, string: value)
            }
            Array("url.path".utf8).withUnsafeBufferPointer { fromName.keyValue(9, key: $0, string: value) }
        }
        #expect(fromKey.bytes == fromName.bytes)
        #expect(fromKey.bytes.prefix(4) == [0x4A, 0x13, 0x0A, 0x08])
        // A nested message longer than 127 bytes: its length takes two bytes, the body moves along.
        var long = ProtobufWriter()
        long.message(1) { $0.string(2, String(repeating: "x", count: 300)) }
        #expect(Array(long.bytes.prefix(6)) == [0x0A, 0xAF, 0x02, 0x12, 0xAC, 0x02])
        #expect(long.bytes.count == 306)
        #expect(long.bytes.dropFirst(6).allSatisfy { $0 == UInt8(ascii: "x") })
        let (body, contentType) = OTLPTraceEncoder(serviceName: "s", serviceVersion: "").encode(
            [Self.span(7)], as: .httpProtobuf)
        #expect(contentType == "application/x-protobuf")
        #expect(body.first == 0x0A, "ExportTraceServiceRequest.resource_spans")
        // The trace id's 16 bytes are in the body, big-endian.
        let id: [UInt8] = [
            0x4B, 0xF9, 0x2F, 0x35, 0x77, 0xB3, 0x4D, 0xA6, 0xA3, 0xCE, 0x92, 0x9D, 0x0E, 0x0E, 0x47, 0x36,
        ]
        #expect(body.indices.contains { body[$0...].starts(with: [0x0A, 0x10] + id) })
    }

    /// A batch writer remembers the `server.address` / `server.port` it wrote for the last `Host`: spans encoded
    /// one after another into one writer are byte for byte what each encodes to alone, whether the host repeats,
    /// changes or comes back.
    @Test func aRepeatedHostIsCopiedAsItWasEncoded() {
        let encoder = OTLPTraceEncoder(serviceName: "s", serviceVersion: "")
        let hosts = [
            "api.example:8443", "api.example:8443", "[::1]:9", "other.example", "api.example:8443", "api.example",
        ]
        let spans = hosts.enumerated().map { index, host in
            var entry = HTTPAccessLogEntry.answered(
                method: .get, target: "/v1/pages/feed", version: .http11, status: 200, bodyBytes: 10, gzip: false,
                remoteAddress: "127.0.0.1:5\(index)", durationNanoseconds: 1, route: "page", requestID: nil)
            entry.requestHeaders = ["Host": host, "User-Agent": "Test/\(index)"]
            var span = Self.span(UInt64(index + 1))
            span.http = HTTPServerSpanFields(entry, path: "/v1/pages/feed", route: ServerRoute.named("page"))
            return span
        }
        var together = ProtobufWriter()
        var alone: [UInt8] = []
        for span in spans {
            encoder.encodeSpan(span, as: .httpProtobuf, into: &together)
            var single = ProtobufWriter()
            encoder.encodeSpan(span, as: .httpProtobuf, into: &single)
            alone += single.bytes
        }
        #expect(together.bytes == alone)
        #expect(spans[1].attribute("server.address") == .string("api.example"))
        #expect(spans[1].attribute("server.port") == .int(8443))
        #expect(spans[2].attribute("server.address") == .string("::1"))
        #expect(spans[5].attribute("server.port") == nil)
        let count = { (needle: [UInt8]) in
            together.bytes.indices.filter { together.bytes[$0...].starts(with: needle) }.count
        }
        #expect(count(Array("api.example".utf8)) == 4)
    }

    /// A server span is encoded from its access entry (no record made): byte for byte what the record it stands
    /// for encodes to — root or child span, with or without `tracestate`, GET, POST or another method, 200, 404 or
    /// 503, a contract route or none, with and without `Host`, `User-Agent` and a peer, HTTP/1.0 or 1.1.
    @Test func aServerSpanEncodedFromItsEntryIsTheRecordItStandsFor() {
        final class Memory: SpanSink {
            let spans = Mutex<[SpanData]>([])
            func record(_ span: SpanData, lane: Int?) { spans.withLock { $0.append(span) } }
        }
        let memory = Memory()
        let tracer = Tracer(sink: memory)
        let encoder = OTLPTraceEncoder(serviceName: "s", serviceVersion: "")
        let cases: [(HTTPMethod, Int, String?, HTTPFields, String?, HTTPVersion, SpanID?, String?)] = [
            (
                .get, 200, "page", ["Host": "api.example:8443", "User-Agent": "App/1"], "127.0.0.1:5000", .http11, nil,
                nil
            ),
            (.post, 503, "action", ["host": "[::1]:9"], "[::1]:41000", .http11, SpanID(7), "vendor=1"),
            (.get, 404, nil, [:], nil, .http10, SpanID(9), nil),
            (.put, 500, "nextPage", ["User-Agent": "curl/8"], "10.0.2.2:1", .http11, nil, nil),
        ]
        // Then the first case and each of it with one value changed, in turn: a template that ignored that value
        // would be copied into the changed span.
        let base = cases[0]
        let variants: [(HTTPMethod, Int, String?, HTTPFields, String?, HTTPVersion, SpanID?, String?)] = [
            (base.0, base.1, base.2, ["Host": "other.example", "User-Agent": "App/1"], base.4, base.5, nil, nil),
            (base.0, base.1, base.2, ["Host": "api.example:8443", "User-Agent": "App/2"], base.4, base.5, nil, nil),
            (base.0, base.1, base.2, ["Host": "api.example:8443"], base.4, base.5, nil, nil),
            (base.0, base.1, base.2, base.3, "127.0.0.2:5000", base.5, nil, nil),
            (base.0, base.1, base.2, base.3, nil, base.5, nil, nil),
            (base.0, base.1, base.2, base.3, base.4, .http10, nil, nil),
            (.post, base.1, base.2, base.3, base.4, base.5, nil, nil),
            (base.0, 201, base.2, base.3, base.4, base.5, nil, nil),
            (base.0, base.1, "nextPage", base.3, base.4, base.5, nil, nil),
            (base.0, base.1, nil, base.3, base.4, base.5, nil, nil),
            (base.0, base.1, base.2, base.3, base.4, base.5, SpanID(3), "v=2"),
        ]
        let sequence = cases + cases + variants.flatMap { [base, $0] }
        // One lane's template through the sequence: each span of it is encoded twice (the second copies the template
        // the first left), and each must be the record's bytes — the template holds no value of another span, and
        // not its path.
        var template: ServerSpanTemplate?
        var hits = 0
        for (index, (method, status, route, headers, peer, version, parent, state)) in sequence.enumerated() {
            var entry = HTTPAccessLogEntry.answered(
                method: method, target: "/v1/pages/feed?x=1", version: version, status: status, bodyBytes: 10,
                gzip: false, remoteAddress: peer, durationNanoseconds: 2_000, route: route, requestID: nil)
            entry.requestHeaders = headers
            entry.loop = index
            let span = Span(
                tracer: tracer, server: TraceID(high: 0xAB, low: UInt64(index + 1)),
                spanID: SpanID(UInt64(100 + index)),
                parent: parent, traceState: state, path: "/v1/pages/p\(index)")
            let serverRoute = route.flatMap(ServerRoute.named)
            var viaRecord = ProtobufWriter()
            let record = span.serverData(entry, route: serverRoute, start: 1_000, end: 3_000)
            encoder.encodeSpan(record, as: .httpProtobuf, into: &viaRecord)
            // A copy keeps the template's array; a miss makes a new one (while the old one still lives: another
            // address). Equal bytes alone would not tell them apart.
            let templateAddress = { template?.bytes.withUnsafeBufferPointer { $0.baseAddress } }
            func encodeDirect() -> [UInt8] {
                var direct = ProtobufWriter()
                encoder.encodeServerSpan(
                    span, method: entry.method, version: entry.version, requestHeaders: entry.requestHeaders,
                    peer: entry.remoteAddress, status: entry.status, route: serverRoute, start: 1_000, end: 3_000,
                    template: &template, into: &direct)
                return direct.bytes
            }
            for attempt in 0..<2 {
                let before = templateAddress()
                #expect(encodeDirect() == viaRecord.bytes, "case \(index), attempt \(attempt)")
                if attempt == 1 { hits += templateAddress() == before ? 1 : 0 }
            }
            // Another connection of the same client (another port): the same template, copied.
            if let peer, let colon = peer.lastIndex(of: ":") {
                entry.remoteAddress = peer[..<colon] + ":1234"
                let before = templateAddress()
                #expect(encodeDirect() == viaRecord.bytes, "case \(index), another port")
                #expect(templateAddress() == before, "case \(index), another port")
            }
            #expect(record.kind == .server)
            #expect(record.status == (status >= 500 ? .error("HTTP \(status)") : .unset))
        }
        #expect(hits == sequence.count, "every second span copied its template")
        #expect(
            Span(
                tracer: tracer, server: TraceID(high: 1, low: 1), spanID: SpanID(1), parent: nil, traceState: nil,
                path: "/"
            ).traceParent.flags == 1)
        // A server span ends once, through its response; its record goes to a sink without an encoding of its own.
        let span = Span(
            tracer: tracer, server: TraceID(high: 1, low: 2), spanID: SpanID(3), parent: nil, traceState: nil,
            path: "/v1/pages/feed")
        let entry = HTTPAccessLogEntry.answered(
            method: .get, target: "/v1/pages/feed", version: .http11, status: 200, bodyBytes: 1, gzip: false,
            remoteAddress: nil, durationNanoseconds: 5_000, route: "page", requestID: nil)
        span.end()
        span.responseSent(entry)
        span.responseSent(entry)
        let recorded = memory.spans.withLock { $0 }
        #expect(recorded.count == 1)
        #expect(recorded.first?.name == "GET /v1/pages/{pageID}")
        #expect(recorded.first.map { $0.endNanoseconds - $0.startNanoseconds } == 5_000)
        let wall = Tracer.wallClock()
        #expect(recorded.first.map { $0.endNanoseconds <= wall && $0.endNanoseconds + 60_000_000_000 > wall } == true)
    }

    /// Span times are monotonic readings plus a wall-clock anchor: the wall clock is read when the tracer is made
    /// and again only once a reading is a second past the last one, and a reading maps to the wall clock it stands for.
    @Test func spanTimesAreMonotonicReadingsAnchoredToTheWallClockOnceASecond() {
        final class Memory: SpanSink {
            func record(_ span: SpanData, lane: Int?) {}
        }
        let reads = Atomic<Int>(0)
        let wall: UInt64 = 1_700_000_000_000_000_000
        let tracer = Tracer(sink: Memory()) {
            reads.add(1, ordering: .relaxed)
            return wall
        }
        #expect(reads.load(ordering: .relaxed) == 1)
        let now = HTTPAccessLogEntry.monotonicNanoseconds()
        let mapped = tracer.wallNanoseconds(monotonic: now)
        // The anchor was taken a moment before `now`: the mapped time is the injected wall clock plus that moment.
        #expect(mapped >= wall && mapped - wall < 1_000_000_000)
        #expect(tracer.wallNanoseconds(monotonic: now + 5_000) == mapped + 5_000)
        #expect(reads.load(ordering: .relaxed) == 1, "within the second: no clock read")
        let later = now + 2 * Tracer.anchorLifetime
        _ = tracer.wallNanoseconds(monotonic: later)
        #expect(reads.load(ordering: .relaxed) == 2, "a reading past the anchor's second reads the wall clock again")
        // Renewed (the injected wall clock still says `wall`): a reading taken now maps to it plus a moment, without
        // another read.
        let remapped = tracer.wallNanoseconds(monotonic: HTTPAccessLogEntry.monotonicNanoseconds())
        #expect(remapped >= wall && remapped - wall < 1_000_000_000)
        #expect(reads.load(ordering: .relaxed) == 2)
    }

    @Test func aFullQueueDropsAndAFailedExportIsCountedLoggedAndNotFatal() async throws {
        var configuration = BFFConfiguration.Tracing()
        // Port 1 on loopback refuses: every export fails at once.
        configuration.endpoint = "http://127.0.0.1:1/v1/traces"
        configuration.queueSize = 3
        configuration.batchSize = 2
        configuration.scheduleDelaySeconds = 3_600
        let log = MemoryLogSink()
        let exporter = OTLPSpanExporter(
            configuration: configuration, log: Logger(sink: log), retryBackoff: .milliseconds(10))
        for index in 1...5 { exporter.record(Self.span(UInt64(index))) }
        #expect(exporter.droppedCount.queueFull == 2)
        await exporter.shutdown()
        #expect(exporter.droppedCount.exportFailed == 3)
        #expect(exporter.exportedCount == 0)
        let warnings = log.lines.filter { $0.contains("span export failed") }
        #expect(warnings.count == 1, "two failed batches, one line: \(warnings)")
        let families = exporter.families
        #expect(families.first { $0.name == "flow_bff_trace_spans_dropped_total" }?.value("queue_full") == .count(2))
        #expect(families.first { $0.name == "flow_bff_trace_spans_dropped_total" }?.value("export_failed") == .count(3))
    }

    @Test func aFullBatchIsExportedWithoutWaitingForTheTimer() async throws {
        let received = TestSignal()
        let receiver = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { request in
            if request.headers["Content-Type"] == "application/x-protobuf", request.headers["X-Key"] == "k" {
                received.signal()
            }
            return .response(HTTPResponse(status: .ok))
        }
        try receiver.start()
        defer { receiver.shutdown(drainTimeout: .milliseconds(100)) }
        var configuration = BFFConfiguration.Tracing()
        configuration.endpoint = "http://\(receiver.localAddress)/v1/traces"
        configuration.headers = ["X-Key=k"]
        configuration.batchSize = 2
        configuration.scheduleDelaySeconds = 3_600
        let exporter = OTLPSpanExporter(configuration: configuration, log: Logger(sink: MemoryLogSink()))
        exporter.record(Self.span(1))
        exporter.record(Self.span(2))
        try await received.wait(for: 1, timeout: .seconds(10))
        await exporter.shutdown()
        #expect(exporter.exportedCount == 2)
        #expect(received.count == 1)
    }

    /// A collector answering `statuses` in turn (then 200), counting the export requests it got (they come one at
    /// a time).
    private static func collector(answering statuses: [Int]) throws -> (HTTPServer, TestSignal) {
        let requests = TestSignal()
        let receiver = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { _ in
            let index = requests.count
            requests.signal()
            let status = index < statuses.count ? statuses[index] : 200
            return .response(HTTPResponse(status: HTTPStatus(code: status)))
        }
        try receiver.start()
        return (receiver, requests)
    }

    /// An exporter to `receiver` that sends full batches of `batchSize` at once (the timer never fires) and retries
    /// after 10 ms, through `client` (its own: the shared one carries the rest of the suite's upstream calls, which
    /// on one busy core can hold an export back for seconds).
    private static func exporter(to receiver: HTTPServer, batchSize: Int, client: HTTPClient) -> OTLPSpanExporter {
        var configuration = BFFConfiguration.Tracing()
        configuration.endpoint = "http://\(receiver.localAddress)/v1/traces"
        configuration.batchSize = batchSize
        configuration.scheduleDelaySeconds = 3_600
        return OTLPSpanExporter(
            configuration: configuration, log: Logger(sink: MemoryLogSink()), client: client,
            retryBackoff: .milliseconds(10))
    }

    @Test func aTransientlyFailedExportIsRetriedUntilTheCollectorTakesIt() async throws {
        let (receiver, requests) = try Self.collector(answering: [503, 429])
        defer { receiver.shutdown(drainTimeout: .milliseconds(100)) }
        let client = try HTTPClient()
        defer { client.shutdown() }
        let exporter = Self.exporter(to: receiver, batchSize: 2, client: client)
        exporter.record(Self.span(1))
        exporter.record(Self.span(2))
        // The third request is the one accepted; shutdown waits for the export it is part of to finish.
        try await requests.wait(for: 3, timeout: .seconds(30))
        await exporter.shutdown()
        #expect(exporter.exportedCount == 2)
        #expect(exporter.droppedCount.exportFailed == 0)
        #expect(requests.count == 3, "503, 429, then accepted")
    }

    @Test func spansEndingOnDifferentLoopsAreBatchedPerLoopAndAllExported() async throws {
        let (receiver, requests) = try Self.collector(answering: [])
        defer { receiver.shutdown(drainTimeout: .milliseconds(100)) }
        let client = try HTTPClient()
        defer { client.shutdown() }
        let exporter = Self.exporter(to: receiver, batchSize: 2, client: client)
        // A batch per CPU plus one for tasks: on two CPUs or more, loop 0's two spans fill its batch, which is sent
        // at once, and loop 1's and the task's wait in their own batches until shutdown sends them; on one CPU the
        // loops share a batch (spans 1 and 2 fill it). Three requests either way.
        exporter.record(Self.span(1), lane: 0)
        exporter.record(Self.span(2), lane: 1)
        exporter.record(Self.span(3), lane: 0)
        exporter.record(Self.span(4))
        try await requests.wait(for: 1, timeout: .seconds(30))
        await exporter.shutdown()
        #expect(exporter.exportedCount == 4)
        #expect(requests.count == 3)
        #expect(exporter.droppedCount.queueFull == 0 && exporter.droppedCount.exportFailed == 0)
    }

    @Test func aRefusedExportIsNotRetried() async throws {
        let (receiver, requests) = try Self.collector(answering: [400])
        defer { receiver.shutdown(drainTimeout: .milliseconds(100)) }
        let client = try HTTPClient()
        defer { client.shutdown() }
        let exporter = Self.exporter(to: receiver, batchSize: 1, client: client)
        // A full batch: exported by the worker at once, not by shutdown (which never retries).
        exporter.record(Self.span(1))
        // The batch is counted dropped only once the exporter gave up on it: any retry would come before.
        let deadline = ContinuousClock.now + .seconds(30)
        while exporter.droppedCount.exportFailed == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(exporter.droppedCount.exportFailed == 1)
        #expect(requests.count == 1)
        await exporter.shutdown()
        #expect(exporter.exportedCount == 0)
        #expect(OTLPSpanExporter.isTransient(UpstreamError(upstream: "otlp", code: "upstream_timeout", message: "")))
        #expect(
            !OTLPSpanExporter.isTransient(
                UpstreamError(upstream: "otlp", code: "upstream_status", message: "", status: 413)))
    }
}
