import BFFServer
import Dispatch
import HTTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small Redis client: one connection, used from its own serial Dispatch queue — never a thread of the Swift
/// concurrency pool — over a non-blocking socket whose every wait is a `poll` bounded by ``timeout``. Commands
/// run one at a time in the order sent. After a failure the connection is closed and, for ``reconnectDelay`` from
/// that failure, commands fail at once instead of each waiting for a dead server; then the next command reconnects.
final class RedisClient: @unchecked Sendable {  // the mutable state is touched only on `queue`
    let endpoint: RedisEndpoint
    /// Longest a command (or a connection attempt) may take.
    let timeout: Duration
    /// How long commands fail fast after a failure before the next reconnection attempt.
    let reconnectDelay: Duration

    private let queue = DispatchQueue(label: "flow-bff.redis")
    private var descriptor: Int32 = -1
    private var buffer: [UInt8] = []
    private var retryAfter: ContinuousClock.Instant?

    init(endpoint: RedisEndpoint, timeout: Duration, reconnectDelay: Duration = .seconds(1)) {
        self.endpoint = endpoint
        self.timeout = timeout
        self.reconnectDelay = reconnectDelay
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Sends `command` and returns the reply; an error reply is returned as ``RESPValue/error(_:)``.
    /// - Throws: ``RedisError`` when there is no connection, on a timeout or on bytes that are not RESP.
    func send(_ command: [[UInt8]]) async throws -> RESPValue {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try self.run(command) }) }
        }
    }

    /// ``send(_:)-(_:)`` with text arguments.
    func send(_ command: [String]) async throws -> RESPValue { try await send(command.map { Array($0.utf8) }) }

    // MARK: - On `queue`

    private func run(_ command: [[UInt8]]) throws(RedisError) -> RESPValue {
        // Failing fast does not push the next attempt back: under steady traffic (a command more often than once
        // per reconnectDelay) that kept the client from ever reconnecting after an outage.
        if descriptor < 0, let retryAfter, ContinuousClock.now < retryAfter {
            throw RedisError("Redis at \(endpoint.host):\(endpoint.port) is unavailable (retrying shortly)")
        }
        do {
            if descriptor < 0 { try open() }
            return try exchange(RESPValue.encode(command), deadline: .now + timeout)
        } catch {
            closeAfterFailure()
            throw error
        }
    }

    private func closeAfterFailure() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        buffer = []
        retryAfter = .now + reconnectDelay
    }

    private func open() throws(RedisError) {
        let deadline = ContinuousClock.now + timeout
        descriptor = try openSocket(deadline: deadline)
        if let password = endpoint.password {
            let auth = endpoint.user.map { ["AUTH", $0, password] } ?? ["AUTH", password]
            if case .error(let message) = try exchange(RESPValue.encode(auth), deadline: deadline) {
                throw RedisError("Redis AUTH failed: \(message)")
            }
        }
        if endpoint.database != 0 {
            let select = RESPValue.encode(["SELECT", String(endpoint.database)])
            if case .error(let message) = try exchange(select, deadline: deadline) {
                throw RedisError("Redis SELECT failed: \(message)")
            }
        }
        retryAfter = nil
    }

    /// Resolves the endpoint and connects to its first reachable address before `deadline`.
    private func openSocket(deadline: ContinuousClock.Instant) throws(RedisError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Platform.streamType
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard status == 0, let first = list else {
            throw RedisError("cannot resolve Redis host \(endpoint.host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = Platform.socket(family: address.pointee.ai_family, nonBlocking: true)
            guard fd >= 0 else { continue }
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            var result = Platform.connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen)
            if result != 0 && (errno == EINPROGRESS || errno == EINTR) {
                do {
                    try wait(fd, for: Int16(POLLOUT), until: deadline)
                    var code: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
                    result = code == 0 ? 0 : -1
                    if code != 0 { errno = code }
                } catch {
                    lastError = error.description
                    close(fd)
                    continue
                }
            }
            if result == 0 { return fd }
            lastError = String(cString: strerror(errno))
            close(fd)
        }
        throw RedisError("cannot connect to Redis at \(endpoint.host):\(endpoint.port): \(lastError)")
    }

    /// Writes `request` and reads one reply before `deadline`.
    private func exchange(_ request: [UInt8], deadline: ContinuousClock.Instant) throws(RedisError) -> RESPValue {
        var written = 0
        while written < request.count {
            let count = request.withUnsafeBytes { raw in
                Platform.send(descriptor, raw.baseAddress! + written, raw.count - written)
            }
            if count > 0 {
                written += count
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                try wait(descriptor, for: Int16(POLLOUT), until: deadline)
            } else {
                throw RedisError("Redis write failed: \(String(cString: strerror(errno)))")
            }
        }
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            if let (value, used) = try RESPValue.decode(buffer[...]) {
                buffer.removeFirst(used)
                return value
            }
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer += chunk[0..<count]
            } else if count == 0 {
                throw RedisError("Redis closed the connection")
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                try wait(descriptor, for: Int16(POLLIN), until: deadline)
            } else {
                throw RedisError("Redis read failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Polls `fd` for `events` until `deadline`.
    private func wait(_ fd: Int32, for events: Int16, until deadline: ContinuousClock.Instant) throws(RedisError) {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw RedisError("Redis did not answer within \(timeout)") }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(min(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1, 60_000))
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let result = poll(&entry, 1, milliseconds)
            if result > 0 { return }
            if result < 0 && errno != EINTR {
                throw RedisError("poll failed: \(String(cString: strerror(errno)))")
            }
        }
    }
}
