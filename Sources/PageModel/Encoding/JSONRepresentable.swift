/// A contract value that writes itself as ``JSONValue`` in its wire form. Key order is fixed, so the same value
/// always encodes to the same bytes (ETags depend on it).
public protocol JSONRepresentable {
    var json: JSONValue { get }
}

extension JSONRepresentable {
    /// Compact UTF-8 JSON bytes.
    public func encoded() -> [UInt8] { JSONWriter().write(json) }
}

extension Envelope: JSONRepresentable {
    public var json: JSONValue {
        var object = JSONObject(capacity: 4)
        object["schemaVersion"] = .number(Double(Envelope.schemaVersion))
        object["kind"] = .string(kind.rawValue)
        switch self {
        case .page(let page):
            object["page"] = page.json
        case .nextPage(let next):
            object["sections"] = .array(next.sections.map(\.json))
            object["pagination"] = next.pagination.json
        case .actionResponse(let response):
            object["mutations"] = .array(response.mutations.map(\.json))
            object["effects"] = .array(response.effects.map(\.json))
        }
        return .object(object)
    }
}

extension PageModel: JSONRepresentable {
    public var json: JSONValue { .object(members(sections: .array(sections.map(\.json)))) }

    /// The page's members in wire order, `sections` standing for the section array (so the streamed encoding in
    /// PageModel+EncodedPieces.swift writes the same bytes without building the array).
    func members(sections: JSONValue) -> JSONObject {
        var object = JSONObject(capacity: 6)
        object["id"] = .string(id)
        if let title { object["title"] = .string(title) }
        if !header.isEmpty { object["header"] = .array(header.map(\.json)) }
        object["sections"] = sections
        if !footer.isEmpty { object["footer"] = .array(footer.map(\.json)) }
        if let pagination { object["pagination"] = pagination.json }
        return object
    }
}

extension Section: JSONRepresentable {
    public var json: JSONValue {
        var object = JSONObject(capacity: 6)
        object["id"] = .string(id)
        if let title { object["title"] = .string(title) }
        object["widgets"] = .array(widgets.map(\.json))
        compatibility.write(into: &object)
        return .object(object)
    }
}

extension Widget: JSONRepresentable {
    public var json: JSONValue {
        var object = JSONObject(capacity: 8)
        object["id"] = .string(id)
        object["type"] = .string(type)
        object["content"] = content
        if !actions.isEmpty {
            object["actions"] = .object(
                JSONObject(actions.keys.sorted().map { JSONObject.Member(key: $0, value: actions[$0]!.json) }))
        }
        if !children.isEmpty { object["children"] = .array(children.map(\.json)) }
        compatibility.write(into: &object)
        return .object(object)
    }
}

extension Pagination: JSONRepresentable {
    public var json: JSONValue {
        var object = JSONObject(capacity: 2)
        object["hasMore"] = .bool(hasMore)
        if let postback { object["postback"] = .string(postback) }
        return .object(object)
    }
}

extension Action: JSONRepresentable {
    public var json: JSONValue {
        var object = JSONObject(capacity: 3)
        object["type"] = .string(type)
        switch self {
        case .toast(let message): object["message"] = .string(message)
        case .dismiss, .refreshPage: break
        case .openBottomSheet(let pageID, let parameters):
            object["pageID"] = .string(pageID)
            if !parameters.isEmpty {
                object["parameters"] = .object(
                    JSONObject(parameters.keys.sorted().map { .init(key: $0, value: .string(parameters[$0]!)) }))
            }
        case .api(let name, let payload):
            object["name"] = .string(name)
            if let payload { object["payload"] = payload }
        case .deeplink(let url): object["url"] = .string(url)
        case .unknown(_, let body): return .object(body)
        }
        return .object(object)
    }
}

extension PageMutation: JSONRepresentable {
    public var json: JSONValue {
        var object = JSONObject(capacity: 3)
        object["type"] = .string(type)
        switch self {
        case .replacePage(let page): object["page"] = page.json
        case .appendSections(let sections), .prependSections(let sections):
            object["sections"] = .array(sections.map(\.json))
        case .replaceWidget(let id, let widget):
            object["id"] = .string(id)
            object["widget"] = widget.json
        case .removeWidget(let id): object["id"] = .string(id)
        }
        return .object(object)
    }
}

extension ProblemDetails: JSONRepresentable {
    public var json: JSONValue {
        var object = JSONObject()
        object["type"] = .string(type)
        object["title"] = .string(title)
        object["status"] = .number(Double(status))
        object["detail"] = .string(detail)
        object["code"] = .string(code)
        if let path { object["path"] = .string(path) }
        if let diagnostics { object["diagnostics"] = .array(diagnostics.map(\.json)) }
        return .object(object)
    }
}
