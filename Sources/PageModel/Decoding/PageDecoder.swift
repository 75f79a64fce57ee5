/// Decodes contract bodies leniently: structure errors throw a ``ContractError`` naming the JSON path; content
/// problems inside a widget become ``Diagnostic``s and placeholder content; unknown widget and action types are
/// kept with a warning. Ids are normalised as `docs/contract.md` specifies.
public struct PageDecoder: Sendable {
    public var catalog: WidgetCatalog
    public var parser: JSONParser

    /// - Parameters:
    ///   - catalog: the widget types to check content against. Default ``WidgetCatalog/standard``.
    ///   - maximumDepth: JSON nesting limit. Default 256.
    public init(catalog: WidgetCatalog = .standard, maximumDepth: Int = 256) {
        self.catalog = catalog
        self.parser = JSONParser(maximumDepth: maximumDepth)
    }

    /// Parses JSON text, mapping syntax errors to `invalid_json`.
    public func parse(_ bytes: some Collection<UInt8>) throws(ContractError) -> JSONValue {
        do {
            return try parser.parse(bytes)
        } catch {
            throw ContractError(code: "invalid_json", path: .root, message: error.description)
        }
    }

    /// Decodes any envelope (`page`, `nextPage` or `actionResponse`).
    public func decodeEnvelope(_ bytes: some Collection<UInt8>) throws(ContractError) -> Decoded<Envelope> {
        try decodeEnvelope(json: try parse(bytes))
    }

    /// Decodes a `page` envelope.
    public func decodePage(_ bytes: some Collection<UInt8>) throws(ContractError) -> Decoded<PageModel> {
        let decoded = try decodeEnvelope(bytes)
        guard case .page(let page) = decoded.value else { throw Self.unexpectedKind(decoded.value, .page) }
        return Decoded(page, decoded.diagnostics)
    }

    /// Decodes a `nextPage` envelope.
    public func decodeNextPage(_ bytes: some Collection<UInt8>) throws(ContractError) -> Decoded<NextPage> {
        let decoded = try decodeEnvelope(bytes)
        guard case .nextPage(let next) = decoded.value else { throw Self.unexpectedKind(decoded.value, .nextPage) }
        return Decoded(next, decoded.diagnostics)
    }

    /// Decodes an `actionResponse` envelope.
    public func decodeActionResponse(_ bytes: some Collection<UInt8>) throws(ContractError) -> Decoded<ActionResponse> {
        try decodeActionResponse(json: try parse(bytes))
    }

    /// Decodes an `actionResponse` envelope from an already parsed value (a server checking an answer it built).
    public func decodeActionResponse(json: JSONValue) throws(ContractError) -> Decoded<ActionResponse> {
        let decoded = try decodeEnvelope(json: json)
        guard case .actionResponse(let response) = decoded.value else {
            throw Self.unexpectedKind(decoded.value, .actionResponse)
        }
        return Decoded(response, decoded.diagnostics)
    }

    static func unexpectedKind(_ envelope: Envelope, _ expected: Envelope.Kind) -> ContractError {
        ContractError(
            code: "unexpected_kind", path: "/kind",
            message: "expected kind \"\(expected.rawValue)\", found \"\(envelope.kind.rawValue)\"")
    }

    /// Decodes an envelope from an already parsed value.
    public func decodeEnvelope(json: JSONValue) throws(ContractError) -> Decoded<Envelope> {
        var reader = DecodingContext(catalog: catalog)
        let root = try reader.object(json, at: .root)
        guard let version = root["schemaVersion"] else {
            throw ContractError(code: "invalid_envelope", path: "/schemaVersion", message: "missing schemaVersion")
        }
        guard let number = version.intValue, number >= 1 else {
            throw ContractError(
                code: "invalid_envelope", path: "/schemaVersion",
                message: "schemaVersion must be a positive integer, found \(version)")
        }
        guard number <= Envelope.schemaVersion else {
            throw ContractError(
                code: "unsupported_schema_version", path: "/schemaVersion",
                message: "schemaVersion \(number) is newer than this client's \(Envelope.schemaVersion)")
        }
        let kindText = try reader.string(root["kind"], at: "/kind")
        guard let kind = Envelope.Kind(rawValue: kindText) else {
            throw ContractError(
                code: "invalid_envelope", path: "/kind",
                message: "unknown kind \"\(kindText)\" (expected page, nextPage or actionResponse)")
        }
        let envelope: Envelope
        switch kind {
        case .page:
            guard let page = root["page"] else {
                throw ContractError(code: "invalid_envelope", path: "/page", message: "missing page")
            }
            envelope = .page(try reader.page(page, at: "/page"))
        case .nextPage:
            reader.documentRoot = .root
            var sections = try reader.sections(root["sections"], at: "/sections")
            let pagination = try reader.pagination(root["pagination"], at: "/pagination") ?? .end
            var ids = UniqueIDs()
            reader.dedupe(&sections, at: "/sections", using: &ids)
            var widgetIDs = UniqueIDs()
            for index in sections.indices {
                reader.dedupe(
                    &sections[index].widgets, at: LazyPointer.root / "sections" / index / "widgets",
                    using: &widgetIDs)
            }
            envelope = .nextPage(NextPage(sections: sections, pagination: pagination))
        case .actionResponse:
            envelope = .actionResponse(try reader.actionResponse(root, at: .root))
        }
        return Decoded(envelope, reader.diagnostics)
    }

    /// Decodes a bare page object (the `page` member of an envelope, or an authored page file), with its
    /// diagnostics rooted at `path`.
    public func decodePage(json: JSONValue, at path: JSONPointer = .root) throws(ContractError) -> Decoded<PageModel> {
        var reader = DecodingContext(catalog: catalog)
        let page = try reader.page(json, at: .pointer(path))
        return Decoded(page, reader.diagnostics)
    }

    /// Decodes one widget (e.g. for a mutation authored on its own), ids relative to `path`.
    public func decodeWidget(json: JSONValue, at path: JSONPointer = .root) -> Decoded<Widget?> {
        var reader = DecodingContext(catalog: catalog)
        reader.documentRoot = path
        let widget = reader.widget(json, at: .pointer(path))
        return Decoded(widget, reader.diagnostics)
    }
}

/// A decoded value with the diagnostics found while decoding it.
public struct Decoded<Value> {
    public var value: Value
    public var diagnostics: [Diagnostic]

    public init(_ value: Value, _ diagnostics: [Diagnostic] = []) {
        self.value = value
        self.diagnostics = diagnostics
    }
}

extension Decoded: Sendable where Value: Sendable {}
extension Decoded: Equatable where Value: Equatable {}
