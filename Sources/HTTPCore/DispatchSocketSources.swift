import Dispatch

/// A read and a write Dispatch source on one socket, resumed and suspended to follow what the owner wants reported
/// (both start inactive: the first resume activates a source). Dispatch owns a watched descriptor until its source
/// is cancelled, so the socket — and `watched`, a duplicate the sources may watch instead — is closed only in the
/// cancellation handlers, never while a source may still use it (swift-corelibs-libdispatch#833, see
/// ``DispatchPoller``). Used by the server's connections, libcurl's sockets on a client loop, and libcurl's sockets
/// hosted on a server loop; confined to the queue the sources target.
final class DispatchSocketSources {
    private let read: any DispatchSourceRead
    private let write: any DispatchSourceWrite
    private(set) var reading = false
    private(set) var writing = false

    /// Sources for `fd` (watching `watched`, `fd` itself by default) on `queue`, reporting to `readable` and
    /// `writable` once resumed by ``set(reading:writing:)``.
    init(
        fd: Int32, watched: Int32? = nil, queue: DispatchQueue, readable: @escaping () -> Void,
        writable: @escaping () -> Void
    ) {
        let watched = watched ?? fd
        read = DispatchSource.makeReadSource(fileDescriptor: watched, queue: queue)
        write = DispatchSource.makeWriteSource(fileDescriptor: watched, queue: queue)
        read.setEventHandler(handler: readable)
        write.setEventHandler(handler: writable)
        // The socket is closed once both sources are cancelled (their handlers run on the serial queue).
        var cancelled = 0
        let close: () -> Void = {
            cancelled += 1
            guard cancelled == 2 else { return }
            if watched != fd { System.close(watched) }
            System.close(fd)
        }
        read.setCancelHandler(handler: close)
        write.setCancelHandler(handler: close)
    }

    /// Resumes or suspends each source to match.
    func set(reading: Bool, writing: Bool) {
        if reading != self.reading {
            self.reading = reading
            if reading { read.resume() } else { read.suspend() }
        }
        if writing != self.writing {
            self.writing = writing
            if writing { write.resume() } else { write.suspend() }
        }
    }

    /// Cancels both sources; the socket is closed once both have finished. A suspended source never runs its
    /// cancellation handler, so both are resumed first.
    func cancel() {
        set(reading: true, writing: true)
        read.cancel()
        write.cancel()
    }
}

/// Sources by socket for the sockets a poller watches on libcurl's behalf (a client loop of its own, or libcurl's
/// sockets hosted on a server loop): watched, paused and closed by descriptor. Confined to `queue`.
struct DispatchSocketTable {
    private var entries: [Int32: DispatchSocketSources] = [:]
    private let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Reports `fd` for `interest` to `ready` (on `queue`) from now on; `ready` is kept from the first call.
    mutating func watch(_ fd: Int32, _ interest: Readiness, ready: @escaping (Int32, Readiness) -> Void) {
        let entry: DispatchSocketSources
        if let existing = entries[fd] {
            entry = existing
        } else {
            entry = DispatchSocketSources(
                fd: fd, queue: queue, readable: { ready(fd, .readable) }, writable: { ready(fd, .writable) })
            entries[fd] = entry
        }
        entry.set(reading: interest.contains(.readable), writing: interest.contains(.writable))
    }

    /// Stops reporting `fd` (its owner keeps it open).
    func unwatch(_ fd: Int32) {
        entries[fd]?.set(reading: false, writing: false)
    }

    /// Stops reporting `fd` and closes it once its sources are cancelled (at once when it is not watched).
    mutating func close(_ fd: Int32) {
        guard let entry = entries.removeValue(forKey: fd) else {
            System.close(fd)
            return
        }
        entry.cancel()
    }

    /// Closes every watched socket.
    mutating func closeAll() {
        for fd in Array(entries.keys) { close(fd) }
    }
}
