import PageModel

/// What changed for apps between two versions of a server: the ``PageShape``s of a baseline report (an earlier
/// `verify --report json`) compared page by page with the current run's (`verify --baseline FILE`). Each change is
/// breaking or additive (``ReportChange``); widget and section order is not a change, nor is a widget moving
/// between header, sections and footer.
public struct ReportDiff: Sendable, Hashable, Codable {
    /// A baseline page target this run could not compare, and why.
    public struct NotCompared: Sendable, Hashable, Codable {
        public var page: String
        public var reason: String

        public init(page: String, reason: String) {
            self.page = page
            self.reason = reason
        }
    }

    /// The baseline's name as the user gave it (its file).
    public var baseline: String
    /// Breaking changes first, then additive ones; each group in page order of the baseline, then new pages.
    public var changes: [ReportChange] = []
    public var notCompared: [NotCompared] = []

    /// Compares `current` with `baseline`.
    ///
    /// - Parameter name: how to call the baseline in messages, e.g. its file name.
    /// - Throws: ``BaselineError`` when no page of `baseline` has a shape (a report written before shapes were
    ///   recorded, or one whose pages all failed).
    public init(baseline: VerificationReport, current: VerificationReport, name: String) throws(BaselineError) {
        try Self.validate(baseline, name: name)
        self.baseline = name
        let currentPages = Dictionary(current.pages.map { ($0.page, $0) }) { first, _ in first }
        let baselinePages = Set(baseline.pages.map(\.page))
        let crawledPageIDs = Set(current.pages.map { Self.pageID(of: $0.page) })
        let skipped = Dictionary(current.coverage.skippedTargets.map { ($0.target, $0.reason) }) { first, _ in first }
        var found: [ReportChange] = []
        for old in baseline.pages {
            guard let before = old.shape else { continue }
            guard let new = currentPages[old.page] else {
                if let reason = skipped[old.page] {
                    notCompared.append(NotCompared(page: old.page, reason: "kept out of this crawl by \(reason)"))
                } else if crawledPageIDs.contains(Self.pageID(of: old.page)) {
                    notCompared.append(
                        NotCompared(
                            page: old.page,
                            reason: "nothing linked to it in this crawl; its page id was crawled with other parameters"
                        ))
                } else {
                    found.append(
                        ReportChange(
                            .pageRemoved, page: old.page, id: old.page, message: "page \(old.page) is no longer served"
                        ))
                }
                continue
            }
            guard let after = new.shape else {
                notCompared.append(
                    NotCompared(page: old.page, reason: "it did not load in this crawl (its violations say why)"))
                continue
            }
            found += Self.compare(before, after, page: old.page)
        }
        for new in current.pages where !baselinePages.contains(new.page) {
            found.append(ReportChange(.pageAdded, page: new.page, id: new.page, message: "new page \(new.page)"))
        }
        changes = found.filter { $0.severity == .breaking } + found.filter { $0.severity == .additive }
    }

    /// Throws unless `baseline` can be compared with: some page of it has a shape.
    public static func validate(_ baseline: VerificationReport, name: String) throws(BaselineError) {
        guard baseline.pages.contains(where: { $0.shape != nil }) else {
            throw BaselineError(
                message: "\(name) records no page shapes (written by an older flow-bff verify, or no page loaded); "
                    + "run verify --report json on the base version again")
        }
    }

    public var breaking: [ReportChange] { changes.filter { $0.severity == .breaking } }
    public var additive: [ReportChange] { changes.filter { $0.severity == .additive } }

    /// `baseline: 2 breaking, 3 additive changes against base.json`.
    public var line: String {
        var text = "baseline: \(breaking.count) breaking, \(additive.count) additive changes against \(baseline)"
        if !notCompared.isEmpty { text += "; \(notCompared.count) baseline pages not compared" }
        return text
    }

    /// Why the run fails, or `nil`: `2 breaking changes against base.json (widget_removed, …)`.
    public var failure: String? {
        let breaking = breaking
        guard !breaking.isEmpty else { return nil }
        let kinds = Array(Set(breaking.map(\.kind))).sorted().joined(separator: ", ")
        let noun = breaking.count == 1 ? "change" : "changes"
        return "\(breaking.count) breaking \(noun) against \(baseline) (\(kinds))"
    }

    /// The summary's lines: the count line, each change (breaking first) and the pages not compared.
    public var summaryLines: [String] {
        var lines = [line]
        for (title, group) in [("breaking", breaking), ("additive", additive)] where !group.isEmpty {
            lines.append("  \(title):")
            for change in group.prefix(50) {
                lines.append("    \(change.kind)  page \(change.page)  \(change.id): \(change.detail)")
            }
            if group.count > 50 { lines.append("    … and \(group.count - 50) more (the JSON report lists all)") }
        }
        for page in notCompared.prefix(10) { lines.append("  not compared: \(page.page): \(page.reason)") }
        if notCompared.count > 10 { lines.append("  … and \(notCompared.count - 10) more not compared") }
        return lines
    }

    /// `product` of `product?productID=p-1` or `product [scenario NAME]`.
    static func pageID(of target: String) -> Substring {
        target.prefix { $0 != "?" && $0 != " " }
    }
}

/// A baseline report that cannot be compared with: unreadable, not a `verify` JSON report, or without shapes.
public struct BaselineError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}
