import Dispatch
import Foundation
import HTTPCore
import PageModel
import Synchronization

/// Where the server writes its lines (access log, startup messages). Libraries take a sink; tests pass
/// ``MemoryLogSink``.
public protocol BFFLogSink: Sendable {
    func write(_ line: String)
    /// Writes one line that `build` appends to a byte buffer (UTF-8, without the newline). Sinks that buffer
    /// bytes let `build` write into their buffer directly, so a line costs no intermediate `String`.
    func writeLine(_ build: (inout [UInt8]) -> Void)
}

extension BFFLogSink {
    public func writeLine(_ build: (inout [UInt8]) -> Void) {
        var line: [UInt8] = []
        build(&line)
        write(String(decoding: line, as: UTF8.self))
    }
}

/// Buffers lines and writes them to standard output in batches (at 32 KiB, every 200 ms, and on ``flush()``), so
/// access logging costs no syscall per request.
// @unchecked Sendable: `buffer` is a Mutex; `timer` is only touched in init and deinit.
public final class StandardOutputLogSink: BFFLogSink, @unchecked Sendable {
    private let buffer = Mutex<[UInt8]>([])
    private let timer: any DispatchSourceTimer

    public init() {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "flow-bff.log"))
        timer.schedule(deadline: .now() + .milliseconds(200), repeating: .milliseconds(200))
        timer.setEventHandler { [weak self] in self?.flush() }
        timer.resume()
    }

    deinit { timer.cancel() }

    public func write(_ line: String) {
        writeLine { $0.append(contentsOf: line.utf8) }
    }

    public func writeLine(_ build: (inout [UInt8]) -> Void) {
        let full = buffer.withLock { buffer -> Bool in
            build(&buffer)
            buffer.append(UInt8(ascii: "\n"))
            return buffer.count >= 32_768
        }
        if full { flush() }
    }

    public func flush() {
        let bytes = buffer.withLock { buffer -> [UInt8] in
            defer { buffer.removeAll(keepingCapacity: true) }
            return buffer
        }
        guard !bytes.isEmpty else { return }
        // Straight to the descriptor (no `Data` copy, no FileHandle), retrying interrupted and partial writes.
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Platform.write(1, raw.baseAddress! + offset, raw.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}

/// Keeps lines in memory, for tests.
public final class MemoryLogSink: BFFLogSink {
    private let storage = Mutex<[String]>([])

    public init() {}

    public func write(_ line: String) { storage.withLock { $0.append(line) } }

    public var lines: [String] { storage.withLock { $0 } }
}
