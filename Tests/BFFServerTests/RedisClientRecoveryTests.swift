import BFFTesting
import HTTPCore
import HTTPTesting
import Synchronization
import Testing

@testable import BFFRedis
@testable import BFFServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The Redis client reconnects after an outage although commands keep arriving while it fails fast (a chaos run
/// found every command pushing the reconnection back by another second, so a busy replica never reconnected).
@Suite struct RedisClientRecoveryTests {
    /// A loopback socket bound to a free port that refuses connections until ``listenAndPong()``.
    final class LateServer: Sendable {
        let fd: Int32
        let port: Int

        init() throws {
            (fd, port) = try RefusingPort.bindLoopback()
        }

        deinit { close(fd) }

        /// Starts listening (does not block).
        func startListening() -> Bool { listen(fd, 4) == 0 }

        /// Accepts connections until one sends a command, answers it `+PONG` and returns true; false when none
        /// did within 25 s (blocking: run it on a thread of its own). Connections the client gave up on before this
        /// thread ran (a starved machine) are read to EOF and skipped.
        func acceptAndPong() -> Bool {
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(25)
            while clock.now < deadline {
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, 1_000) >= 0 else { return false }
                guard entry.revents & Int16(POLLIN) != 0 else { continue }
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { continue }
                defer { close(connection) }
                var buffer = [UInt8](repeating: 0, count: 256)
                guard buffer.withUnsafeMutableBytes({ recv(connection, $0.baseAddress, $0.count, 0) }) > 0 else {
                    continue
                }
                let pong = Array("+PONG\r\n".utf8)
                return pong.withUnsafeBytes { Platform.send(connection, $0.baseAddress!, $0.count) } == pong.count
            }
            return false
        }
    }

    /// A replica told to share its keys through Redis must not quietly keep them to itself when the program that
    /// built it passed no store; given BFFRedis's, it uses it.
    @Test func aConfiguredRedisNeedsTheStoreInjected() throws {
        var configuration = BFFConfiguration()
        configuration.actions.redisURL = "redis://127.0.0.1:1"
        let catalog = PageCatalog.load(directory: try temporaryPages([:]))
        #expect(throws: MissingIdempotencyStore.self) {
            _ = try makeServer(configuration: configuration, catalog: catalog, log: MemoryLogSink())
        }
        let service = try makeServer(
            configuration: configuration, catalog: catalog, log: MemoryLogSink(),
            idempotencyStore: RedisIdempotencyStore.configured(by: configuration))
        #expect(service.application.actions.idempotencyStore is RedisIdempotencyStore)
    }

    @Test func commandsWhileFailingFastDoNotPostponeTheReconnection() async throws {
        let server = try LateServer()
        let client = RedisClient(
            endpoint: RedisEndpoint(host: "127.0.0.1", port: server.port), timeout: .seconds(5),
            reconnectDelay: .milliseconds(200))
        await #expect(throws: RedisError.self) { try await client.send(["PING"]) }  // refused: nothing listens
        // The server listens from here on (the kernel completes connections before the accept thread runs, so a
        // slow start of that thread on a loaded machine changes nothing for the client).
        #expect(server.startListening())
        // The accept thread is started without a trip through the concurrency pool (a starved pool once started it
        // after the client's attempts had timed out).
        let serverThread = BlockingThread(name: "late redis")
        let answered = Mutex(false)
        serverThread.post { answered.withLock { $0 = server.acceptAndPong() } }
        // Commands keep coming, far more often than the reconnect delay; one must reach the server once the delay
        // since the refused connection is over (bounded: 20 s, 100 times the delay).
        let start = ContinuousClock.now
        var reply: RESPValue?
        while reply == nil, ContinuousClock.now - start < .seconds(20) {
            reply = try? await client.send(["PING"])
            try await Task.sleep(for: .milliseconds(10))  // paces the commands; not a synchronisation
        }
        // With the bug every command pushed the next attempt back by the delay, so it never came: reconnecting within
        // the loop's bound is the whole proof (no tighter time bound: a loaded machine stretches the loop).
        #expect(reply == .simple("PONG"), "the client never reconnected")
        // Runs after the accept job on the same thread: its verdict.
        #expect(try await serverThread.run { answered.withLock { $0 } })
        serverThread.finish()
    }
}
