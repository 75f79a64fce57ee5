/// One RESP2 value (the Redis serialization protocol): what a Redis server answers.
enum RESPValue: Sendable, Hashable {
    case simple(String)
    case error(String)
    case integer(Int)
    case bulk([UInt8])
    case null
    case array([RESPValue])

    /// `command` as a RESP array of bulk strings, the form Redis expects requests in.
    static func encode(_ command: [[UInt8]]) -> [UInt8] {
        var bytes = Array("*\(command.count)\r\n".utf8)
        for argument in command {
            bytes += Array("$\(argument.count)\r\n".utf8)
            bytes += argument
            bytes += [13, 10]
        }
        return bytes
    }

    /// `command`'s text arguments encoded (see ``encode(_:)-(_:)``).
    static func encode(_ command: [String]) -> [UInt8] { encode(command.map { Array($0.utf8) }) }

    /// The first complete value at the start of `bytes` and how many bytes it took, or `nil` when more bytes are
    /// needed.
    /// - Throws: ``RedisError`` for bytes that are not RESP.
    static func decode(_ bytes: ArraySlice<UInt8>) throws(RedisError) -> (value: RESPValue, count: Int)? {
        guard let type = bytes.first, let lineEnd = lineEnd(bytes) else { return nil }
        let line = String(decoding: bytes[(bytes.startIndex + 1)..<lineEnd], as: UTF8.self)
        let headerCount = lineEnd + 2 - bytes.startIndex
        switch type {
        case UInt8(ascii: "+"): return (.simple(line), headerCount)
        case UInt8(ascii: "-"): return (.error(line), headerCount)
        case UInt8(ascii: ":"):
            guard let integer = Int(line) else { throw RedisError("invalid RESP integer \(line)") }
            return (.integer(integer), headerCount)
        case UInt8(ascii: "$"):
            guard let length = Int(line), length >= -1 else { throw RedisError("invalid RESP bulk length \(line)") }
            if length == -1 { return (.null, headerCount) }
            let start = lineEnd + 2
            guard bytes.endIndex - start >= length + 2 else { return nil }
            guard bytes[start + length] == 13, bytes[start + length + 1] == 10 else {
                throw RedisError("RESP bulk string without CRLF")
            }
            return (.bulk(Array(bytes[start..<(start + length)])), headerCount + length + 2)
        case UInt8(ascii: "*"):
            guard let count = Int(line), count >= -1 else { throw RedisError("invalid RESP array length \(line)") }
            if count == -1 { return (.null, headerCount) }
            var elements: [RESPValue] = []
            var used = headerCount
            for _ in 0..<count {
                guard let (element, length) = try decode(bytes[(bytes.startIndex + used)...]) else { return nil }
                elements.append(element)
                used += length
            }
            return (.array(elements), used)
        default:
            throw RedisError("unexpected RESP type byte \(type)")
        }
    }

    /// The index of the `\r` of the first CRLF in `bytes`.
    private static func lineEnd(_ bytes: ArraySlice<UInt8>) -> Int? {
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            if bytes[index] == 13 && bytes[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }
}

/// A Redis command failed: no connection, a timeout, an error reply or bytes that are not RESP.
struct RedisError: Error, Sendable, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}
