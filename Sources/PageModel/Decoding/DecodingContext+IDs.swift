/// Id normalisation (docs/contract.md, "Stable ids"):
///
/// 1. A widget or section keeps its backend id when it has a non-empty string `id`.
/// 2. Otherwise it gets `prefix@codingPath`: the widget's type (or `section`) and its path from the document root
///    with `.` separators, e.g. `banner@header.0`, `section@sections.3`, `stepper@sections.1.widgets.0`.
/// 3. Uniqueness scopes: sections among the document's sections; top-level widgets page-wide (header, then each
///    section in order, then footer); children among their siblings only (seed 001: nested children are not
///    unique page-wide).
/// 4. Within a scope, in document order, the first holder of an id keeps it; each later one becomes `id#2`,
///    `id#3`, … — the first such suffix not already taken — with a `duplicate_id` error diagnostic.
///
/// The same input therefore always yields the same ids.
struct UniqueIDs {
    /// Where an id was first claimed: the item at `index` of the array at `path`.
    struct Holder {
        var path: LazyPointer
        var index: Int
    }

    /// Each claimed id, with its first holder when the claim said where it is.
    private var used: [String: Holder?] = [:]

    init() {}

    /// An empty set with room for `capacity` ids.
    init(minimumCapacity capacity: Int) {
        used = Dictionary(minimumCapacity: capacity)
    }

    init(_ ids: some Sequence<String>) {
        for id in ids { used[id] = .some(nil) }
    }

    /// Claims `id`, or the first free `id#n` (n ≥ 2) when it is taken; returns what was claimed.
    /// - Parameter holder: where the item claiming it is, reported by ``firstHolder(of:)`` later.
    mutating func claim(_ id: String, holder: Holder? = nil) -> String {
        // One hash for the common case; a taken id gets its first holder back.
        guard let first = used.updateValue(holder, forKey: id) else { return id }
        used[id] = .some(first)
        return claimSuffixed(id, holder: holder)
    }

    private mutating func claimSuffixed(_ id: String, holder: Holder?) -> String {
        var suffix = 2
        while used[id + "#" + String(suffix)] != nil { suffix += 1 }
        let claimed = id + "#" + String(suffix)
        used[claimed] = .some(holder)
        return claimed
    }

    /// Where `id` was first claimed, when its claim said so.
    func firstHolder(of id: String) -> Holder? { used[id] ?? nil }

    mutating func release(_ id: String) {
        used.removeValue(forKey: id)
    }

    func contains(_ id: String) -> Bool { used[id] != nil }
}

extension DecodingContext {
    mutating func normalizeIDs(_ page: inout PageModel, at path: LazyPointer) {
        var sectionIDs = UniqueIDs(minimumCapacity: page.sections.count)
        dedupe(&page.sections, at: path / "sections", using: &sectionIDs)
        var widgetIDs = UniqueIDs(minimumCapacity: page.topLevelWidgetCount)
        dedupe(&page.header, at: path / "header", using: &widgetIDs)
        for index in page.sections.indices {
            dedupe(&page.sections[index].widgets, at: path / "sections" / index / "widgets", using: &widgetIDs)
        }
        dedupe(&page.footer, at: path / "footer", using: &widgetIDs)
    }

    /// Renames duplicate section ids against `ids`, reporting each rename.
    mutating func dedupe(_ sections: inout [Section], at path: LazyPointer, using ids: inout UniqueIDs) {
        for index in sections.indices {
            claim(&sections[index].id, at: path, index, isWidget: false, using: &ids)
        }
    }

    /// Renames duplicate widget ids against `ids`, reporting each rename; recurses into each widget's children
    /// (in place, right after the widget itself) with a fresh sibling scope.
    mutating func dedupe(_ widgets: inout [Widget], at path: LazyPointer, using ids: inout UniqueIDs) {
        for index in widgets.indices {
            claim(&widgets[index].id, at: path, index, isWidget: true, using: &ids)
            if !widgets[index].children.isEmpty {
                var siblings = UniqueIDs()
                dedupe(&widgets[index].children, at: path / index / "children", using: &siblings)
            }
        }
    }

    /// Claims `id` (the item at `path/index`) in `ids`, renaming it and reporting a `duplicate_id` when taken.
    mutating func claim(
        _ id: inout String, at path: LazyPointer, _ index: Int, isWidget: Bool, using ids: inout UniqueIDs
    ) {
        let original = id
        let claimed = ids.claim(original, holder: UniqueIDs.Holder(path: path, index: index))
        guard claimed != original else { return }
        id = claimed
        let first = ids.firstHolder(of: original).map { " by \(($0.path.pointer / $0.index).string)" } ?? ""
        diagnostics.append(
            .error(
                "duplicate_id", path.pointer / index / "id", widgetID: isWidget ? claimed : nil,
                "id \"\(original)\" is already used in this scope\(first); renamed to \"\(claimed)\""))
    }
}
