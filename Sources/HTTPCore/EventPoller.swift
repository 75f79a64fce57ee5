/// How an ``EventLoop`` learns that its sockets are ready: the epoll loop (a thread blocked in `epoll_wait`, Linux)
/// or Dispatch sources on a serial queue (portable). Both drive the same loop logic — accepting, connections,
/// timers, the deadline sweep, draining — through ``EventLoop``'s event entry points, and are only ever called
/// on the loop (its thread or its queue), except ``wake()``.
protocol EventPoller: AnyObject {
    /// Starts delivering events to `loop`. Ends by calling `loop.finish()` once `loop.afterEvents()` says stop.
    func start(_ loop: EventLoop)
    /// Makes the loop run its pending tasks soon (`loop.runTasks()`); callable from any thread.
    func wake()
    /// Starts or pauses watching the listening socket.
    func watchListener(_ watching: Bool)
    /// Stops watching the listening socket for good; `released` runs once the poller no longer uses it.
    func releaseListener(_ released: @escaping () -> Void)
    /// Starts watching a newly accepted connection for readability.
    func add(_ connection: Connection) throws(SystemError)
    /// Changes what the poller reports for `connection`.
    func setInterest(_ connection: Connection, _ interest: Readiness)
    /// Stops watching `connection` and closes its socket.
    func close(_ connection: Connection)
    /// Reports `fd`, a socket the loop does not own (libcurl's, for an ``HTTPClient`` hosted on the loop), for
    /// `interest` to ``EventLoop/foreignSocketReady(_:_:)`` from now on.
    func watchForeign(_ fd: Int32, _ interest: Readiness)
    /// Stops reporting `fd` (its owner keeps it open).
    func unwatchForeign(_ fd: Int32)
    /// Stops reporting `fd` and closes it once nothing uses it any more.
    func closeForeign(_ fd: Int32)
    /// Releases the poller's own resources (loop end, after every connection is closed).
    func stop()
}

extension HTTPServer.Configuration {
    /// Which event loop serves connections.
    public enum EventLoopKind: String, Sendable, CaseIterable {
        /// Threads blocked in `epoll_wait`, `sendfile` for large prepared bodies: the fast Linux path.
        case epoll
        /// Dispatch read/write sources on non-blocking sockets, one serial queue per loop: portable.
        case dispatch

        /// The poller of a loop of this kind; epoll is refused (`ENOSYS`) where there is none.
        func makePoller(listenFD: Int32, index: Int) throws(SystemError) -> any EventPoller {
            switch self {
            case .epoll:
                #if os(Linux)
                    try EpollPoller(listenFD: listenFD)
                #else
                    throw SystemError(function: "epoll (Linux only; use the dispatch event loop)", errno: ENOSYS)
                #endif
            case .dispatch:
                DispatchPoller(listenFD: listenFD, index: index)
            }
        }

        /// The poller of an ``HTTPClient`` loop of this kind; epoll is refused (`ENOSYS`) where there is none.
        func makeClientPoller(name: String) throws(SystemError) -> any ClientPoller {
            switch self {
            case .epoll:
                #if os(Linux)
                    try ClientEpollPoller(name: name)
                #else
                    throw SystemError(function: "epoll (Linux only; use the dispatch event loop)", errno: ENOSYS)
                #endif
            case .dispatch:
                ClientDispatchPoller(name: name)
            }
        }

        /// `epoll` on Linux, `dispatch` elsewhere.
        public static var platformDefault: EventLoopKind {
            #if os(Linux)
                .epoll
            #else
                .dispatch
            #endif
        }
    }
}
