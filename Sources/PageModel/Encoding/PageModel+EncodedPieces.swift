extension PageModel {
    /// The bytes of ``encoded()``, handed to `consume` in consecutive pieces of about `pieceSize` bytes, one
    /// section at a time: a long page is never held as one JSON tree nor as one buffer (the server hashes page
    /// files this way for their content version).
    ///
    /// - Parameters:
    ///   - pieceSize: a piece is handed over once it holds at least this many bytes. Default 64 KiB.
    ///   - consume: called with each piece in order; the concatenation is `encoded()`.
    public func encoded(pieceSize: Int = 65_536, into consume: ([UInt8]) -> Void) {
        var output: [UInt8] = []
        output.reserveCapacity(pieceSize + 1024)
        func flush(ifAtLeast minimum: Int) {
            guard output.count >= minimum, !output.isEmpty else { return }
            consume(output)
            output.removeAll(keepingCapacity: true)
        }
        output.append(UInt8(ascii: "{"))
        for (offset, member) in members(sections: .null).members.enumerated() {
            if offset > 0 { output.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(member.key, to: &output)
            output.append(UInt8(ascii: ":"))
            guard member.key == "sections" else {
                JSONWriter.append(member.value, to: &output)
                continue
            }
            output.append(UInt8(ascii: "["))
            for (index, section) in sections.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONWriter.append(section.json, to: &output)
                flush(ifAtLeast: pieceSize)
            }
            output.append(UInt8(ascii: "]"))
        }
        output.append(UInt8(ascii: "}"))
        flush(ifAtLeast: 0)
    }
}
