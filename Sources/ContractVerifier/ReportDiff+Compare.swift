import PageModel

extension ReportDiff {
    /// The changes from `before` to `after` of one page target: sections, widgets, their events and actions, and
    /// the requirements of elements present in both. A removed widget is one change (not also its events); so is
    /// an added one.
    static func compare(_ before: PageShape, _ after: PageShape, page: String) -> [ReportChange] {
        var changes: [ReportChange] = []
        let sectionsAfter = Set(after.sections)
        let sectionsBefore = Set(before.sections)
        for id in before.sections where !sectionsAfter.contains(id) {
            changes.append(ReportChange(.sectionRemoved, page: page, id: id, message: "section \(id) is gone"))
        }
        for id in after.sections where !sectionsBefore.contains(id) {
            changes.append(ReportChange(.sectionAdded, page: page, id: id, message: "new section \(id)"))
        }
        for id in before.sections where sectionsAfter.contains(id) {
            changes += compare(
                before.sectionRequirements[id] ?? .init(), after.sectionRequirements[id] ?? .init(), page: page,
                id: id, element: "section")
        }
        for key in before.widgets.keys.sorted() {
            let old = before.widgets[key]!
            guard let new = after.widgets[key] else {
                changes.append(
                    ReportChange(
                        .widgetRemoved, page: page, id: key, message: "\(old.type) widget \(key) is gone"))
                continue
            }
            if new.type != old.type {
                changes.append(
                    ReportChange(
                        .widgetTypeChanged, page: page, id: key, message: "widget \(key) changed its type",
                        before: old.type, after: new.type))
            }
            changes += compareActions(old.actions, new.actions, page: page, key: key)
            changes += compare(old.requirements, new.requirements, page: page, id: key, element: "widget")
        }
        for key in after.widgets.keys.sorted() where before.widgets[key] == nil {
            let type = after.widgets[key]!.type
            changes.append(
                ReportChange(.widgetAdded, page: page, id: key, message: "new \(type) widget \(key)"))
        }
        return changes
    }

    /// The events of one widget present in both: each action is `api NAME` or an action type.
    private static func compareActions(
        _ before: [String: String], _ after: [String: String], page: String, key: String
    ) -> [ReportChange] {
        var changes: [ReportChange] = []
        let api = ActionType.api + " "
        for event in Set(before.keys).union(after.keys).sorted() {
            let id = "\(key) \(event)"
            switch (before[event], after[event]) {
            case (let old?, nil):
                changes.append(
                    ReportChange(
                        .eventRemoved, page: page, id: id, message: "widget \(key) no longer declares \(event)",
                        before: old))
            case (nil, let new?):
                let kind: ReportChangeKind = new.hasPrefix(api) ? .actionAdded : .eventAdded
                changes.append(
                    ReportChange(kind, page: page, id: id, message: "widget \(key) declares \(event)", after: new))
            case (let old?, let new?) where old != new:
                let kind: ReportChangeKind =
                    old.hasPrefix(api) ? .actionRemoved : new.hasPrefix(api) ? .actionAdded : .actionChanged
                changes.append(
                    ReportChange(
                        kind, page: page, id: id, message: "\(event) of widget \(key) fires another action",
                        before: old, after: new))
            default:
                break
            }
        }
        return changes
    }

    /// The requirements of one element present in both: a new `requires` entry or a minimum app version raised on
    /// any platform is breaking; the reverse additive.
    private static func compare(
        _ before: CapabilityRequirements, _ after: CapabilityRequirements, page: String, id: String, element: String
    ) -> [ReportChange] {
        var changes: [ReportChange] = []
        let added = Set(after.requires).subtracting(before.requires)
        let dropped = Set(before.requires).subtracting(after.requires)
        if !added.isEmpty {
            changes.append(
                ReportChange(
                    .requirementAdded, page: page, id: id,
                    message: "\(element) \(id) requires \(added.sorted().joined(separator: ", "))",
                    before: Self.list(before.requires), after: Self.list(after.requires)))
        }
        if !dropped.isEmpty {
            changes.append(
                ReportChange(
                    .requirementRemoved, page: page, id: id,
                    message: "\(element) \(id) no longer requires \(dropped.sorted().joined(separator: ", "))",
                    before: Self.list(before.requires), after: Self.list(after.requires)))
        }
        let (raised, lowered) = Self.minimums(before.minAppVersion, after.minAppVersion)
        if raised || lowered {
            changes.append(
                ReportChange(
                    raised ? .requirementAdded : .requirementRemoved, page: page, id: id,
                    message: "\(element) \(id) \(raised ? "raised" : "lowered") its minAppVersion",
                    before: Self.versions(before.minAppVersion), after: Self.versions(after.minAppVersion)))
        }
        return changes
    }

    /// Whether the minimum app version went up (or appeared) on some platform, and whether it went down (or went
    /// away) on some platform. A platform without an entry of its own has the `*` entry's minimum.
    static func minimums(_ before: [String: String], _ after: [String: String]) -> (raised: Bool, lowered: Bool) {
        var raised = false
        var lowered = false
        for platform in Set(before.keys).union(after.keys).union(["*"]) {
            let old = (before[platform] ?? before["*"]).flatMap { AppVersion($0) }
            let new = (after[platform] ?? after["*"]).flatMap { AppVersion($0) }
            switch (old, new) {
            case (nil, _?): raised = true
            case (_?, nil): lowered = true
            case (let old?, let new?) where new > old: raised = true
            case (let old?, let new?) where new < old: lowered = true
            default: break
            }
        }
        return (raised, lowered)
    }

    private static func list(_ requires: [String]) -> String? {
        requires.isEmpty ? nil : requires.joined(separator: ", ")
    }

    /// `3.2.0`, or `android 3.1.0, ios 3.2.0, * 3.0.0`; `nil` for none.
    private static func versions(_ minimum: [String: String]) -> String? {
        if minimum.isEmpty { return nil }
        if minimum.count == 1, let all = minimum["*"] { return all }
        return minimum.keys.sorted { ($0 == "*" ? 1 : 0, $0) < ($1 == "*" ? 1 : 0, $1) }
            .map { "\($0) \(minimum[$0]!)" }.joined(separator: ", ")
    }
}
