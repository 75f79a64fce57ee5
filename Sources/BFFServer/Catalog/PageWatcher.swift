import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Watches a pages directory and calls `onChange` once per burst of changes (debounced), on its own thread.
///
/// The kernel's notifications on the directory (not the files; ``DirectoryEvents``: inotify on Linux, kqueue
/// elsewhere) see in-place writes, editors that rename a temporary file over the page, and deletes; a poll of every `*.json` file's (name, size, mtime, inode) every `pollIntervalMs` catches
/// what inotify cannot see (network and container mounts) and a replaced directory.
final class PageWatcher: Sendable {
    /// What a poll compares.
    struct Fingerprint: Hashable {
        var name: String
        var size: Int
        var modified: Int
        var inode: UInt
    }

    let directory: String
    let useInotify: Bool
    let pollIntervalMs: Int
    let debounceMs: Int
    private let onChange: @Sendable () -> Void
    /// The write end of the stop pipe, once started.
    private let stopFD = Atomic<Int32>(-1)

    init(
        directory: String, useInotify: Bool, pollIntervalMs: Int, debounceMs: Int,
        onChange: @escaping @Sendable () -> Void
    ) {
        self.directory = directory
        self.useInotify = useInotify
        self.pollIntervalMs = max(pollIntervalMs, 10)
        self.debounceMs = max(debounceMs, 0)
        self.onChange = onChange
    }

    /// Starts the watcher thread; returns how it watches: `inotify+poll` (Linux), `kqueue+poll` or `poll`.
    @discardableResult
    func start() -> String {
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else { return "off" }
        let events = useInotify ? DirectoryEvents(directory: directory) : nil
        stopFD.store(pipeFDs[1], ordering: .sequentiallyConsistent)
        let readFD = pipeFDs[0]
        let descriptor = events != nil ? "\(DirectoryEvents.mechanism)+poll" : "poll"
        let thread = Thread { [self] in
            run(events: events, stopFD: readFD)
            events?.close()
            _ = close(readFD)
        }
        thread.name = "flow-bff.watch"
        thread.start()
        return descriptor
    }

    /// Stops the thread (it exits within one wake-up). Idempotent.
    func stop() {
        let fd = stopFD.exchange(-1, ordering: .sequentiallyConsistent)
        guard fd >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
        _ = close(fd)
    }

    private func run(events: DirectoryEvents?, stopFD: Int32) {
        // The data folder (`data/`, DataDocuments) is watched too: its own events once it exists, and the poll.
        let dataDirectory = directory + "/" + DataDocuments.folder
        var dataEvents = useInotify ? DirectoryEvents(directory: dataDirectory) : nil
        defer { dataEvents?.close() }
        var known = Self.scan(directory)
        var nextPoll = Self.now() + Double(pollIntervalMs) / 1000
        var lastChange: Double?
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let now = Self.now()
            var timeout = max(0, nextPoll - now)
            if let lastChange { timeout = min(timeout, max(0, lastChange + Double(debounceMs) / 1000 - now)) }
            var fds = [pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)]
            if let events { fds.append(pollfd(fd: events.fd, events: Int16(POLLIN), revents: 0)) }
            if let dataEvents { fds.append(pollfd(fd: dataEvents.fd, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), Int32((timeout * 1000).rounded(.up)))
            if ready < 0 && errno != EINTR { return }
            if fds[0].revents != 0 { return }
            if let events, fds[1].revents != 0 {
                if events.drain(&buffer) { lastChange = Self.now() }
            }
            if let dataEvents, fds[fds.count - 1].revents != 0 {
                if dataEvents.drain(&buffer) { lastChange = Self.now() }
            }
            if useInotify, dataEvents == nil, lastChange != nil {
                // A data folder created since the start: watch it from now on (the poll saw it meanwhile).
                dataEvents = DirectoryEvents(directory: dataDirectory)
            }
            if Self.now() >= nextPoll {
                let current = Self.scan(directory)
                if current != known {
                    known = current
                    lastChange = Self.now()
                }
                nextPoll = Self.now() + Double(pollIntervalMs) / 1000
            }
            if let changed = lastChange, Self.now() >= changed + Double(debounceMs) / 1000 {
                lastChange = nil
                known = Self.scan(directory)
                onChange()
            }
        }
    }

    /// Every `*.json` file's fingerprint, sorted by name, then those of the data folder (`data/<name>`).
    static func scan(_ directory: String) -> [Fingerprint] {
        scan(directory, prefix: "") + scan(directory + "/" + DataDocuments.folder, prefix: DataDocuments.folder + "/")
    }

    private static func scan(_ directory: String, prefix: String) -> [Fingerprint] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var prints: [Fingerprint] = []
        for name in names.sorted() where name.hasSuffix(".json") {
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0 else { continue }
            prints.append(
                Fingerprint(
                    name: prefix + name, size: Int(info.st_size),
                    modified: DirectoryEvents.modified(info),
                    inode: UInt(info.st_ino)))
        }
        return prints
    }

    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}
