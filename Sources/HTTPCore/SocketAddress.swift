#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Creating the listening socket and formatting socket addresses.
enum SocketAddress {
    /// Binds and listens on `host:port`; returns the descriptor, the bound port and a printable address.
    static func listen(host: String, port: Int, backlog: Int32) throws(SystemError) -> (Int32, Int, String) {
        var literal = host
        if literal == "localhost" { literal = "127.0.0.1" }
        if literal.hasPrefix("[") && literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        guard port >= 0 && port <= 65535 else { throw SystemError(function: "bind (port out of range)", errno: EINVAL) }

        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let family: Int32
        if inet_pton(AF_INET, literal, &v4.sin_addr) == 1 {
            family = AF_INET
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
        } else if inet_pton(AF_INET6, literal, &v6.sin6_addr) == 1 {
            family = AF_INET6
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
        } else {
            throw SystemError(function: "inet_pton (host must be an IP literal)", errno: EINVAL)
        }

        let fd = try System.call("socket") { Platform.socket(family: family, nonBlocking: true) }
        do {
            try System.setOption(fd, SOL_SOCKET, SO_REUSEADDR, Int32(1))
            if family == AF_INET {
                _ = try withUnsafePointer(to: &v4) { (pointer) throws(SystemError) -> Int32 in
                    try System.call("bind") {
                        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
            } else {
                _ = try withUnsafePointer(to: &v6) { (pointer) throws(SystemError) -> Int32 in
                    try System.call("bind") {
                        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                        }
                    }
                }
            }
            _ = try System.call("listen") { Platform.listen(fd, backlog) }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            _ = try withUnsafeMutablePointer(to: &storage) { (pointer) throws(SystemError) -> Int32 in
                try System.call("getsockname") {
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
                }
            }
            let (address, boundPort) = describe(&storage)
            return (fd, boundPort, address)
        } catch {
            System.close(fd)
            throw error
        }
    }

    /// `"1.2.3.4:80"` or `"[::1]:80"` and the port.
    static func describe(_ storage: inout sockaddr_storage) -> (String, Int) {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var inAddress = address.pointee.sin_addr
                    inet_ntop(AF_INET, &inAddress, &text, socklen_t(text.count))
                    let port = Int(UInt16(bigEndian: address.pointee.sin_port))
                    return (
                        "\(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)):\(port)",
                        port
                    )
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var inAddress = address.pointee.sin6_addr
                    inet_ntop(AF_INET6, &inAddress, &text, socklen_t(text.count))
                    let port = Int(UInt16(bigEndian: address.pointee.sin6_port))
                    return (
                        "[\(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))]:\(port)",
                        port
                    )
                }
            }
        default:
            return ("unknown", 0)
        }
    }
}
