#if os(Linux)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The kernel's change notifications for one directory, as a descriptor ``PageWatcher`` can `poll`: inotify on
/// Linux (in-place writes, renames over a page, creates, deletes, the directory itself going away), a kqueue with
/// an `EVFILT_VNODE` filter on the directory elsewhere (the directory's entries changed: creates, deletes,
/// renames; in-place writes are left to the watcher's poll). Neither crosses every mount — hence the poll.
struct DirectoryEvents {
    /// Pollable for `POLLIN` when something changed.
    let fd: Int32
    #if !os(Linux)
        private let directoryFD: Int32
    #endif

    /// `inotify` or `kqueue`.
    static var mechanism: String {
        #if os(Linux)
            "inotify"
        #else
            "kqueue"
        #endif
    }

    /// Watches `directory`; nil when the platform refuses (the watcher then polls only).
    init?(directory: String) {
        #if os(Linux)
            fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard fd >= 0 else { return nil }
            let mask =
                IN_CLOSE_WRITE | IN_MODIFY | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB
                | IN_DELETE_SELF | IN_MOVE_SELF
            if inotify_add_watch(fd, directory, UInt32(mask)) < 0 {
                _ = Glibc.close(fd)
                return nil
            }
        #else
            directoryFD = open(directory, O_EVTONLY)
            guard directoryFD >= 0 else { return nil }
            fd = kqueue()
            guard fd >= 0 else {
                _ = Darwin.close(directoryFD)
                return nil
            }
            var change = kevent(
                ident: UInt(directoryFD), filter: Int16(EVFILT_VNODE), flags: UInt16(EV_ADD | EV_CLEAR),
                fflags: UInt32(NOTE_WRITE | NOTE_DELETE | NOTE_RENAME | NOTE_EXTEND | NOTE_ATTRIB), data: 0,
                udata: nil)
            guard kevent(fd, &change, 1, nil, 0, nil) == 0 else {
                _ = Darwin.close(fd)
                _ = Darwin.close(directoryFD)
                return nil
            }
        #endif
    }

    /// Reads the pending notifications; true when one concerns a page file or the directory itself.
    func drain(_ buffer: inout [UInt8]) -> Bool {
        #if os(Linux)
            var relevant = false
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard count > 0 else { return relevant }
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= count {
                    let (mask, length) = buffer.withUnsafeBytes { raw in
                        (
                            raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                            Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                        )
                    }
                    let nameBytes = buffer[(offset + header)..<min(offset + header + length, count)].prefix { $0 != 0 }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    if name.hasSuffix(".json") || mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
                        relevant = true
                    }
                    offset += header + length
                }
            }
        #else
            var event = kevent()
            var timeout = timespec(tv_sec: 0, tv_nsec: 0)
            var relevant = false
            while kevent(fd, nil, 0, &event, 1, &timeout) > 0 { relevant = true }
            return relevant
        #endif
    }

    func close() {
        #if os(Linux)
            _ = Glibc.close(fd)
        #else
            _ = Darwin.close(fd)
            _ = Darwin.close(directoryFD)
        #endif
    }

    /// A file's modification time in nanoseconds (`st_mtim` on Linux, `st_mtimespec` on Darwin).
    static func modified(_ info: stat) -> Int {
        #if os(Linux)
            Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
        #else
            Int(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int(info.st_mtimespec.tv_nsec)
        #endif
    }
}
