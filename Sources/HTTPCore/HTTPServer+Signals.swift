import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension HTTPServer {
    /// Installs `DispatchSourceSignal` handlers that start a graceful ``shutdown(drainTimeout:)`` on each of
    /// `signals` (default SIGTERM and SIGINT). The signals' default action is disabled (`SIG_IGN`) while the
    /// handlers are installed and restored when the server stops, so an executable can
    /// `server.waitUntilStopped(); exit(0)`. Call after ``start()``. `onSignal`, if given, runs (on a Dispatch
    /// queue) right after the shutdown began, e.g. to log it.
    public func installSignalHandlers(
        _ signals: [Int32] = [SIGTERM, SIGINT], drainTimeout: Duration? = nil,
        onSignal: (@Sendable (Int32) -> Void)? = nil
    ) {
        for signalNumber in signals {
            Platform.signal(signalNumber, ignore: true)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [weak self] in
                self?.shutdown(drainTimeout: drainTimeout)
                onSignal?(signalNumber)
            }
            source.setCancelHandler {
                Platform.signal(signalNumber, ignore: false)
            }
            source.resume()
            if !addSignalSource(SignalSource(source: source)) { source.cancel() }
        }
    }
}
