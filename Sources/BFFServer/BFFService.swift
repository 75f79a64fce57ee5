import Foundation
import HTTPCore
import PageModel
import Synchronization

/// A running flow-bff: the application and the HTTP server that drives it.
public final class BFFService: Sendable {
    public let application: BFFApplication
    public let server: HTTPServer
    /// The HTTPS listener (`tls.port`), serving the same application; `nil` when not configured.
    public let tlsServer: HTTPServer?
    /// The development CA's files when the HTTPS certificate comes from it (mock mode without `tls.certificateFile`).
    public let developmentCA: DevelopmentCA.Outcome?
    /// The operations listener (`server.adminPort`): `/healthz`, `/readyz`, `/metrics`; `nil` when not configured.
    public let operationsServer: HTTPServer?
    /// Reloads the pages on change in mock mode (`mock.watch`); `nil` otherwise.
    let watcher: PageWatcher?
    /// Shutdown requests so far (calls and signals): the first one is logged as the start of the sequence.
    private let shutdownRequests = Atomic<Int>(0)
    /// ``installSignalHandlers()`` was called: SIGTERM and SIGINT are this service's.
    private let handlesSignals = Atomic<Bool>(false)

    init(
        application: BFFApplication, server: HTTPServer, tlsServer: HTTPServer? = nil,
        developmentCA: DevelopmentCA.Outcome? = nil, operationsServer: HTTPServer? = nil, watcher: PageWatcher? = nil
    ) {
        self.application = application
        self.server = server
        self.tlsServer = tlsServer
        self.developmentCA = developmentCA
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
        if let tlsServer {
            do {
                try tlsServer.start()
            } catch let error as SystemError where error.errno == EADDRINUSE {
                server.shutdown(drainTimeout: .zero)
                throw AddressInUseError(
                    address: Self.address(application.configuration.server.host, tlsServer.configuration.port))
            } catch {
                server.shutdown(drainTimeout: .zero)
                throw error
            }
        }
        if let operationsServer {
            do {
                try operationsServer.start()
            } catch let error as SystemError where error.errno == EADDRINUSE {
                server.shutdown(drainTimeout: .zero)
                tlsServer?.shutdown(drainTimeout: .zero)
                throw AddressInUseError(
                    address: Self.address(application.configuration.server.host, operationsServer.configuration.port))
            } catch {
                server.shutdown(drainTimeout: .zero)
                tlsServer?.shutdown(drainTimeout: .zero)
                throw error
            }
        }
        let (server, tlsServer) = (server, tlsServer)
        application.reportOpenConnections {
            server.statistics.openConnections + (tlsServer?.statistics.openConnections ?? 0)
        }
        // Checked once serving starts, when the Swift providers and handlers are registered.
        if application.configuration.mock.enabled {
            for warning in application.unmatchedFaultRules(application.configuration.mock.faults) {
                application.log.warning(warning, ["key": "mock.faults"])
            }
        }
        if let watcher { application.watcherStarted(watcher.start()) }
        let (application, watcher, drainSeconds) = (application, watcher, application.configuration.server.drainSeconds)
        server.onDrainStart {
            watcher?.stop()
            application.reload.events.finishAll()  // open preview streams would otherwise hold the drain to its end
            application.log.info(
                "draining: new connections refused, requests in flight get up to \(Self.seconds(drainSeconds)) s "
                    + "(server.drainSeconds)")
        }
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

    /// `https://host:port` of the HTTPS listener (after ``start()``); `nil` without `tls.port`.
    public var tlsURL: String? { tlsServer.map { "https://" + $0.localAddress } }

    /// The configured grace period (`server.shutdownGraceSeconds`).
    public var gracePeriod: Duration {
        .milliseconds(Int(application.configuration.server.shutdownGraceSeconds * 1000))
    }

    private var drainTimeout: Duration { .milliseconds(Int(application.configuration.server.drainSeconds * 1000)) }

    /// Graceful shutdown (docs/operations.md, "Health, readiness and graceful shutdown"): `/readyz` turns 503 at once;
    /// for `gracePeriod` (default ``gracePeriod``, `server.shutdownGraceSeconds`) the server still accepts and
    /// serves, every response with `Connection: close`, so a load balancer probing readiness stops sending here
    /// before anything is refused; then new connections are refused and requests in flight finish within
    /// `server.drainSeconds`. The operations listener stays up, answering `/readyz` with 503, until
    /// ``waitUntilStopped()`` or ``stoppedAsync()`` sees the public listener stopped. Called again with `.zero` (or a
    /// shorter period) during the grace period, it begins the drain at once.
    public func shutdown(gracePeriod: Duration? = nil) {
        let grace = gracePeriod ?? self.gracePeriod
        application.setReady(false)
        announce("shutdown requested", gracePeriod: grace, logsRepeat: grace == .zero && server.isInGracePeriod)
        server.shutdown(gracePeriod: grace, drainTimeout: drainTimeout)
        tlsServer?.shutdown(gracePeriod: grace, drainTimeout: drainTimeout)
    }

    /// Shuts down on SIGTERM and SIGINT, as ``shutdown(gracePeriod:)`` with the configured grace period; a second
    /// signal ends the grace period at once (HTTPCore's ``HTTPServer/installSignalHandlers(_:gracePeriod:drainTimeout:onSignal:)``).
    /// Logs each phase. Call after ``start()``.
    public func installSignalHandlers() {
        let grace = gracePeriod
        let drainTimeout = drainTimeout
        handlesSignals.store(true, ordering: .relaxed)
        server.installSignalHandlers(gracePeriod: grace, drainTimeout: drainTimeout) { [self] signal in
            application.setReady(false)
            announce("signal \(signal)", gracePeriod: grace, logsRepeat: true)
            // The HTTPS listener follows the public one: the grace period first, a later signal drains at once.
            let first = shutdownRequests.load(ordering: .relaxed) == 1
            tlsServer?.shutdown(gracePeriod: first ? grace : .zero, drainTimeout: drainTimeout)
        }
    }

    /// Logs a shutdown request: the first starts the sequence; a later one only when `logsRepeat` (every later
    /// signal; a call that ends a running grace period).
    private func announce(_ cause: String, gracePeriod: Duration, logsRepeat: Bool) {
        let request = shutdownRequests.add(1, ordering: .relaxed).newValue
        if request > 1 {
            if logsRepeat { application.log.info("\(cause) again: draining now") }
        } else if gracePeriod > .zero {
            let (seconds, attoseconds) = gracePeriod.components
            application.log.info(
                "\(cause): not ready (/readyz 503); still accepting and serving for "
                    + "\(Self.seconds(Double(seconds) + Double(attoseconds) / 1e18)) s (server.shutdownGraceSeconds), "
                    + "every response Connection: close; then draining")
        } else {
            application.log.info("\(cause): not ready (/readyz 503); draining")
        }
    }

    /// `10`, `2.5`.
    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// Blocks until the server has stopped, then stops the operations listener: it answers `/readyz` with 503
    /// for as long as the public listener drains, so a load balancer probing it sees the drain. Then exports the
    /// spans still queued (tracing on).
    @available(*, noasync, message: "blocks a thread of the concurrency pool; await stoppedAsync() instead")
    public func waitUntilStopped() {
        server.waitUntilStopped()
        // The public listener restored the signals' default action when it stopped; the HTTPS one drains to the same
        // deadline, and a signal meanwhile must not kill the process under its requests in flight.
        if let tlsServer {
            let handled = handlesSignals.load(ordering: .relaxed)
            if handled { for signal in [SIGTERM, SIGINT] { Platform.signal(signal, ignore: true) } }
            tlsServer.waitUntilStopped()
            if handled { for signal in [SIGTERM, SIGINT] { Platform.signal(signal, ignore: false) } }
        }
        operationsServer?.shutdown(drainTimeout: .seconds(1))
        operationsServer?.waitUntilStopped()
        application.spanExporter?.shutdown(
            waitingAtMost: .seconds(application.configuration.tracing.exportTimeoutSeconds + 1))
    }

    /// Suspends until both listeners have stopped (after ``shutdown(gracePeriod:)``), then exports the spans still
    /// queued.
    public func stoppedAsync() async {
        await server.stoppedAsync()
        await tlsServer?.stoppedAsync()
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
