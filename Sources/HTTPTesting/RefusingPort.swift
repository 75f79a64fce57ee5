import HTTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback port where a connection is refused for as long as this object lives: a socket bound to
/// `127.0.0.1:0` that never listens. Unlike a port bound and closed again, nothing else started by a test running in
/// parallel can be given it meanwhile, so "nothing listens there" stays true.
public final class RefusingPort: Sendable {
    public let port: Int
    private let fd: Int32

    public init() throws {
        (fd, port) = try Self.bindLoopback()
    }

    deinit { close(fd) }

    /// A blocking TCP socket bound to `127.0.0.1` on a free port, not listening yet, and that port; the caller
    /// closes it.
    public static func bindLoopback() throws -> (fd: Int32, port: Int) {
        let fd = Platform.socket(family: AF_INET, nonBlocking: false)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard fd >= 0, bound else {
            if fd >= 0 { close(fd) }
            throw HTTPTestClient.ClientError(description: "could not bind a loopback port")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
