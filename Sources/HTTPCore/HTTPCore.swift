/// HTTPCore: a strict, fast HTTP/1.1 server and libcurl client on BSD sockets, driven by event loops on epoll (Linux)
/// or Dispatch sources.
///
/// Entry points: ``HTTPServer`` (configured by ``HTTPServer/Configuration``), ``HTTPResponder`` / ``Router``,
/// ``HTTPRequest``, ``HTTPResponse``, ``HTTPReply`` and ``PreparedBody``. The incremental ``HTTPParser`` is pure
/// (bytes in, requests out) and can be used without sockets.
public enum HTTPCore {}
