import PageModel

extension RecordedFolder {
    /// Writes a merged page document: `<pageID>.json`, or with `parameters` a scenario file and a variant of the
    /// base page that serves it (``PageRecorder/recordPage(pageID:parameters:chunks:)``). Returns why nothing was
    /// recorded, or `nil`.
    mutating func recordPage(
        pageID: String, parameters: [String: String], document: JSONValue, pageSize: Int, rules: RecordingRules
    ) throws(RecordingError) -> String? {
        let base = pageID + ".json"
        guard !parameters.isEmpty else {
            try setPage(base, document, pageSize: pageSize)
            try pruneStaleActions(base)
            if rules.addsStandIns { try addStandIns(for: base, base: base) }
            return nil
        }
        let when = Self.condition(parameters)
        let query = parameters.keys.sorted().map { "\($0)=\(parameters[$0]!)" }.joined(separator: "&")
        if !exists(base) {
            try setPage(base, document, pageSize: pageSize)
            notes.append("\(base): the base page, from the first recorded load (?\(query))")
            if rules.addsStandIns { try addStandIns(for: base, base: base) }
        }
        var variants = try server(of: base)["variants"]?.arrayValue ?? []
        let scenario: String
        if let index = variants.firstIndex(where: { $0["when"] == when }) {
            guard case .string(let existing)? = variants[index]["scenario"] else {
                return "\(base) already has a variant for ?\(query) at /server/variants/\(index) that is not a "
                    + "recorded scenario; it is left as it is"
            }
            scenario = existing
        } else {
            scenario = uniqueScenarioName(pageID: pageID, parameters: parameters, variants: variants)
            let rank = when.objectValue?.count ?? 0
            let position =
                variants.firstIndex { variant in
                    !(Self.isExact(variant["when"]) && (variant["when"]?.objectValue?.count ?? 0) >= rank)
                } ?? variants.count
            variants.insert(["when": when, "scenario": .string(scenario)], at: position)
            try setServer(base, "variants", .array(variants))
            notes.append(
                "\(base): variant /server/variants/\(position) serves ?\(query) from \(pageID).\(scenario).json")
        }
        let file = "\(pageID).\(scenario).json"
        try setPage(file, document, pageSize: pageSize)
        if rules.addsStandIns { try addStandIns(for: file, base: base) }
        return nil
    }

    /// Stores an action's answer in the page that declares or fires it (``PageRecorder/recordAction(name:body:pageHint:)``).
    /// Returns why nothing was recorded, or `nil`.
    mutating func recordAction(name: String, answer: JSONValue, pageHint: String?, rules: RecordingRules)
        throws(RecordingError) -> String?
    {
        let target: String
        if let file = try declaredActions()[name] {
            let existing = try server(of: file)["actions"]?[name]
            if case .object(let object)? = existing, object["kind"] == nil, object["responses"] != nil {
                return "\(file) declares \(name) with matched responses; a recorded answer does not replace them"
            }
            if existing == Self.standInAction(name) { notes.append("\(file): the stand-in answer of \(name) replaced") }
            target = file
        } else if let file = try firingFile(of: name) {
            target = file
        } else if let pageHint {
            guard PageID.isValid(pageHint), exists(pageHint + ".json") else {
                return "no recorded page fires action \(name), and the hinted page \(pageHint) is not recorded"
            }
            target = pageHint + ".json"
        } else {
            return "no recorded page fires action \(name) (record the page that fires it first)"
        }
        var answers = try server(of: target)["actions"]?.objectValue ?? JSONObject()
        answers[name] = answer
        try setServer(target, "actions", .object(answers))
        if rules.addsStandIns { try addStandIns(for: target, base: target) }
        return nil
    }

    /// Replaces the page envelope of file `name` by `document`, keeping its `$schema` and its other `server`
    /// settings, and sets `server.pageSize`.
    mutating func setPage(_ name: String, _ document: JSONValue, pageSize: Int) throws(RecordingError) {
        let existing = try self.document(name)?.objectValue
        var server = existing?["server"]?.objectValue ?? JSONObject()
        server["pageSize"] = .number(Double(pageSize))
        var file = JSONObject()
        if let schema = existing?["$schema"] { file["$schema"] = schema }
        for member in document.objectValue?.members ?? [] where member.key != "server" && member.key != "$schema" {
            file[member.key] = member.value
        }
        file["server"] = .object(server)
        set(name, .object(file))
    }

    /// Drops the declared answers of `name` that no longer apply to its re-recorded page (a `replaceWidget`
    /// of a widget the page lost), with a note: the page is what was observed last.
    mutating func pruneStaleActions(_ name: String) throws(RecordingError) {
        let stale = Set(
            try errors(of: name).compactMap { error -> String? in
                let tokens = error.path.tokens
                return tokens.count > 2 && tokens[0] == "server" && tokens[1] == "actions" ? tokens[2] : nil
            })
        guard !stale.isEmpty else { return }
        var answers = try server(of: name)["actions"]?.objectValue ?? JSONObject()
        for action in stale.sorted() {
            answers[action] = nil
            notes.append("\(name): the answer of \(action) no longer applies to the recorded page and was dropped")
        }
        try setServer(name, "actions", answers.isEmpty ? nil : .object(answers))
    }

    /// The base page file whose page (or one of its scenarios) fires action `name`: the first, by file name.
    mutating func firingFile(of name: String) throws(RecordingError) -> String? {
        for file in names {
            guard let document = try document(file), Self.references(in: document).actions.contains(name) else {
                continue
            }
            let pageID = CatalogScenario.parse(fileName: file)?.pageID ?? String(file.dropLast(5))
            if exists(pageID + ".json") { return pageID + ".json" }
        }
        return nil
    }

    /// A variant condition matching exactly `parameters`: `{"request.query.<name>": "<value>", …}`, names sorted.
    static func condition(_ parameters: [String: String]) -> JSONValue {
        .object(
            JSONObject(
                parameters.keys.sorted().map {
                    JSONObject.Member(key: "request.query.\($0)", value: .string(parameters[$0]!))
                }))
    }

    /// Whether a variant's `when` only compares values with literal strings (a recorded variant's kind).
    static func isExact(_ when: JSONValue?) -> Bool {
        guard case .object(let object)? = when else { return false }
        return object.members.allSatisfy { if case .string = $0.value { true } else { false } }
    }

    /// A scenario name for `parameters` that no other file or variant uses: the value for one parameter
    /// (`p-1042`), `name-value` pairs joined by `_` for several, characters outside `[A-Za-z0-9_-]` replaced by
    /// `-`; `-2`, `-3`, … appended when taken.
    func uniqueScenarioName(pageID: String, parameters: [String: String], variants: [JSONValue]) -> String {
        let keys = parameters.keys.sorted()
        let raw =
            keys.count == 1
            ? parameters[keys[0]]! : keys.map { "\($0)-\(parameters[$0]!)" }.joined(separator: "_")
        var name = String(
            String.UnicodeScalarView(
                raw.unicodeScalars.map { scalar in
                    scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
                        || scalar == "_" || scalar == "-" ? scalar : "-"
                }
            ).prefix(100))
        if !(name.unicodeScalars.first.map { $0.isASCII && $0 != "_" && $0 != "-" } ?? false) { name = "v" + name }
        let used = Set(variants.compactMap { $0["scenario"]?.stringValue })
        var candidate = name
        var counter = 1
        while used.contains(candidate) || exists("\(pageID).\(candidate).json") {
            counter += 1
            candidate = "\(name)-\(counter)"
        }
        return candidate
    }
}
