/// HTTPCore: a strict HTTP/1.1 server on BSD sockets and Dispatch.
public enum HTTPCore {}
