import Foundation
import PageModel

extension PageCatalog {
    /// `diagnostics` with the position in its file of every finding's path. Only files with findings are read
    /// again and scanned, so a clean load pays nothing.
    static func locating(_ diagnostics: [FileDiagnostic], in directory: String) -> [FileDiagnostic] {
        var maps: [String: JSONSourceMap?] = [:]
        var bytesByFile: [String: [UInt8]?] = [:]
        return diagnostics.map { finding in
            guard finding.position == nil, finding.file.hasSuffix(".json"), finding.diagnostic.code != "skipped_file"
            else { return finding }
            if bytesByFile[finding.file] == nil {
                bytesByFile[finding.file] = FileManager.default.contents(atPath: directory + "/" + finding.file)
                    .map { Array($0) }
            }
            guard let bytes = bytesByFile[finding.file] ?? nil else { return finding }
            var located = finding
            if finding.diagnostic.code == "invalid_json" {
                do throws(JSONSyntaxError) {
                    _ = try JSONParser().parse(bytes)
                } catch {
                    located.position = JSONSourceMap.Position(
                        line: error.line, column: error.column, offset: error.offset)
                }
                return located
            }
            if maps[finding.file] == nil { maps[finding.file] = JSONSourceMap(bytes: bytes) }
            let map = maps[finding.file] ?? nil
            located.position = map?.position(of: finding.diagnostic.path)
            if finding.diagnostic.code == "duplicate_id", let map {
                located.diagnostic.message = Self.locatingFirstHolder(in: finding.diagnostic.message, map: map)
            }
            return located
        }
    }

    /// A `duplicate_id` message with the first holder's line and column after its pointer (`… by
    /// /page/header/0 (3:5); renamed …`), so both positions are in the finding.
    static func locatingFirstHolder(in message: String, map: JSONSourceMap) -> String {
        guard let by = message.firstRange(of: " by /"), let end = message[by.upperBound...].firstIndex(of: ";")
        else { return message }
        let pointer = String(message[message.index(before: by.upperBound)..<end])
        guard let position = map.position(of: JSONPointer(string: pointer)) else { return message }
        return String(message[..<end]) + " (\(position.line):\(position.column))" + String(message[end...])
    }
}
