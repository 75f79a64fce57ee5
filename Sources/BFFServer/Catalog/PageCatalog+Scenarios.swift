import Foundation
import PageModel

/// A named variant of a page (`pages/<pageID>.<scenario>.json`), served instead of the page in mock mode when a
/// request or session chooses it: another page document (`empty`, `long`, …) or a problem answer (`error`,
/// `logged-out`, …).
public struct CatalogScenario: Sendable {
    public enum Content: Sendable {
        /// A page served with the usual pagination, cursors (bound to this variant's version) and ETag.
        case page(CatalogPage)
        /// A problem+json answer with its status.
        case problem(ProblemDetails)
    }

    public var name: String
    public var pageID: String
    public var content: Content
    /// The file it came from, relative to the pages directory.
    public var file: String

    /// `cart.empty.json` → (`cart`, `empty`); both parts follow the page-id rule.
    public static func parse(fileName: String) -> (pageID: String, scenario: String)? {
        guard fileName.hasSuffix(".json") else { return nil }
        let parts = fileName.dropLast(5).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, PageID.isValid(parts[0]), PageID.isValid(parts[1]) else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    static func isScenarioFileName(_ name: String) -> Bool { parse(fileName: name) != nil }
}

extension PageCatalog {
    /// Loads scenario files after the pages (decoded by ``ScenarioFile``, unless ``sources`` can reuse them): each
    /// must belong to a page file in the directory, hold a page with that page's id (and no actions of its own) or a
    /// problem document, and reference only declared actions and pages.
    mutating func addScenarios(directory: String, names: [String]) {
        let pageFiles = Set(
            ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter {
                $0.hasSuffix(".json") && !CatalogScenario.isScenarioFileName($0)
            })
        let pageIDs = Set(pages.keys)
        let actionNames = Set(actions.keys)
        for name in names {
            guard let (pageID, scenario) = CatalogScenario.parse(fileName: name) else { continue }
            var found: [Diagnostic] = []
            defer { diagnostics += found.map { FileDiagnostic(file: name, diagnostic: $0) } }
            guard pageFiles.contains(pageID + ".json") else {
                found.append(
                    .error(
                        "scenario_without_page", .root,
                        "scenario \"\(scenario)\" belongs to page \"\(pageID)\", but there is no \(pageID).json"))
                continue
            }
            let path = directory + "/" + name
            let stamp = FileStamp(path: path)
            let file: ScenarioFile
            if case .scenario(let unchanged)? = sources.unchanged(name, stamp: stamp) {
                file = unchanged
            } else if let data = FileManager.default.contents(atPath: path) {
                file = sources.scenario(name, bytes: Array(data), stamp: stamp, pageID: pageID)
            } else {
                found.append(.error("unreadable_file", .root, "cannot read the file"))
                continue
            }
            found += file.diagnostics
            if let problem = file.problem {
                guard !found.containsErrors else { continue }
                scenarios[pageID, default: [:]][scenario] = CatalogScenario(
                    name: scenario, pageID: pageID, content: .problem(problem), file: name)
                continue
            }
            guard let page = file.page else { continue }
            found += file.references.compactMap {
                $0.diagnostic(
                    pages: pageIDs, actionNames: actionNames, remote: sources.defaults.referencesMayBeRemote)
            }
            guard !found.containsErrors else { continue }
            scenarios[pageID, default: [:]][scenario] = CatalogScenario(
                name: scenario, pageID: pageID, content: .page(page), file: name)
        }
    }

    /// A scenario file without `kind` and with a numeric `status` is a problem document:
    /// `{"status": 401, "code": "unauthenticated", "title": "Signed out", "detail": "…"}`.
    static func scenarioProblem(_ bytes: [UInt8], diagnostics: inout [Diagnostic]) -> ProblemDetails? {
        guard case .object(let root)? = try? JSONParser(maximumDepth: 64).parse(bytes), root["kind"] == nil,
            root["status"] != nil
        else { return nil }
        guard let status = root["status"]?.intValue, (400...599).contains(status) else {
            diagnostics.append(.error("invalid_problem", "/status", "status is an HTTP error status 400–599"))
            return nil
        }
        guard case .string(let code)? = root["code"], !code.isEmpty else {
            diagnostics.append(.error("invalid_problem", "/code", "code is a non-empty string"))
            return nil
        }
        let title = root["title"]?.stringValue ?? "Scenario \(code)"
        let detail = root["detail"]?.stringValue ?? ""
        return ProblemDetails(status: status, code: code, title: title, detail: detail)
    }
}
