/// What a client says it can render, from the `X-Flow-Client` request header (docs/contract.md § 17):
///
/// ```
/// X-Flow-Client: platform=ios; version=3.2.0; widgets=text@1,image@1,button@2; features=haptics
/// ```
///
/// Parameters are `name=value` separated by `;`, names case-insensitive, unknown names ignored (so clients can
/// send more later). `widgets` lists the widget types the client renders, each with the highest version of that
/// type it understands (`@1` when omitted). An absent member means "not declared": no `widgets` renders every
/// type at every version, no `version` satisfies every minimum version, no `features` has none.
public struct ClientCapabilities: Sendable, Hashable {
    /// Lowercased platform name (`ios`, `android`, `web`, …), when declared.
    public var platform: String?
    public var appVersion: AppVersion?
    /// Widget type → highest version rendered; `nil` when the client did not declare its widgets.
    public var widgets: [String: Int]?
    /// Optional features the client supports (`haptics`, `dark_mode`, …).
    public var features: Set<String>

    /// The request header's name.
    public static let headerName = "X-Flow-Client"
    /// Longest header value accepted.
    public static let maximumHeaderLength = 4_096

    public init(
        platform: String? = nil, appVersion: AppVersion? = nil, widgets: [String: Int]? = nil,
        features: Set<String> = []
    ) {
        self.platform = platform?.lowercased()
        self.appVersion = appVersion
        self.widgets = widgets
        self.features = features
    }

    /// A client that declared nothing: renders everything (the unresolved page).
    public static let unrestricted = ClientCapabilities()

    /// Parses a header value.
    /// - Throws: ``CapabilityHeaderError`` for a malformed parameter, version or widget entry.
    public init(header: String) throws(CapabilityHeaderError) {
        guard header.utf8.count <= Self.maximumHeaderLength else {
            throw CapabilityHeaderError(message: "longer than \(Self.maximumHeaderLength) bytes")
        }
        self.init()
        for parameter in header.split(separator: ";") {
            let trimmed = parameter.trimmingSpaces
            if trimmed.isEmpty { continue }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw CapabilityHeaderError(message: "\"\(trimmed)\" is not name=value")
            }
            let name = trimmed[..<equals].trimmingSpaces.lowercased()
            let value = trimmed[trimmed.index(after: equals)...].trimmingSpaces
            switch name {
            case "platform":
                guard Self.isToken(value) else { throw CapabilityHeaderError(message: "platform \"\(value)\"") }
                platform = value.lowercased()
            case "version":
                guard let version = AppVersion(value) else {
                    throw CapabilityHeaderError(message: "version \"\(value)\" is not a dotted number like 3.2.0")
                }
                appVersion = version
            case "widgets":
                var declared: [String: Int] = [:]
                for entry in value.split(separator: ",") {
                    let requirement = try Requirement(parsing: entry.trimmingSpaces)
                    declared[requirement.name] = max(declared[requirement.name] ?? 0, requirement.version)
                }
                widgets = declared
            case "features":
                for entry in value.split(separator: ",") {
                    let feature = entry.trimmingSpaces
                    guard Self.isToken(feature) else { throw CapabilityHeaderError(message: "feature \"\(feature)\"") }
                    features.insert(feature)
                }
            default:
                continue
            }
        }
    }

    /// The canonical header value: members in a fixed order, widgets and features sorted. Two headers that mean
    /// the same thing have the same key, which caches and cursors use.
    public var profileKey: String {
        var parts: [String] = []
        if let platform { parts.append("platform=\(platform)") }
        if let appVersion { parts.append("version=\(appVersion)") }
        if let widgets {
            parts.append("widgets=" + widgets.keys.sorted().map { "\($0)@\(widgets[$0]!)" }.joined(separator: ","))
        }
        if !features.isEmpty { parts.append("features=" + features.sorted().joined(separator: ",")) }
        return parts.joined(separator: "; ")
    }

    /// Whether the client renders `type` at `version` or later.
    public func renders(_ type: String, version: Int = 1) -> Bool {
        guard let widgets else { return true }
        return (widgets[type] ?? 0) >= version
    }

    /// Whether a `requires` entry (`button@2`, `haptics`) holds: a declared feature of that name, else a widget
    /// type at that version (always true when the client did not declare its widgets).
    public func satisfies(_ requirement: Requirement) -> Bool {
        features.contains(requirement.name) || renders(requirement.name, version: requirement.version)
    }

    /// Whether the client's app version meets `minimum` (always true when the client sent no version).
    public func meets(_ minimum: MinimumAppVersion) -> Bool {
        guard let appVersion, let required = minimum.version(for: platform) else { return true }
        return appVersion >= required
    }

    static func isToken(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy {
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F
                    || $0 == 0x2D || $0 == 0x2E
            }
    }
}

/// One capability requirement: `name@version` (`button@2`) or `name` (version 1).
public struct Requirement: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var version: Int

    public init(name: String, version: Int = 1) {
        self.name = name
        self.version = version
    }

    public init(parsing text: some StringProtocol) throws(CapabilityHeaderError) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), ClientCapabilities.isToken(parts[0]) else {
            throw CapabilityHeaderError(message: "\"\(text)\" is not type@version")
        }
        name = String(parts[0])
        version = 1
        if parts.count == 2 {
            guard let number = Int(parts[1]), number >= 1, number <= 1_000 else {
                throw CapabilityHeaderError(message: "\"\(text)\": the version is an integer ≥ 1")
            }
            version = number
        }
    }

    public var description: String { version == 1 ? name : "\(name)@\(version)" }
}

/// A malformed `X-Flow-Client` header (400 `invalid_client_header`).
public struct CapabilityHeaderError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { "X-Flow-Client: \(message)" }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }
}
