/// HTTPCore: a strict, fast HTTP/1.1 server on BSD sockets and epoll.
///
/// Entry points: ``HTTPServer`` (configured by ``HTTPServer/Configuration``), ``HTTPResponder`` / ``Router``,
/// ``HTTPRequest``, ``HTTPResponse``, ``HTTPReply`` and ``PreparedBody``. The incremental ``HTTPParser`` is pure
/// (bytes in, requests out) and can be used without sockets.
public enum HTTPCore {}
