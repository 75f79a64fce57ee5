import PageModel

/// A change an action answer makes to the session's copy of the data (pages/README.md § Actions that change data),
/// declared beside the answer in `server.actions` (`{"responses": [{"data": [...], "response": {...}}]}`):
///
///     {"update": "data.orders", "where": {"id": "{{request.payload.orderID}}"}, "set": {"status": "cancelled"}}
///     {"remove": "data.orders", "where": {"id": "{{request.payload.orderID}}"}}
///     {"insert": "data.orders", "item": {"id": "{{request.payload.orderID}}", …}, "at": "start"}
///
/// `where` tests members of each item (dotted paths) with the matchers of `when`; `set` assigns members (dotted
/// paths). Values may hold request placeholders (`{{request.payload.orderID}}`), filled per request like the
/// answer's. In mock mode, with a session, the changes apply to that session's copy of the data, and every page made
/// from it is made again for that session; `POST /__admin/sessions/{id}/reset` (or the session's expiry) forgets
/// them. Production keeps no per-session state: there the answer is sent and the data stays as the files say.
struct DataChange: Sendable {
    enum Kind: String, Sendable, CaseIterable {
        case update, remove, insert
    }

    static let keys: Set<String> = ["update", "remove", "insert", "where", "set", "item", "at"]

    var kind: Kind
    /// The array changed: `data.<document>[.path]`.
    var target: DataPath
    /// The change with its request placeholders; rendered per request.
    var template: ResponseTemplate?
    var fixed: JSONValue
    /// The members of `where` the file tests with operators (`{"gt": 3}`); the others are literals, whatever a
    /// request value filled in (an object sent as `orderID` is compared, never read as operators).
    var operatorMembers: Set<String> = []

    /// Parses one change at `path`; `nil` with errors when it cannot be used.
    init?(_ value: JSONValue, at path: JSONPointer, data: DataDocuments, diagnostics: inout [Diagnostic]) {
        guard case .object(let object) = value else {
            diagnostics.append(
                .error("invalid_data_change", path, "a data change is {\"update\" | \"remove\" | \"insert\": …}"))
            return nil
        }
        var valid = true
        func fail(_ at: JSONPointer, _ message: String, code: String = "invalid_data_change") {
            diagnostics.append(.error(code, at, message))
            valid = false
        }
        for member in object.members where !Self.keys.contains(member.key) {
            let hint = NearMiss.closest(to: member.key, among: Self.keys).map { " (did you mean \($0)?)" } ?? ""
            fail(path / member.key, "unknown member\(hint)", code: "unknown_setting")
        }
        let kinds = Kind.allCases.filter { object[$0.rawValue] != nil }
        guard kinds.count == 1, let kind = kinds.first else {
            fail(path, "a data change has exactly one of update, remove, insert")
            return nil
        }
        self.kind = kind
        var target = DataPath(root: "data", path: [])
        if case .string(let text)? = object[kind.rawValue],
            let parsed = try? DataPath(parsing: text, variables: [String]()), parsed.root == "data",
            let document = parsed.path.first
        {
            target = parsed
            if data.documents[document] == nil {
                let hint = NearMiss.closest(to: document, among: data.names).map { " (did you mean \($0)?)" } ?? ""
                fail(
                    path / kind.rawValue,
                    "no data document \"\(document)\" (\(DataDocuments.folder)/\(document).json)\(hint)",
                    code: "unknown_data")
            } else if target.resolve(in: ["data": data.scopeValue])?.arrayValue == nil {
                fail(path / kind.rawValue, "\(target) is not an array")
            }
        } else {
            fail(path / kind.rawValue, "\(kind.rawValue) names an array: data.<name>[.path]")
        }
        self.target = target
        switch kind {
        case .update:
            if object["where"] == nil { fail(path, "update needs where (the items to change)") }
            if object["set"]?.objectValue == nil { fail(path / "set", "set is an object of members and values") }
        case .remove:
            if object["where"] == nil { fail(path, "remove needs where (the items to remove)") }
        case .insert:
            if object["item"] == nil { fail(path, "insert needs item") }
            if let at = object["at"], at != "start", at != "end" { fail(path / "at", "at is \"start\" or \"end\"") }
        }
        if case .object(let conditions)? = object["where"] {
            for member in conditions.members {
                guard case .object(let operators) = member.value else { continue }
                operatorMembers.insert(member.key)
                for item in operators.members where !RequestCondition.operators.contains(item.key) {
                    let hint =
                        NearMiss.closest(to: item.key, among: RequestCondition.operators).map {
                            " (did you mean \($0)?)"
                        }
                        ?? ""
                    fail(path / "where" / member.key / item.key, "unknown matcher \"\(item.key)\"\(hint)")
                }
            }
        } else if object["where"] != nil {
            fail(path / "where", "where is an object of item members and matchers")
        }
        var errors: [MatchingError] = []
        template = ResponseTemplate.parse(value, errors: &errors)
        for error in errors { fail(error.path.tokens.reduce(path) { $0 / $1 }, error.message, code: error.code) }
        fixed = value
        guard valid else { return nil }
    }

    /// `documents` with this change applied, its placeholders filled from `facts`.
    func applied(to documents: inout DataDocuments, facts: RequestFacts) {
        guard case .object(let change) = template?.render(facts) ?? fixed,
            let document = target.path.first, let current = documents.documents[document]
        else { return }
        let matches: (JSONValue) -> Bool = { item in
            guard case .object(let conditions)? = change["where"] else { return true }
            return conditions.members.allSatisfy { member in
                // Checked at load but for filled values: a matcher a request value made malformed matches nothing.
                let matchers =
                    operatorMembers.contains(member.key)
                    ? (try? RequestCondition.matchers(member.value, at: .root)) : [.equals(member.value)]
                guard let matchers else { return false }
                let value = Self.member(item, member.key)
                return matchers.allSatisfy { $0.matches(value) }
            }
        }
        let changed = Self.updating(current, at: target.path.dropFirst()) { items in
            switch kind {
            case .update:
                guard case .object(let assignments)? = change["set"] else { return items }
                return items.map { item in
                    guard matches(item) else { return item }
                    return assignments.members.reduce(item) { Self.setting($0, $1.key, $1.value) }
                }
            case .remove:
                return items.filter { !matches($0) }
            case .insert:
                guard let item = change["item"] else { return items }
                return change["at"] == "start" ? [item] + items : items + [item]
            }
        }
        documents.set(document, changed)
    }

    /// The member of `item` at a dotted path.
    static func member(_ item: JSONValue, _ path: String) -> JSONValue? {
        DataPath(root: "item", path: path.split(separator: ".").map(String.init)).resolve(in: ["item": item])
    }

    /// `item` with the member at the dotted `path` set to `value` (objects made on the way).
    static func setting(_ item: JSONValue, _ path: String, _ value: JSONValue) -> JSONValue {
        let keys = path.split(separator: ".").map(String.init)
        func set(_ current: JSONValue?, _ keys: ArraySlice<String>) -> JSONValue {
            guard let key = keys.first else { return value }
            var object = current?.objectValue ?? JSONObject()
            object[key] = set(object[key], keys.dropFirst())
            return .object(object)
        }
        return set(item, keys[...])
    }

    /// `value` with the array at `path` (object keys) replaced by `change`'s result; unchanged when there is none.
    static func updating(_ value: JSONValue, at path: ArraySlice<String>, _ change: ([JSONValue]) -> [JSONValue])
        -> JSONValue
    {
        guard let key = path.first else {
            guard case .array(let items) = value else { return value }
            return .array(change(items))
        }
        guard case .object(var object) = value, let inner = object[key] else { return value }
        object[key] = updating(inner, at: path.dropFirst(), change)
        return .object(object)
    }
}

extension DataDocuments {
    /// Replaces the document `name` (a session's copy: its digest becomes that of its new content).
    mutating func set(_ name: String, _ value: JSONValue) {
        documents[name] = value
        digests[name] = Crypto.sha256(JSONWriter().write(value))
    }
}
