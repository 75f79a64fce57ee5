/// How an ``HTTPClientLoop`` waits for libcurl's sockets and timer: an epoll thread (Linux) or Dispatch sources
/// on a serial queue. Both call the loop's entry points (``HTTPClientLoop/runInbox()``,
/// ``HTTPClientLoop/socketReady(_:_:)``, ``HTTPClientLoop/afterEvents()``) on the loop, one event at a time;
/// only ``wake()`` is called from other threads.
protocol ClientPoller: AnyObject {
    /// Starts delivering events to `loop`; ends by calling `loop.finish()` once `loop.afterEvents()` says stop.
    func start(_ loop: HTTPClientLoop)
    /// Makes the loop run its inbox soon; callable from any thread.
    func wake()
    /// Reports `fd` for `interest` (readable, writable or both) from now on.
    func watch(_ fd: Int32, _ interest: Readiness)
    /// Stops reporting `fd` (libcurl keeps the socket open, e.g. an idle pooled connection).
    func unwatch(_ fd: Int32)
    /// Stops reporting `fd` and closes it once nothing uses it any more (libcurl's close-socket callback).
    func closeSocket(_ fd: Int32)
    /// libcurl's timer moved (``HTTPClientLoop/timerDeadline``).
    func timerChanged()
    /// Releases the poller's resources (at the loop's end).
    func stop()
}
