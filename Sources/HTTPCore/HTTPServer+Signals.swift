import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension HTTPServer {
    /// Installs `DispatchSourceSignal` handlers that start a graceful shutdown on each of `signals` (default
    /// SIGTERM and SIGINT): the first signal calls ``shutdown(gracePeriod:drainTimeout:)`` with `gracePeriod`
    /// (default zero: the drain begins at once), a later one ends a running grace period at once — what an operator
    /// pressing Ctrl-C twice expects. The signals' default action is disabled (`SIG_IGN`) while the handlers are
    /// installed and restored when the server stops, so an executable can `server.waitUntilStopped(); exit(0)`.
    /// Call after ``start()``. `onSignal`, if given, runs (on a Dispatch queue) on each signal right before the
    /// server acts on it, e.g. to turn the application's readiness off and log it.
    public func installSignalHandlers(
        _ signals: [Int32] = [SIGTERM, SIGINT], gracePeriod: Duration = .zero, drainTimeout: Duration? = nil,
        onSignal: (@Sendable (Int32) -> Void)? = nil
    ) {
        for signalNumber in signals {
            Platform.signal(signalNumber, ignore: true)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [weak self] in
                onSignal?(signalNumber)
                self?.shutdownOnSignal(gracePeriod: gracePeriod, drainTimeout: drainTimeout)
            }
            source.setCancelHandler {
                Platform.signal(signalNumber, ignore: false)
            }
            source.resume()
            if !addSignalSource(SignalSource(source: source)) { source.cancel() }
        }
    }
}
