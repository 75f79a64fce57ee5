import Foundation
import HTTPCore
import PageModel

/// A running flow-bff: the application and the HTTP server that drives it.
public final class BFFService: Sendable {
    public let application: BFFApplication
    public let server: HTTPServer
    /// The operations listener (`server.adminPort`): `/healthz`, `/readyz`, `/metrics`; `nil` when not configured.
    public let operationsServer: HTTPServer?
    /// Reloads the pages on change in mock mode (`mock.watch`); `nil` otherwise.
    let watcher: PageWatcher?

    init(
        application: BFFApplication, server: HTTPServer, operationsServer: HTTPServer? = nil,
        watcher: PageWatcher? = nil
    ) {
        self.application = application
        self.server = server
        self.operationsServer = operationsServer
        self.watcher = watcher
    }

    /// Binds and starts serving; returns once connections are accepted.
    ///
    /// - Throws: ``AddressInUseError`` when another process holds the address, else what binding threw.
    public func start() throws {
        do {
            try server.start()
        } catch let error as SystemError where error.errno == EADDRINUSE {
            throw AddressInUseError(
                address: Self.address(application.configuration.server.host, application.configuration.server.port))
        }
        if let operationsServer {
            do {
                try operationsServer.start()
            } catch let error as SystemError where error.errno == EADDRINUSE {
                server.shutdown(drainTimeout: .zero)
                throw AddressInUseError(
                    address: Self.address(application.configuration.server.host, operationsServer.configuration.port))
            } catch {
                server.shutdown(drainTimeout: .zero)
                throw error
            }
        }
        let server = server
        application.reportOpenConnections { server.statistics.openConnections }
        // Checked once serving starts, when the Swift providers and handlers are registered.
        if application.configuration.mock.enabled {
            for warning in application.unmatchedFaultRules(application.configuration.mock.faults) {
                application.log.warning(warning, ["key": "mock.faults"])
            }
        }
        if let watcher { application.watcherStarted(watcher.start()) }
    }

    private static func address(_ host: String, _ port: Int) -> String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// The bound port (after ``start()``).
    public var port: Int { server.port }

    /// `http://host:port` of the operations listener (after ``start()``); `nil` without `server.adminPort`.
    public var operationsURL: String? { operationsServer.map { "http://" + $0.localAddress } }

    /// `http://host:port` of the bound socket, IPv6 hosts in brackets.
    public var baseURL: String { "http://" + server.localAddress }

    /// Graceful shutdown: `/readyz` turns 503, new connections are refused, in-flight requests finish. The operations
    /// listener stays up, answering `/readyz` with 503, until ``waitUntilStopped()`` or ``stoppedAsync()`` sees the
    /// public listener stopped.
    public func shutdown() {
        application.setReady(false)
        watcher?.stop()
        application.reload.events.finishAll()  // open preview streams would otherwise hold the drain to its end
        server.shutdown(drainTimeout: .milliseconds(Int(application.configuration.server.drainSeconds * 1000)))
    }

    /// Blocks until the server has stopped, then stops the operations listener: it answers `/readyz` with 503
    /// for as long as the public listener drains, so a load balancer probing it sees the drain. Then exports the
    /// spans still queued (tracing on).
    @available(*, noasync, message: "blocks a thread of the concurrency pool; await stoppedAsync() instead")
    public func waitUntilStopped() {
        server.waitUntilStopped()
        operationsServer?.shutdown(drainTimeout: .seconds(1))
        operationsServer?.waitUntilStopped()
        application.spanExporter?.shutdown(
            waitingAtMost: .seconds(application.configuration.tracing.exportTimeoutSeconds + 1))
    }

    /// Suspends until both listeners have stopped (after ``shutdown()``), then exports the spans still queued.
    public func stoppedAsync() async {
        await server.stoppedAsync()
        operationsServer?.shutdown(drainTimeout: .seconds(1))
        await operationsServer?.stoppedAsync()
        await application.spanExporter?.shutdown()
    }
}

/// The server cannot bind: another process (often another flow-bff) holds the address.
public struct AddressInUseError: Error, Sendable, CustomStringConvertible {
    /// `host:port`, IPv6 hosts in brackets.
    public var address: String

    public var description: String {
        "\(address) is already in use; stop the process that holds it or choose another port (--port, "
            + "FLOW_BFF_SERVER_PORT, or 0 for a free one)"
    }
}
