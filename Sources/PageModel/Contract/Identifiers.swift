/// Allowed api action names: letters, digits, `.`, `_`, `-`; 1–128 characters, starting with a letter or digit.
public enum ActionName {
    public static let pattern = "[A-Za-z0-9][A-Za-z0-9._-]{0,127}"

    // @inlinable: called per request from BFFServer, where it must be specialized for `String`; unspecialized
    // generic code walks `some StringProtocol` through witness tables (about 2,000 instructions per call).
    @inlinable
    public static func isValid(_ name: some StringProtocol) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, PageID.isAlphanumeric(first), bytes.count <= 128 else { return false }
        var previous: UInt8 = 0
        for byte in bytes {
            guard
                PageID.isAlphanumeric(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                    || (byte == UInt8(ascii: ".") && previous != UInt8(ascii: "."))
            else { return false }
            previous = byte
        }
        return true
    }
}

/// Allowed page ids: letters, digits, `_`, `-`; 1–128 characters, starting with a letter or digit. No dots and no
/// slashes, so a page id can never name a path; ids are only ever looked up in the catalog's index.
public enum PageID {
    public static let pattern = "[A-Za-z0-9][A-Za-z0-9_-]{0,127}"

    // @inlinable: see ActionName.isValid.
    @inlinable
    public static func isValid(_ id: some StringProtocol) -> Bool {
        let bytes = id.utf8
        guard let first = bytes.first, isAlphanumeric(first), bytes.count <= 128 else { return false }
        return bytes.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    @inlinable
    public static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
