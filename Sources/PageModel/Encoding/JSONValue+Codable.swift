/// `Codable` bridges, for hosts that use `JSONEncoder`/`JSONDecoder`. The codec's own fast path is
/// ``PageDecoder`` and ``JSONRepresentable``; these conformances apply the same decoding rules. One difference:
/// `Decoder` does not report object keys in source order, so the bridge sorts content keys — the decoded model is
/// equal, but re-encoded bytes (and so ETags) can differ from the fast path's. Servers use the fast path.
extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            let members = try decoder.container(keyedBy: AnyKey.self)
            self = .object(
                JSONObject(
                    try members.allKeys.sorted { $0.stringValue < $1.stringValue }.map {
                        JSONObject.Member(key: $0.stringValue, value: try members.decode(JSONValue.self, forKey: $0))
                    }))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let bool):
            var container = encoder.singleValueContainer()
            try container.encode(bool)
        case .number(let number):
            var container = encoder.singleValueContainer()
            if let int = intValue { try container.encode(int) } else { try container.encode(number) }
        case .string(let string):
            var container = encoder.singleValueContainer()
            try container.encode(string)
        case .array(let array):
            var container = encoder.unkeyedContainer()
            for element in array { try container.encode(element) }
        case .object(let object):
            var container = encoder.container(keyedBy: AnyKey.self)
            for member in object.members { try container.encode(member.value, forKey: AnyKey(member.key)) }
        }
    }
}

struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// The wire error of a `Codable` bridge: the ``ContractError`` with its code and JSON path.
extension ContractError {
    func decodingError(_ decoder: any Decoder) -> DecodingError {
        .dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: description, underlyingError: self))
    }
}

extension Envelope: Codable {
    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        do { self = try PageDecoder().decodeEnvelope(json: json).value } catch { throw error.decodingError(decoder) }
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}

extension PageModel: Codable {
    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        do { self = try PageDecoder().decodePage(json: json).value } catch { throw error.decodingError(decoder) }
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}

extension Widget: Codable {
    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        guard let widget = PageDecoder().decodeWidget(json: json).value else {
            throw ContractError(code: "invalid_widget", path: .root, message: "a widget must be an object")
                .decodingError(decoder)
        }
        self = widget
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
