import ContractVerifier
import Foundation
import Testing

/// The traceability table of `docs/contract-testing.md` cannot rot: every normative line of `docs/contract.md`
/// is traced, every row quotes the contract verbatim, names real violation codes and real corpus cases that
/// report them, or says why the rule is not checkable from outside.
@Suite struct TraceabilityTests {
    /// One row: `| contract excerpt | codes | corpus cases | note |`.
    struct Row: CustomStringConvertible {
        var excerpt: String
        var codes: [String]
        var cases: [String]
        var note: String

        var description: String { "«\(excerpt)»" }
    }

    static let contract = (try? String(contentsOfFile: repositoryRoot + "/docs/contract.md", encoding: .utf8)) ?? ""
    static let testingGuide =
        (try? String(contentsOfFile: repositoryRoot + "/docs/contract-testing.md", encoding: .utf8)) ?? ""

    /// The rows of the table under `## Traceability` (up to the next `## ` heading).
    static let rows: [Row] = {
        var rows: [Row] = []
        var inSection = false
        for line in testingGuide.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                inSection = line.hasPrefix("## Traceability")
                continue
            }
            guard inSection, line.hasPrefix("|"), !line.hasPrefix("| contract.md"), !line.hasPrefix("| ---") else {
                continue
            }
            let cells = TraceabilityTests.cells(line)
            guard cells.count >= 4 else { continue }
            rows.append(
                Row(excerpt: cells[0], codes: backticked(cells[1]), cases: backticked(cells[2]), note: cells[3]))
        }
        return rows
    }()

    /// The cells of a Markdown table row, trimmed; `\|` is a literal `|` inside a cell.
    static func cells(_ line: Substring) -> [String] {
        var cells: [String] = []
        var cell = ""
        var escaped = false
        for character in line.dropFirst() {
            if escaped {
                cell += character == "|" ? "|" : "\\\(character)"
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                cells.append(cell.trimmingCharacters(in: .whitespaces))
                cell = ""
            } else {
                cell.append(character)
            }
        }
        return cells
    }

    /// The `` `…` `` spans of a cell.
    static func backticked(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().compactMap {
            $0.offset % 2 == 1 ? String($0.element) : nil
        }
    }

    /// The normative lines of the contract: outside code blocks and table header rows, those with *must*,
    /// *required* or *is an … error*.
    static let normativeLines: [(number: Int, text: String)] = {
        let lines = contract.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let keyword = /\bmust\b|\brequired\b|\bis an? (`[^`]+` )?error\b/.ignoresCase()
        var found: [(Int, String)] = []
        var inCode = false
        for (index, line) in lines.enumerated() {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inCode.toggle()
                continue
            }
            if inCode { continue }
            let isHeader = line.hasPrefix("|") && index + 1 < lines.count && lines[index + 1].hasPrefix("| -")
            if !isHeader, line.contains(keyword) { found.append((index + 1, line)) }
        }
        return found
    }()

    @Test func theTableHasRows() {
        #expect(Self.rows.count >= Self.normativeLines.count)
        #expect(Self.normativeLines.count >= 30, "the contract's normative lines were found")
    }

    @Test func everyNormativeLineOfTheContractIsTraced() {
        for (number, text) in Self.normativeLines {
            #expect(
                Self.rows.contains { text.contains($0.excerpt) },
                "docs/contract.md:\(number) has no row in the traceability table: \(text)")
        }
    }

    @Test func everyRowQuotesTheContract() {
        let lines = Self.contract.split(separator: "\n").map(String.init)
        for row in Self.rows {
            #expect(row.excerpt.count >= 12, "\(row): quote enough to be unambiguous")
            #expect(lines.contains { $0.contains(row.excerpt) }, "\(row) is not a line of docs/contract.md")
        }
    }

    @Test func everyCodeIsAViolationCode() {
        for row in Self.rows {
            for code in row.codes {
                #expect(ViolationCode.all.contains(code), "\(row): \(code) is not a violation code")
            }
        }
    }

    @Test func everyCaseExistsAndReportsTheRowsCode() throws {
        for row in Self.rows {
            for name in row.cases {
                let directory = repositoryRoot + "/Tests/ContractTests/" + name
                #expect(FileManager.default.fileExists(atPath: directory), "\(row): no corpus case \(name)")
                guard name.hasPrefix("BrokenServers/") else { continue }
                let broken = BrokenServer.all.first { "BrokenServers/" + $0.name == name }
                #expect(broken != nil, "\(row): \(name) has no expected-codes.txt")
                guard let broken else { continue }
                #expect(
                    !broken.expectedCodes.isDisjoint(with: row.codes),
                    "\(row): \(name) reports \(broken.expectedCodes.sorted()), not \(row.codes)")
            }
        }
    }

    @Test func everyRowIsProvedOrSaysWhyNot() {
        for row in Self.rows {
            if row.codes.isEmpty {
                #expect(row.note.hasPrefix("not checkable"), "\(row): no code, so the note says why not checkable")
            } else {
                #expect(!row.cases.isEmpty, "\(row): a claimed row names the broken server that proves it")
                #expect(!row.note.isEmpty, "\(row): the note says how the check observes the rule")
            }
        }
    }

    @Test func everyBrokenServerIsTraced() {
        let traced = Set(Self.rows.flatMap(\.cases))
        for broken in BrokenServer.all {
            #expect(traced.contains("BrokenServers/" + broken.name), "\(broken.name) is in no row of the table")
        }
    }
}
