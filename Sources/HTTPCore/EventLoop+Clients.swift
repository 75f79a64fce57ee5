/// ``HTTPClient`` loops hosted on this loop (``HTTPClient/Configuration/useServerEventLoops``): a client called by a
/// task running here gets a libcurl multi handle of this loop — its own connection pool and DNS cache — whose
/// sockets and timer are served by this loop's poller between connection events. Loop thread only.
extension EventLoop {
    /// The loop's client loop for `client`, made on first use; `nil` when none can be made (the loop is ending, the
    /// client was shut down, or libcurl failed), in which case the call goes to the client's own loop.
    func hostedLoop(for client: HTTPClient) -> HTTPClientLoop? {
        if let existing = clientLoops[client.id] { return existing }
        guard !draining else { return nil }
        let poller = HostedClientPoller(server: self) { [weak client] loop in client?.forget(loop) }
        guard let loop = try? HTTPClientLoop(configuration: client.configuration, poller: poller) else { return nil }
        guard client.adopt(loop) else {
            loop.terminate()
            return nil
        }
        clientLoops[client.id] = loop
        return loop
    }

    /// Called by the hosted poller as the client loop starts.
    func attach(_ client: HTTPClientLoop) {
        hostedClients.append(client)
    }

    /// Called by the hosted poller as the client loop finishes: its sockets were closed by libcurl already.
    func detach(_ client: HTTPClientLoop) {
        hostedClients.removeAll { $0 === client }
        if let key = clientLoops.first(where: { $0.value === client })?.key { clientLoops[key] = nil }
        foreignSockets = foreignSockets.filter { $0.value !== client }
    }

    func watchForeign(_ fd: Int32, _ interest: Readiness, for client: HTTPClientLoop) {
        foreignSockets[fd] = client
        poller.watchForeign(fd, interest)
    }

    func unwatchForeign(_ fd: Int32) {
        poller.unwatchForeign(fd)
    }

    func closeForeign(_ fd: Int32) {
        foreignSockets[fd] = nil
        poller.closeForeign(fd)
    }

    /// A hosted client's socket is ready (both pollers).
    func foreignSocketReady(_ fd: Int32, _ readiness: Readiness) {
        guard let client = foreignSockets[fd] else { return }
        client.tick(at: now)
        client.socketReady(fd, readiness)
    }

    /// The earliest libcurl timer of the hosted clients, in nanoseconds from now.
    func hostedClientsTimeout() -> UInt64? {
        var wait: UInt64?
        for client in hostedClients {
            client.tick(at: now)
            if let timeout = client.nextTimeout() { wait = min(wait ?? timeout, timeout) }
        }
        return wait
    }

    /// Fires the hosted clients' due timers and finishes the ones that stopped.
    func runHostedClients() {
        var finished: [HTTPClientLoop] = []
        for client in hostedClients {
            client.tick(at: now)
            if client.afterEvents() { finished.append(client) }
        }
        for client in finished { client.finish() }
    }

    /// Ends every hosted client at the loop's end: their calls fail with ``HTTPClientError/Kind/shutdown``.
    func terminateHostedClients() {
        for client in hostedClients { client.terminate() }
    }
}
