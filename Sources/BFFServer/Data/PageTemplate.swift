import Foundation
import PageModel

/// Expands the data templates of a page's content (pages/README.md § Pages from data) into the literal page a page
/// file would hold, when the file loads: an array element `{"$each": "data.orders", "as": "order", "widget": {…}}`
/// is repeated for each item, `{"$if": {…}, "widget": {…}}` is kept or dropped, and `{{order.id}}` placeholders are
/// filled from the items (a placeholder that is the whole string keeps the data's JSON type). Everything after —
/// decoding, checks, chunking, cursors, the representation cache — sees an ordinary page.
///
/// Pure: the same content and data give the same page, byte for byte. Findings carry their path in the file (a
/// finding inside a generated section points at its template), via ``Expansion/sourcePath(of:)``.
struct PageTemplate {
    /// The members of an `$each` element.
    static let eachKeys = Set(["$each", "as", "when", "sortBy", "groupBy", "limit", "filterBy", "sortable"] + bodyKeys)
    /// The query parameter that picks one of an `$each`'s `sortable` keys (`?sort=-total`).
    static let sortParameter = "sort"
    /// The members of an `$if` element.
    static let ifKeys = Set(["$if"] + bodyKeys)
    /// The code of a member no item has (``Expander/unknownFields()``).
    static let unknownField = "unknown_field"
    /// What a template element stands for: one element per item, or an array of elements spliced in per item.
    static let bodyKeys: [String] = ["section", "widget", "sections", "widgets"]

    struct Expansion: Sendable {
        var value: JSONValue
        var diagnostics: [Diagnostic] = []
        /// Where generated (or moved) array elements come from: the element's path in the expanded content → the
        /// path in the file of the template it was made from.
        var origins: [String: JSONPointer] = [:]
        /// The data documents the content names.
        var documents: Set<String> = []
        /// The query parameters the content depends on (`filterBy`, `sortable`): a request naming one gets the page
        /// made for its values (``QueryPages``).
        var queryParameters: Set<String> = []
        /// Per `filterBy` parameter, the values the items have, as text.
        var filterValues: [String: Set<String>] = [:]
        /// The `sortable` keys.
        var sortKeys: Set<String> = []

        /// `pointer` (into the expanded content) as a path in the file: its longest prefix that was generated or
        /// moved, replaced by where that came from. Paths outside generated content are returned as they are.
        func sourcePath(of pointer: JSONPointer) -> JSONPointer {
            guard !origins.isEmpty else { return pointer }
            let tokens = pointer.tokens
            var prefix = JSONPointer.root
            var best: (length: Int, source: JSONPointer)?
            for (index, token) in tokens.enumerated() {
                prefix = prefix / token
                if let source = origins[prefix.string] { best = (index + 1, source) }
            }
            guard let best else { return pointer }
            return tokens[best.length...].reduce(best.source) { $0 / $1 }
        }
    }

    /// True when `value` holds an `$each` or `$if` element or a `{{data.…}}` placeholder (a quick scan, so a page
    /// without templates is not copied).
    static func isTemplate(_ value: JSONValue) -> Bool {
        switch value {
        case .string(let text): return text.contains("{{") && (text.contains("data.") || text.contains("fake."))
        case .array(let items): return items.contains(where: isTemplate)
        case .object(let object):
            return object["$each"] != nil || object["$if"] != nil || object.members.contains { isTemplate($0.value) }
        default: return false
        }
    }

    /// The variables the `$each` elements of `value` bind (`as`, `item` by default, `group` with `groupBy`).
    static func declaredVariables(in value: JSONValue) -> Set<String> {
        switch value {
        case .array(let items): return items.reduce(into: []) { $0.formUnion(declaredVariables(in: $1)) }
        case .object(let object):
            var names = object.members.reduce(into: Set<String>()) { $0.formUnion(declaredVariables(in: $1.value)) }
            if object["$each"] != nil {
                names.insert(object["as"]?.stringValue ?? "item")
                if object["groupBy"] != nil { names.insert("group") }
            }
            return names
        default: return []
        }
    }

    /// Expands `content`, found at `path` in the file, with `data` and the variables `bindings` (a `server.item`).
    /// - Parameter fake: the generator `{{fake.…}}` placeholders draw from, in document order.
    static func expand(
        _ content: JSONValue, at path: JSONPointer, data: DataDocuments, bindings: [String: JSONValue] = [:],
        fake: FakeData, query: [String: String] = [:]
    ) -> Expansion {
        var expander = Expander(data: data, fake: fake)
        expander.query = query
        expander.declared = Set(bindings.keys).union(declaredVariables(in: content))
        var scope = bindings
        scope["data"] = data.scopeValue
        let value = expander.value(content, source: path, target: path, scope: scope)
        var expansion = Expansion(value: value, origins: expander.origins, documents: expander.documents)
        expansion.queryParameters = expander.queryParameters
        expansion.filterValues = expander.filterValues
        expansion.sortKeys = expander.sortKeys
        expansion.diagnostics = expander.diagnostics + expander.unknownFields()
        return expansion
    }
}

/// The walk of one expansion, with what it found.
private struct Expander {
    let data: DataDocuments
    var diagnostics: [Diagnostic] = []
    var origins: [String: JSONPointer] = [:]
    var documents: Set<String> = []
    /// Every name looked up, by where it is written and what it names: whether any item had it, and the members of
    /// the objects it was looked up in (for "did you mean").
    var uses: [String: Use] = [:]
    /// Each string of the template parsed once, by its position (``string(_:source:scope:)``).
    var parsedStrings: [String: ParsedString] = [:]
    /// The request's query parameters `filterBy` and `sortable` read (none when the files load).
    var query: [String: String] = [:]
    /// The query parameters the template reads.
    var queryParameters: Set<String> = []
    /// Every variable the template binds somewhere (a placeholder naming one outside its `$each` is never filled).
    var declared: Set<String> = []
    var filterValues: [String: Set<String>] = [:]
    var sortKeys: Set<String> = []

    struct Use {
        var path: JSONPointer
        var name: DataPath
        var found = false
        var members: Set<String> = []
    }

    var fake: FakeData

    init(data: DataDocuments, fake: FakeData) {
        self.data = data
        self.fake = fake
    }

    static func variables(_ scope: [String: JSONValue]) -> [String] { scope.keys.filter { $0 != "data" }.sorted() }

    mutating func value(_ value: JSONValue, source: JSONPointer, target: JSONPointer, scope: [String: JSONValue])
        -> JSONValue
    {
        switch value {
        case .string(let text):
            guard text.contains("{{") else { return value }
            return string(text, source: source, scope: scope) ?? value
        case .object(let object):
            return .object(
                JSONObject(
                    object.members.map {
                        JSONObject.Member(
                            key: $0.key,
                            value: self.value($0.value, source: source / $0.key, target: target / $0.key, scope: scope))
                    }))
        case .array(let items):
            var expanded: [JSONValue] = []
            append(items, source: source, target: target, scope: scope, into: &expanded, inPlace: true)
            return .array(expanded)
        default:
            return value
        }
    }

    /// Expands the elements `items` (at `source` in the file) onto `expanded` (at `target`): a template element
    /// adds what it stands for — a `widgets` / `sections` body all of its elements, expanded in turn.
    /// - Parameter inPlace: `items` is the array at `target` itself (not a body spliced into it), so an element
    ///   still at its own index needs no origin.
    mutating func append(
        _ items: [JSONValue], source: JSONPointer, target: JSONPointer, scope: [String: JSONValue],
        into expanded: inout [JSONValue], inPlace: Bool
    ) {
        for (index, item) in items.enumerated() {
            if case .object(let object) = item, object["$each"] != nil || object["$if"] != nil {
                for (body, bodySource, bodyScope) in template(object, source: source / index, scope: scope) {
                    if case .array(let list) = body {
                        append(
                            list, source: bodySource, target: target, scope: bodyScope, into: &expanded, inPlace: false)
                        continue
                    }
                    let elementTarget = target / expanded.count
                    origins[elementTarget.string] = bodySource
                    expanded.append(value(body, source: bodySource, target: elementTarget, scope: bodyScope))
                }
            } else {
                let elementTarget = target / expanded.count
                if !inPlace || expanded.count != index { origins[elementTarget.string] = source / index }
                expanded.append(value(item, source: source / index, target: elementTarget, scope: scope))
            }
        }
    }

    /// A string with `{{…}}`: `nil` when nothing in it is this template's to fill (served as written).
    mutating func string(_ text: String, source: JSONPointer, scope: [String: JSONValue]) -> JSONValue? {
        // A template position has one text and one lexical scope, whatever the item: parsed once, filled per item.
        let position = source.string
        let parsed: ParsedString
        if let known = parsedStrings[position] {
            parsed = known
        } else {
            parsed = parse(text, source: source, scope: scope)
            parsedStrings[position] = parsed
        }
        guard parsed.fills.contains(where: { $0 != nil }) else { return nil }
        func value(_ fill: Fill) -> JSONValue? {
            switch fill {
            case .data(let name, let key): resolve(name, at: source, key: key, scope: scope)
            case .fake(let generator, let arguments):
                (try? fake.value(generator, arguments)) ?? .string("")
            }
        }
        if parsed.pieces.count == 1, case .placeholder(_, let asText) = parsed.pieces[0], let fill = parsed.fills[0] {
            let found = value(fill)
            return asText ? .string(found?.templateText ?? "") : found ?? .string("")
        }
        var result = ""
        for (piece, fill) in zip(parsed.pieces, parsed.fills) {
            switch piece {
            case .literal(let part): result += part
            case .placeholder(let name, let asText):
                if let fill {
                    result += value(fill)?.templateText ?? ""
                } else {
                    result += "{{" + name + (asText ? " | text" : "") + "}}"
                }
            }
        }
        return .string(result)
    }

    /// What one placeholder is filled with.
    enum Fill {
        /// A data value, and the key of its ``Use``.
        case data(DataPath, key: String)
        case fake(String, [String])
    }

    /// A string of the template, parsed: its pieces and, for each, what fills it (`nil`: literal text, or a
    /// placeholder served as written).
    struct ParsedString {
        var pieces: [TemplateText.Piece] = []
        var fills: [Fill?] = []
    }

    /// Parses `text` at `source` once, reporting its mistakes (once, not per item).
    mutating func parse(_ text: String, source: JSONPointer, scope: [String: JSONValue]) -> ParsedString {
        let variables = Self.variables(scope)
        var parsed = ParsedString()
        do {
            parsed.pieces = try TemplateText.split(text)
        } catch {
            // Outside an $each a `{{` is page text as before; inside one it is a broken placeholder.
            if !variables.isEmpty { diagnostics.append(.error(error.code, source, error.message)) }
            return ParsedString()
        }
        for piece in parsed.pieces {
            guard case .placeholder(let name, _) = piece else {
                parsed.fills.append(nil)
                continue
            }
            if let (generator, arguments) = FakeData.call(name) {
                do {
                    // Checked here; drawn per item when filled.
                    var probe = FakeData(seed: 0, imageURL: fake.imageURL, today: fake.today)
                    _ = try probe.value(generator, arguments)
                    parsed.fills.append(.fake(generator, arguments))
                } catch {
                    diagnostics.append(.error(error.code, source, error.message))
                    parsed.fills.append(nil)
                }
            } else if DataPath.isTemplated(name, variables: variables),
                let path = try? DataPath(parsing: name, variables: variables)
            {
                parsed.fills.append(.data(path, key: source.string + "\u{0}" + path.description))
            } else {
                // A request value is served as written (PageFile's placeholder_outside_answer says why); a variable
                // used outside the $each that binds it, or a misspelt one inside an $each, is never filled.
                // Other `{{…}}` text outside every `$each` is served as written, as in any page.
                let root = String(name.trimmingCharacters(in: .whitespaces).prefix { $0 != "." })
                if declared.contains(root) {
                    diagnostics.append(
                        .error(
                            "unknown_placeholder", source,
                            "\"\(name)\" is never filled here: \(root) is bound only inside the $each that names it"))
                } else if !variables.isEmpty, (try? RequestValueName(parsing: name)) == nil {
                    do {
                        _ = try DataPath(parsing: name, variables: variables)
                    } catch {
                        diagnostics.append(.error(error.code, source, error.message))
                    }
                }
                parsed.fills.append(nil)
            }
        }
        return parsed
    }

    /// Looks `name` up, recording whether it was found (``unknownFields()``).
    /// - Parameter key: the use's key when the caller has it (a parsed string keeps it).
    mutating func resolve(_ name: DataPath, at path: JSONPointer, key: String? = nil, scope: [String: JSONValue])
        -> JSONValue?
    {
        if name.root == "data", let document = name.path.first { documents.insert(document) }
        let (value, parent) = name.resolveWithParent(in: scope)
        let key = key ?? path.string + "\u{0}" + name.description
        var use = uses[key] ?? Use(path: path, name: name)
        if value != nil { use.found = true } else if let parent { use.members.formUnion(parent.keys) }
        uses[key] = use
        return value
    }

    /// `unknown_field` errors: names that no item had, though the objects they were looked up in exist.
    func unknownFields() -> [Diagnostic] {
        uses.values.filter { !$0.found && !$0.members.isEmpty }.sorted { $0.path.string < $1.path.string }.map { use in
            let member = use.name.path.last ?? use.name.root
            let hint = NearMiss.closest(to: member, among: use.members).map { " (did you mean \($0)?)" } ?? ""
            return .error(
                PageTemplate.unknownField, use.path,
                "\(use.name): no item has \"\(member)\"\(hint); members: \(use.members.sorted().joined(separator: ", "))"
            )
        }
    }

    /// The elements one `$each` or `$if` element stands for: each body with where it is and its scope.
    mutating func template(_ object: JSONObject, source: JSONPointer, scope: [String: JSONValue])
        -> [(JSONValue, JSONPointer, [String: JSONValue])]
    {
        let isEach = object["$each"] != nil
        let allowed = isEach ? PageTemplate.eachKeys : PageTemplate.ifKeys
        var valid = true
        func fail(_ code: String, _ path: JSONPointer, _ message: String) {
            diagnostics.append(.error(code, path, message))
            valid = false
        }
        for member in object.members where !allowed.contains(member.key) {
            let hint = NearMiss.closest(to: member.key, among: allowed).map { " (did you mean \($0)?)" } ?? ""
            fail(
                "invalid_template", source / member.key,
                "unknown member of \(isEach ? "an $each" : "an $if")\(hint); members: \(allowed.sorted().joined(separator: ", "))"
            )
        }
        if isEach, object["$if"] != nil {
            fail("invalid_template", source / "$if", "an element is an $each or an $if, not both")
        }
        let bodies = PageTemplate.bodyKeys.filter { object[$0] != nil }
        guard bodies.count == 1, let bodyKey = bodies.first, let body = object[bodyKey] else {
            fail(
                "invalid_template", source,
                "a template element holds exactly one of \"section\", \"widget\" (one element per item) or "
                    + "\"sections\", \"widgets\" (arrays, spliced in)")
            return []
        }
        if bodyKey.hasSuffix("s"), body.arrayValue == nil {
            fail("invalid_template", source / bodyKey, "\(bodyKey) is an array")
        }
        let bodySource = source / bodyKey
        var variables = Self.variables(scope)
        if !isEach {
            guard let test = object["$if"],
                let condition = parseCondition(test, at: source / "$if", variables: variables), valid
            else { return [] }
            return matches(condition, scope, at: source / "$if") ? [(body, bodySource, scope)] : []
        }
        // $each
        guard case .string(let text) = object["$each"],
            let listName = parseName(text, at: source / "$each", variables: variables)
        else {
            if case .string = object["$each"] {
            } else {
                fail("invalid_template", source / "$each", "$each names an array: data.<name>[.path] or a variable's")
            }
            return []
        }
        var itemName = "item"
        if let name = object["as"] {
            if case .string(let text) = name, PageTemplate.isIdentifier(text), text != "data", text != "group" {
                itemName = text
            } else {
                fail(
                    "invalid_template", source / "as",
                    "as names the item: letters, digits and _ (not data or group)")
            }
        }
        variables.append(itemName)
        let condition = object["when"].flatMap { parseCondition($0, at: source / "when", variables: variables) }
        var sortKey: (name: DataPath, descending: Bool)?
        if let sort = object["sortBy"] {
            if case .string(var text) = sort {
                let descending = text.hasPrefix("-")
                if descending { text.removeFirst() }
                if let name = parseName(text, at: source / "sortBy", variables: variables) {
                    sortKey = (name, descending)
                }
            } else {
                fail("invalid_template", source / "sortBy", "sortBy names a value of the item; -name sorts descending")
            }
        }
        var groupKey: DataPath?
        if let group = object["groupBy"] {
            if case .string(let text) = group {
                groupKey = parseName(text, at: source / "groupBy", variables: variables)
            } else {
                fail("invalid_template", source / "groupBy", "groupBy names a value of the item")
            }
        }
        // filterBy: {"status": "order.status"} keeps, for ?status=processing, the items whose order.status is it.
        var filters: [(parameter: String, name: DataPath)] = []
        if let value = object["filterBy"] {
            if case .object(let members) = value, !members.isEmpty {
                for member in members.members {
                    if case .string(let text) = member.value,
                        let name = parseName(text, at: source / "filterBy" / member.key, variables: variables)
                    {
                        filters.append((member.key, name))
                        queryParameters.insert(member.key)
                    } else if member.value.stringValue == nil {
                        fail("invalid_template", source / "filterBy" / member.key, "a filter names a value of the item")
                    } else {
                        valid = false
                    }
                }
            } else {
                fail(
                    "invalid_template", source / "filterBy",
                    "filterBy maps query parameters to item values: {\"status\": \"order.status\"}")
            }
        }
        // sortable: {"total": "order.total"} sorts, for ?sort=total (or -total, descending), by order.total.
        if let value = object["sortable"] {
            if case .object(let members) = value, !members.isEmpty {
                queryParameters.insert(PageTemplate.sortParameter)
                var keys: [String: DataPath] = [:]
                for member in members.members {
                    if case .string(let text) = member.value,
                        let name = parseName(text, at: source / "sortable" / member.key, variables: variables)
                    {
                        keys[member.key] = name
                        sortKeys.insert(member.key)
                    } else if member.value.stringValue == nil {
                        fail(
                            "invalid_template", source / "sortable" / member.key, "a sort key names a value of the item"
                        )
                    } else {
                        valid = false
                    }
                }
                if var asked = query[PageTemplate.sortParameter] {
                    let descending = asked.hasPrefix("-")
                    if descending { asked.removeFirst() }
                    if let name = keys[asked] { sortKey = (name, descending) }
                }
            } else {
                fail(
                    "invalid_template", source / "sortable",
                    "sortable maps ?sort= keys to item values: {\"total\": \"order.total\"}")
            }
        }
        var limit = Int.max
        if let value = object["limit"] {
            if let number = value.intValue, number >= 0 {
                limit = number
            } else {
                fail("invalid_template", source / "limit", "limit is an integer ≥ 0")
            }
        }
        guard valid else { return [] }
        let list = resolve(listName, at: source / "$each", scope: scope)
        guard case .array(let items) = list else {
            if listName.root == "data", let document = listName.path.first, data.documents[document] == nil {
                let hint = NearMiss.closest(to: document, among: data.names).map { " (did you mean \($0)?)" } ?? ""
                fail(
                    "unknown_data", source / "$each",
                    "no data document \"\(document)\" (\(DataDocuments.folder)/\(document).json)\(hint)")
            } else if list != nil {
                fail("invalid_template", source / "$each", "\(listName) is not an array")
            }
            return []
        }
        var scoped = items.map { item in
            var itemScope = scope
            itemScope[itemName] = item
            return itemScope
        }
        if let condition {
            var kept: [[String: JSONValue]] = []
            for itemScope in scoped where matches(condition, itemScope, at: source / "when") { kept.append(itemScope) }
            scoped = kept
        }
        for (parameter, name) in filters {
            let path = source / "filterBy" / parameter
            // The values the items have: any other value a request sends makes the same (empty) page.
            for itemScope in scoped {
                if let value = resolve(name, at: path, scope: itemScope) {
                    filterValues[parameter, default: []].insert(value.templateText)
                }
            }
            guard let wanted = query[parameter] else { continue }
            scoped = scoped.filter { resolve(name, at: path, scope: $0)?.templateText == wanted }
        }
        if let (name, descending) = sortKey {
            let keyed = scoped.map { (key: resolve(name, at: source / "sortBy", scope: $0), scope: $0) }
            // Stable (Swift's sort is): items with equal keys keep their order in the data; absent keys go last.
            scoped = keyed.sorted { left, right in
                switch (left.key == nil || left.key == .null, right.key == nil || right.key == .null) {
                case (true, _): return false
                case (false, true): return true
                default: return descending ? Self.precedes(right.key, left.key) : Self.precedes(left.key, right.key)
                }
            }.map(\.scope)
        }
        guard let groupKey else { return scoped.prefix(limit).map { (body, bodySource, $0) } }
        var groups: [(key: JSONValue, items: [JSONValue])] = []
        for itemScope in scoped {
            let key = resolve(groupKey, at: source / "groupBy", scope: itemScope) ?? .null
            let item = itemScope[itemName] ?? .null
            if let index = groups.firstIndex(where: { $0.key == key }) {
                groups[index].items.append(item)
            } else {
                groups.append((key, [item]))
            }
        }
        return groups.prefix(limit).map { group in
            var groupScope = scope
            groupScope["group"] = [
                "key": group.key, "items": .array(group.items), "count": .number(Double(group.items.count)),
            ]
            return (body, bodySource, groupScope)
        }
    }

    /// Whether `condition` holds in `scope`, its names looked up as placeholders are (recorded: a misspelt member
    /// is an `unknown_field`, a data document read is one the page depends on).
    mutating func matches(_ condition: DataCondition, _ scope: [String: JSONValue], at path: JSONPointer) -> Bool {
        for test in condition.tests {
            let value = resolve(test.name, at: path / test.name.description, scope: scope)
            guard test.matcher.matches(value) else { return false }
        }
        return true
    }

    mutating func parseName(_ text: String, at path: JSONPointer, variables: [String]) -> DataPath? {
        do {
            return try DataPath(parsing: text, variables: variables)
        } catch {
            diagnostics.append(.error(error.code, path, error.message))
            return nil
        }
    }

    mutating func parseCondition(_ value: JSONValue, at path: JSONPointer, variables: [String]) -> DataCondition? {
        do {
            return try DataCondition(parsing: value, variables: variables)
        } catch {
            diagnostics.append(.error(error.code, error.path.tokens.reduce(path) { $0 / $1 }, error.message))
            return nil
        }
    }

    /// Sort order: numbers by value, then text, then anything else by its JSON text; an absent value last.
    static func precedes(_ left: JSONValue?, _ right: JSONValue?) -> Bool {
        switch (left, right) {
        case (nil, _), (.null?, _): return false
        case (_, nil), (_, .null?): return true
        case (.number(let a)?, .number(let b)?): return a < b
        case (.number?, _): return true
        case (_, .number?): return false
        case (let a?, let b?): return a.templateText < b.templateText
        }
    }
}

extension PageTemplate {
    /// Letters, digits and `_`, not starting with a digit: a variable name.
    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return text.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z"))
                || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "_")
        }
    }
}
