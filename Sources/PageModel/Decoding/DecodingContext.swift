/// The decoder's working state: the catalog, the diagnostics found so far, and the pointer that generated
/// ids are relative to (`/page` for a page envelope, the envelope itself otherwise).
struct DecodingContext {
    let catalog: WidgetCatalog
    var diagnostics: [Diagnostic] = []
    var documentRoot: JSONPointer = .root

    init(catalog: WidgetCatalog) {
        self.catalog = catalog
    }

    // MARK: Structural readers (throw: a broken envelope cannot be recovered)

    func object(_ value: JSONValue?, at path: LazyPointer) throws(ContractError) -> JSONObject {
        guard let value else { throw Self.missing(path.pointer, "object") }
        guard case .object(let object) = value else { throw Self.mismatch(path.pointer, "object", value) }
        return object
    }

    func array(_ value: JSONValue?, at path: LazyPointer) throws(ContractError) -> [JSONValue] {
        guard let value else { throw Self.missing(path.pointer, "array") }
        guard case .array(let array) = value else { throw Self.mismatch(path.pointer, "array", value) }
        return array
    }

    func string(_ value: JSONValue?, at path: LazyPointer) throws(ContractError) -> String {
        guard let value else { throw Self.missing(path.pointer, "string") }
        guard case .string(let string) = value else { throw Self.mismatch(path.pointer, "string", value) }
        return string
    }

    func optionalString(_ value: JSONValue?, at path: LazyPointer) throws(ContractError) -> String? {
        guard let value, !value.isNull else { return nil }
        return try string(value, at: path)
    }

    static func missing(_ path: JSONPointer, _ type: String) -> ContractError {
        ContractError(code: "invalid_envelope", path: path, message: "missing required \(type)")
    }

    static func mismatch(_ path: JSONPointer, _ type: String, _ found: JSONValue) -> ContractError {
        ContractError(code: "invalid_envelope", path: path, message: "expected \(type), found \(found.typeName)")
    }

    /// `sections.0.widgets.2` for `/page/sections/0/widgets/2` when the document root is `/page`.
    func codingPath(_ path: JSONPointer) -> String {
        let relative = path.string.dropFirst(documentRoot.string.count)
        return relative.split(separator: "/").joined(separator: ".")
    }

    // MARK: Page

    mutating func page(_ value: JSONValue, at path: LazyPointer) throws(ContractError) -> PageModel {
        documentRoot = path.pointer
        let object = try self.object(value, at: path)
        let id = try string(object["id"], at: path / "id")
        guard !id.isEmpty else {
            throw ContractError(
                code: "invalid_envelope", path: path.pointer / "id", message: "page id must not be empty")
        }
        var page = PageModel(id: id)
        page.title = try optionalString(object["title"], at: path / "title")
        page.header = try widgets(object["header"], at: path / "header")
        page.sections = try sections(object["sections"], at: path / "sections")
        page.footer = try widgets(object["footer"], at: path / "footer")
        page.pagination = try pagination(object["pagination"], at: path / "pagination")
        normalizeIDs(&page, at: path)
        return page
    }

    mutating func pagination(_ value: JSONValue?, at path: LazyPointer) throws(ContractError) -> Pagination? {
        guard let value, !value.isNull else { return nil }
        let object = try self.object(value, at: path)
        guard let hasMore = object["hasMore"] else { throw Self.missing(path.pointer / "hasMore", "boolean") }
        guard case .bool(var more) = hasMore else { throw Self.mismatch(path.pointer / "hasMore", "boolean", hasMore) }
        let postback = try optionalString(object["postback"], at: path / "postback")
        if more, postback?.isEmpty ?? true {
            diagnostics.append(
                .error(
                    "missing_postback", path.pointer / "postback", "hasMore is true but there is no postback; no more"))
            more = false
        }
        return Pagination(hasMore: more, postback: postback)
    }

    mutating func sections(_ value: JSONValue?, at path: LazyPointer) throws(ContractError) -> [Section] {
        let elements = try array(value, at: path)
        var sections: [Section] = []
        sections.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            sections.append(try section(element, at: path / index))
        }
        return sections
    }

    mutating func section(_ value: JSONValue, at path: LazyPointer) throws(ContractError) -> Section {
        let object = try self.object(value, at: path)
        let (id, generated) = identifier(object["id"], at: path, prefix: "section")
        let title = try optionalString(object["title"], at: path / "title")
        let widgets = try self.widgets(object["widgets"], at: path / "widgets")
        var section = Section(id: id, title: title, widgets: widgets, isGeneratedID: generated)
        section.compatibility = compatibility(object, at: path, widgetID: id, isSection: true)  // § 17
        return section
    }

    // MARK: Widgets (lenient: problems become diagnostics)

    mutating func widgets(_ value: JSONValue?, at path: LazyPointer) throws(ContractError)
        -> [Widget]
    {
        guard let value, !value.isNull else { return [] }
        let elements = try array(value, at: path)
        var widgets: [Widget] = []
        widgets.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            if let widget = widget(element, at: path / index) { widgets.append(widget) }
        }
        return widgets
    }

    /// The backend id when it is a non-empty string, else `prefix@codingPath`.
    mutating func identifier(_ value: JSONValue?, at path: LazyPointer, prefix: String) -> (String, Bool) {
        if case .string(let id)? = value, !id.isEmpty { return (id, false) }
        if let value, !value.isNull {
            diagnostics.append(
                .warning(
                    "invalid_id", path.pointer / "id",
                    "id must be a non-empty string, found \(value.typeName); a generated id is used"))
        }
        return (prefix + "@" + codingPath(path.pointer), true)
    }

    mutating func widget(_ value: JSONValue, at path: LazyPointer) -> Widget? {
        guard case .object(let object) = value else {
            diagnostics.append(
                .error("invalid_widget", path.pointer, "a widget must be an object, found \(value.typeName)"))
            return nil
        }
        guard case .string(let type)? = object["type"], !type.isEmpty else {
            let (id, generated) = identifier(object["id"], at: path, prefix: "widget")
            diagnostics.append(
                .error("invalid_widget", path.pointer / "type", widgetID: id, "a widget needs a non-empty string type"))
            return Widget(
                id: id, type: "", content: object["content"] ?? .object(JSONObject()),
                rendering: .placeholder(code: "invalid_widget"), isGeneratedID: generated)
        }
        let (id, generated) = identifier(object["id"], at: path, prefix: type)
        let content = object["content"] ?? .object(JSONObject())
        var rendering = Widget.Rendering.content
        if let spec = catalog[type] {
            if let problem = spec.check(content: content, at: path / "content", widgetID: id) {
                diagnostics.append(problem)
                rendering = .placeholder(code: problem.code)
            }
        } else {
            diagnostics.append(
                .warning("unknown_widget_type", path.pointer / "type", widgetID: id, "unknown widget type \"\(type)\""))
            rendering = .unknownType
        }
        var widget = Widget(id: id, type: type, content: content, rendering: rendering, isGeneratedID: generated)
        if let actions = object["actions"], !actions.isNull {
            widget.actions = self.actions(actions, at: path / "actions", widgetID: id)
        }
        if let children = object["children"], !children.isNull {
            if case .array(let elements) = children {
                widget.children.reserveCapacity(elements.count)
                for (index, element) in elements.enumerated() {
                    if let child = self.widget(element, at: path / "children" / index) {
                        widget.children.append(child)
                    }
                }
            } else {
                diagnostics.append(
                    .error(
                        "invalid_widget", path.pointer / "children", widgetID: id,
                        "children must be an array, found \(children.typeName)"))
            }
        }
        widget.compatibility = compatibility(object, at: path, widgetID: id, isSection: false)  // § 17
        return widget
    }

    // MARK: Actions

    mutating func actions(_ value: JSONValue, at path: LazyPointer, widgetID: String) -> [String: Action] {
        guard case .object(let object) = value else {
            diagnostics.append(
                .error(
                    "invalid_action", path.pointer, widgetID: widgetID,
                    "actions must be an object of event name to action, found \(value.typeName)"))
            return [:]
        }
        var actions: [String: Action] = [:]
        for member in object.members {
            if let action = action(member.value, at: path / member.key, widgetID: widgetID) {
                actions[member.key] = action
            }
        }
        return actions
    }

    /// One action; `nil` (with an `invalid_action` error) when it lacks what its type requires.
    mutating func action(_ value: JSONValue, at path: LazyPointer, widgetID: String?) -> Action? {
        guard case .object(let object) = value else {
            diagnostics.append(
                .error(
                    "invalid_action", path.pointer, widgetID: widgetID,
                    "an action must be an object, found \(value.typeName)"))
            return nil
        }
        guard case .string(let type)? = object["type"] else {
            diagnostics.append(
                .error("invalid_action", path.pointer / "type", widgetID: widgetID, "an action needs a string type"))
            return nil
        }
        func requiredString(_ key: String) -> String? {
            if case .string(let string)? = object[key], !string.isEmpty { return string }
            return nil
        }
        func missing(_ key: String) -> Action? {
            diagnostics.append(
                .error(
                    "invalid_action", path.pointer / key, widgetID: widgetID,
                    "\(type) action requires a non-empty string \"\(key)\""))
            return nil
        }
        switch type {
        case ActionType.toast:
            guard let message = requiredString("message") else { return missing("message") }
            return .toast(message: message)
        case ActionType.dismiss:
            return .dismiss
        case ActionType.refreshPage:
            return .refreshPage
        case ActionType.openBottomSheet:
            guard let pageID = requiredString("pageID") else { return missing("pageID") }
            var parameters: [String: String] = [:]
            if let value = object["parameters"], !value.isNull, value.objectValue == nil {
                diagnostics.append(
                    .error(
                        "invalid_action", path.pointer / "parameters", widgetID: widgetID,
                        "parameters must be an object of strings, found \(value.typeName)"))
            }
            if case .object(let given)? = object["parameters"] {
                for member in given.members {
                    if case .string(let text) = member.value {
                        parameters[member.key] = text
                    } else {
                        diagnostics.append(
                            .error(
                                "invalid_action", path.pointer / "parameters" / member.key, widgetID: widgetID,
                                "page parameters are strings, found \(member.value.typeName)"))
                    }
                }
            }
            return .openBottomSheet(pageID: pageID, parameters: parameters)
        case ActionType.api:
            guard let name = requiredString("name") else { return missing("name") }
            return .api(name: name, payload: object["payload"])
        case ActionType.deeplink:
            guard let url = requiredString("url") else { return missing("url") }
            return .deeplink(url: url)
        default:
            diagnostics.append(
                .warning(
                    "unknown_action_type", path.pointer / "type", widgetID: widgetID, "unknown action type \"\(type)\"")
            )
            return .unknown(type: type, body: object)
        }
    }
}
