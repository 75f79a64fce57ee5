/// A named client to resolve and verify pages as (`current`, `legacy`, `minimal`, …), read from a profiles
/// file such as `config/capability-profiles.json`:
///
/// ```json
/// { "profiles": { "legacy": { "description": "…", "header": "platform=ios; version=2.4.0; widgets=…" } } }
/// ```
public struct CapabilityProfile: Sendable, Hashable {
    public var name: String
    public var summary: String
    /// The `X-Flow-Client` value this client sends.
    public var header: String
    public var capabilities: ClientCapabilities

    public init(name: String, summary: String = "", header: String) throws(CapabilityHeaderError) {
        self.name = name
        self.summary = summary
        self.header = header
        self.capabilities = try ClientCapabilities(header: header)
    }

    /// Every profile in a profiles file, sorted by name.
    /// - Throws: ``ContractError`` (`invalid_json`, `invalid_profile`) naming the JSON path.
    public static func load(_ bytes: some Collection<UInt8>) throws(ContractError) -> [CapabilityProfile] {
        let root: JSONValue
        do { root = try JSONParser().parse(bytes) } catch {
            throw ContractError(code: "invalid_json", path: .root, message: error.description)
        }
        guard let profiles = root["profiles"]?.objectValue else {
            throw ContractError(code: "invalid_profile", path: "/profiles", message: "profiles is an object")
        }
        var result: [CapabilityProfile] = []
        for member in profiles.members {
            let path = JSONPointer("/profiles") / member.key
            guard let header = member.value["header"]?.stringValue else {
                throw ContractError(code: "invalid_profile", path: path / "header", message: "header is a string")
            }
            do {
                result.append(
                    try CapabilityProfile(
                        name: member.key, summary: member.value["description"]?.stringValue ?? "", header: header))
            } catch {
                throw ContractError(code: "invalid_profile", path: path / "header", message: error.description)
            }
        }
        return result.sorted { $0.name < $1.name }
    }

    /// The profile named `name` in `profiles`, with a near-miss list in the error.
    public static func named(_ name: String, in profiles: [CapabilityProfile]) throws(ContractError)
        -> CapabilityProfile
    {
        guard let profile = profiles.first(where: { $0.name == name }) else {
            throw ContractError(
                code: "unknown_profile", path: .root,
                message: "no capability profile \"\(name)\"; known: \(profiles.map(\.name).joined(separator: ", "))")
        }
        return profile
    }
}
