import Dispatch
import HTTPCore
import Synchronization

/// Server-sent events for the browser preview's live reload (`GET /__preview/events`, docs/preview.md): each reload
/// of the pages directory is pushed to every open stream as `event: reload` with the reload count, so an open
/// preview updates as soon as the watcher has reloaded, without polling.
///
/// Streams are bounded: at most ``capacity`` are open (a new one ends the oldest), each ends after ``maxAge``
/// (EventSource reconnects by itself; `retry:` says how soon), and a comment line every ``heartbeat`` keeps proxies
/// from timing a quiet stream out. HTTPCore does not tell a streamed body that its client left, so ``maxAge`` is
/// also what ends the streams of closed tabs.
final class ReloadEvents: Sendable {
    private struct Stream: Sendable {
        var writer: HTTPBodyWriter
        var opened: ContinuousClock.Instant
    }

    let capacity: Int
    let maxAge: Duration
    let heartbeat: Duration
    /// The open streams and the last reload count, under one lock: a stream opened while a reload is published
    /// starts at that reload's count or gets its event, never neither; writes under the lock keep each stream's
    /// events in count order.
    private let state = Mutex<(streams: [Stream], count: Int)>(([], 0))
    private let timer = Mutex<(any DispatchSourceTimer)?>(nil)
    private let queue = DispatchQueue(label: "flow-bff.preview-events")

    init(capacity: Int = 32, maxAge: Duration = .seconds(300), heartbeat: Duration = .seconds(15)) {
        self.capacity = max(capacity, 1)
        self.maxAge = maxAge
        self.heartbeat = heartbeat
    }

    deinit { timer.withLock { $0?.cancel() } }

    /// The bytes of one reload event.
    static func event(count: Int) -> [UInt8] { Array("event: reload\ndata: {\"count\":\(count)}\n\n".utf8) }

    /// Starts a stream on `writer`: the reconnection delay and the current reload count first, then every reload.
    func open(_ writer: HTTPBodyWriter) {
        let ended = state.withLock { state in
            writer.write(Array("retry: 500\n\n".utf8) + Self.event(count: state.count))
            state.streams.append(Stream(writer: writer, opened: .now))
            return state.streams.count > capacity ? [state.streams.removeFirst().writer] : []
        }
        for writer in ended { writer.finish() }
        startTimer()
    }

    /// Records reload `count` and sends its event to every open stream.
    func publish(count: Int) {
        let bytes = Self.event(count: count)
        state.withLock { state in
            state.count = count
            for stream in state.streams { stream.writer.write(bytes) }
        }
    }

    /// Ends every open stream (the server is shutting down: a stream never ends by itself, so it would hold the
    /// drain to its timeout) and stops the heartbeat.
    func finishAll() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
        for writer in state.withLock({ state in
            defer { state.streams = [] }
            return state.streams.map(\.writer)
        }) {
            writer.finish()
        }
    }

    private func startTimer() {
        timer.withLock { timer in
            guard timer == nil else { return }
            let source = DispatchSource.makeTimerSource(queue: queue)
            let interval = DispatchTimeInterval.milliseconds(Int(heartbeat.components.seconds * 1000))
            source.schedule(deadline: .now() + interval, repeating: interval)
            source.setEventHandler { [weak self] in self?.tick() }
            source.resume()
            timer = source
        }
    }

    /// Ends the streams older than ``maxAge`` and sends a heartbeat comment on the others.
    private func tick() {
        let now = ContinuousClock.now
        let (alive, expired) = state.withLock { state in
            let expired = state.streams.filter { now - $0.opened >= maxAge }.map(\.writer)
            state.streams.removeAll { now - $0.opened >= maxAge }
            return (state.streams.map(\.writer), expired)
        }
        for writer in expired { writer.finish() }
        for writer in alive { writer.write(Array(": heartbeat\n\n".utf8)) }
    }
}
