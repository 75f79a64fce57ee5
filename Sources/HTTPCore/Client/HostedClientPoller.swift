/// The poller of a client loop hosted on a server ``EventLoop`` (``HTTPClient/Configuration/useServerEventLoops``):
/// libcurl's sockets join the server loop's own poller, its timer is part of the server loop's wait, and its inbox
/// runs on the server loop. A call made by a task on that loop reaches libcurl at once, and its answer resumes the
/// task right there: no lock is held across threads, no thread is woken, no thread hop.
// @unchecked Sendable: confined to the server loop except `wake()`, which goes through `EventLoop.execute`.
final class HostedClientPoller: ClientPoller, @unchecked Sendable {
    private let server: EventLoop
    private let detached: @Sendable (HTTPClientLoop) -> Void
    private var client: HTTPClientLoop?

    /// A poller on `server`; `detached` is told once the client loop has finished.
    init(server: EventLoop, detached: @escaping @Sendable (HTTPClientLoop) -> Void) {
        self.server = server
        self.detached = detached
    }

    func start(_ loop: HTTPClientLoop) {
        client = loop
        server.attach(loop)
    }

    func wake() {
        guard let client else { return }
        // On the server loop (a task calling the client): the inbox runs now, inside the caller's job, which never
        // runs inside a libcurl callback.
        if server.isCurrent {
            client.tick(at: server.now)
            client.runInbox()
            return
        }
        let server = self.server
        server.execute {
            client.tick(at: server.now)
            client.runInbox()
        }
    }

    func watch(_ fd: Int32, _ interest: Readiness) {
        guard let client else { return }
        server.watchForeign(fd, interest, for: client)
    }

    func unwatch(_ fd: Int32) {
        server.unwatchForeign(fd)
    }

    func closeSocket(_ fd: Int32) {
        server.closeForeign(fd)
    }

    func timerChanged() {
        // The server loop reads the client's timer before each wait (EventLoop.nextTimeout()).
    }

    func stop() {
        guard let client else { return }
        self.client = nil
        server.detach(client)
        detached(client)
    }
}
