/// What a socket is ready for, as an event poller reports it, and what a connection wants to be told about.
struct Readiness: OptionSet, Sendable {
    let rawValue: UInt8

    static let readable = Readiness(rawValue: 1 << 0)
    static let writable = Readiness(rawValue: 1 << 1)
    /// The peer hung up (reported even when not reading).
    static let hangup = Readiness(rawValue: 1 << 2)
    /// An error is pending on the socket.
    static let error = Readiness(rawValue: 1 << 3)
}
