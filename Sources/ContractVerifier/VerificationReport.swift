import PageModel

/// The outcome of one check on one page: its violations (at most the configured number; the rest counted).
public struct CheckResult: Sendable, Hashable, Codable {
    /// `load`, `http`, `pagination`, `replay`, `tampered_cursor`, `action <name> <widgetID> <event>`, `lifecycle`.
    public var name: String
    public var violations: [Violation] = []
    /// Violations found beyond the per-check limit, not kept.
    public var suppressed = 0

    public init(name: String) {
        self.name = name
    }

    public var passed: Bool { violations.isEmpty && suppressed == 0 }
}

/// What the crawl did on one page target and what it found.
public struct PageReport: Sendable, Hashable, Codable {
    /// The page target, `pageID` or `pageID?name=value`.
    public var page: String
    /// The store's state after the first load: `loaded`, `empty` or `failed`.
    public var state = "loading"
    /// Sections of the whole paginated document.
    public var sections = 0
    /// Widgets of the whole paginated document, nested children included.
    public var widgets = 0
    /// Next-page requests followed.
    public var cursors = 0
    /// Api action names fired, sorted.
    public var actions: [String] = []
    /// Api action requests sent.
    public var actionRequests = 0
    /// The kinds of things the crawl of this target met.
    public var exercised = ExercisedKinds()
    /// Action requests answered with an expected problem (``VerifierConfiguration/expectedProblems``) of the right
    /// shape: legal outcomes, not violations.
    public var expectedProblems = 0
    public var checks: [CheckResult] = []
    /// What the server changed for the declared client (`degradations` of the first page, e.g.
    /// `widget_dropped totals.divider`); empty without `--capabilities`.
    public var degradations: [String] = []
    /// What apps key on in the page as crawled (after pagination, before actions), for `verify --baseline`;
    /// `nil` when the page did not load, and in reports written before shapes were recorded.
    public var shape: PageShape?

    public init(page: String) {
        self.page = page
    }

    public var violations: [Violation] { checks.flatMap(\.violations) }
    public var violationCount: Int { checks.reduce(0) { $0 + $1.violations.count + $1.suppressed } }
}

/// How much of the server the crawl exercised.
public struct Coverage: Sendable, Hashable, Codable {
    /// Distinct page ids crawled.
    public var pages = 0
    /// Page targets crawled (a page id with one set of parameters).
    public var pageLoads = 0
    public var sections = 0
    public var widgets = 0
    /// Distinct api action names fired.
    public var actions = 0
    public var actionRequests = 0
    /// Next-page cursors followed.
    public var cursors = 0
    /// Distinct page targets linked to but not crawled because of `maximumPageLoads` or `maximumParameterSetsPerPage`.
    public var skippedLinks = 0
    /// Which targets those are and why, in the order they were met (the JSON report lists them).
    public var skippedTargets: [SkippedTarget] = []
    /// Pages the server's index (`GET /v1/pages`) lists; 0 when it has none.
    public var indexedPages = 0
    /// Pages the index lists that the crawl did not reach (none with `--all`, unless limits kept them out).
    public var uncrawledIndexedPages: [String] = []
    /// Mock scenarios the index lists.
    public var scenarios = 0
    /// Mock scenarios crawled (each as its page with `X-Flow-Scenario`; with `--all`).
    public var crawledScenarios = 0
    /// The widget, action, effect and mutation types the crawl met, over every page target.
    public var exercised = ExercisedKinds()

    public init() {}

    /// Warnings about partial coverage: listed pages not crawled, scenarios not crawled.
    public var warnings: [String] {
        var warnings: [String] = []
        let missing = uncrawledIndexedPages
        if !missing.isEmpty {
            let names = missing.prefix(10).joined(separator: ", ") + (missing.count > 10 ? ", …" : "")
            warnings.append(
                "warning: partial coverage: the page index (GET /v1/pages) lists \(missing.count) of "
                    + "\(indexedPages) pages that were not crawled (\(names)); --all crawls every listed page")
        }
        if scenarios > crawledScenarios {
            warnings.append(
                "warning: partial coverage: the page index lists \(scenarios) mock scenarios, "
                    + "\(scenarios - crawledScenarios) not crawled; --all crawls each (X-Flow-Scenario)")
        }
        return warnings
    }

    /// `coverage: 6 pages (12 loads), 73 sections, 412 widgets, 9 actions (14 requests), 9 cursors`.
    public var line: String {
        var text =
            "coverage: \(pages) pages (\(pageLoads) loads), \(sections) sections, \(widgets) widgets, "
            + "\(actions) actions (\(actionRequests) requests), \(cursors) cursors"
        if skippedLinks > 0 {
            let names = skippedTargets.prefix(3).map(\.target).joined(separator: ", ")
            let more = skippedTargets.count > 3 ? ", …" : ""
            text +=
                ", \(skippedLinks) linked page targets not crawled (limits: \(names)\(more); the JSON report lists all)"
        }
        return text
    }
}

/// The kinds of things a crawl met: which widget types the pages showed, which action types their widgets
/// declared, and which effect types and mutation types the api answers it applied held — what a contract test
/// exercised, beside the counts of ``Coverage``.
public struct ExercisedKinds: Sendable, Hashable, Codable {
    public var widgetTypes: Set<String> = []
    public var actionTypes: Set<String> = []
    public var effectTypes: Set<String> = []
    public var mutationTypes: Set<String> = []
    /// The client declarations pages were resolved for and checked against the contract's resolution: the
    /// `--capabilities` profile (by name) or the crawl's small declaration, and the app versions the pages'
    /// `minAppVersion` annotations separate (`X-Flow-Client` values).
    public var profiles: Set<String> = []

    public init() {}

    enum CodingKeys: String, CodingKey {
        case widgetTypes, actionTypes, effectTypes, mutationTypes, profiles
    }

    /// Reports written before ``profiles`` was recorded decode too, with none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        widgetTypes = try container.decode(Set<String>.self, forKey: .widgetTypes)
        actionTypes = try container.decode(Set<String>.self, forKey: .actionTypes)
        effectTypes = try container.decode(Set<String>.self, forKey: .effectTypes)
        mutationTypes = try container.decode(Set<String>.self, forKey: .mutationTypes)
        profiles = try container.decodeIfPresent(Set<String>.self, forKey: .profiles) ?? []
    }

    mutating func formUnion(_ other: ExercisedKinds) {
        widgetTypes.formUnion(other.widgetTypes)
        actionTypes.formUnion(other.actionTypes)
        effectTypes.formUnion(other.effectTypes)
        mutationTypes.formUnion(other.mutationTypes)
        profiles.formUnion(other.profiles)
    }

    /// The share (0–100) of the kinds a client can meet that were exercised: `catalog`'s widget types, the
    /// built-in action types (declared by widgets, and as effects) and the mutation types (`--min-coverage`).
    public func percent(of catalog: WidgetCatalog = .standard) -> Double {
        let actions = Set(ActionType.all)
        let mutations = Set(MutationType.all)
        let widgets = Set(catalog.types)
        let known = widgets.count + 2 * actions.count + mutations.count
        let met =
            widgetTypes.intersection(widgets).count + actionTypes.intersection(actions).count
            + effectTypes.intersection(actions).count + mutationTypes.intersection(mutations).count
        return known == 0 ? 100 : 100 * Double(met) / Double(known)
    }

    /// `exercised: 9 widget types (button, carousel, …), 4 action types (…), 2 effect types (…), 3 mutation types (…),
    /// 2 client profiles (…)`.
    public var line: String {
        func list(_ types: Set<String>, _ noun: String) -> String {
            "\(types.count) \(noun)" + (types.isEmpty ? "" : " (" + types.sorted().joined(separator: ", ") + ")")
        }
        return "exercised: "
            + [
                list(widgetTypes, "widget types"), list(actionTypes, "action types"), list(effectTypes, "effect types"),
                list(mutationTypes, "mutation types"), list(profiles, "client profiles"),
            ].joined(separator: ", ") + "; \(Int(percent().rounded(.down)))% of the standard kinds"
    }
}

/// A page target the crawl met but did not load, and the limit that kept it out.
public struct SkippedTarget: Sendable, Hashable, Codable {
    /// `pageID` plus its parameters as a query (`product?productID=p-9`).
    public var target: String
    /// The page that linked to it, when known.
    public var linkedFrom: String?
    /// `maximumPageLoads` or `maximumParameterSetsPerPage`, with the limit's value.
    public var reason: String

    public init(target: String, linkedFrom: String?, reason: String) {
        self.target = target
        self.linkedFrom = linkedFrom
        self.reason = reason
    }
}

/// Everything one `verify` run found.
public struct VerificationReport: Sendable, Hashable, Codable {
    /// The base URL crawled.
    public var target: String
    public var pages: [PageReport] = []
    public var coverage = Coverage()
    /// Wall-clock seconds the crawl took.
    public var durationSeconds = 0.0

    public init(target: String) {
        self.target = target
    }

    /// Every kept violation, page by page, in crawl order.
    public var violations: [Violation] { pages.flatMap(\.violations) }
    /// Every violation, suppressed ones included.
    public var violationCount: Int { pages.reduce(0) { $0 + $1.violationCount } }
    /// The `--min-coverage` threshold the run was held to, if any.
    public var minimumCoverage: Double?
    /// True when the crawl exercised at least ``minimumCoverage`` percent of the standard kinds (or had no
    /// threshold).
    public var coverageMet: Bool { minimumCoverage.map { coverage.exercised.percent() >= $0 } ?? true }
    /// Why the crawl fell short of ``minimumCoverage``, or `nil`.
    public var coverageShortfall: String? {
        guard let minimum = minimumCoverage, !coverageMet else { return nil }
        let percent = coverage.exercised.percent()
        return "exercised \(Int(percent.rounded(.down)))% of the standard kinds, below --min-coverage \(Int(minimum))%"
    }
    /// The changes against a baseline report (`--baseline FILE`), if one was given.
    public var baseline: ReportDiff?
    /// True when the server honours the contract (not one violation), the crawl met its coverage threshold and
    /// nothing changed in a way that breaks released apps (``baseline``).
    public var passed: Bool { violationCount == 0 && coverageMet && baseline?.failure == nil }
    /// The distinct violation codes found, sorted.
    public var codes: [String] { Array(Set(violations.map(\.code))).sorted() }
}
