import Foundation
import PageModel

/// Fills a ``BFFConfiguration`` from files, then `FLOW_BFF_*` environment variables, then flags — later sources
/// override earlier ones. Unknown keys and bad values are errors naming the source and key.
public struct ConfigurationLoader: Sendable {
    public init() {}

    /// - Parameters:
    ///   - files: JSON files, applied in order (e.g. `config/default.json`).
    ///   - environment: the process environment; `FLOW_BFF_*` variables and the OpenTelemetry ones
    ///     (``OpenTelemetryEnvironment``) are read.
    ///   - flags: dotted key → value text, from the command line (`--port 9000` is `server.port`).
    public func load(files: [String], environment: [String: String], flags: [String: String] = [:])
        throws(ConfigurationError) -> BFFConfiguration
    {
        var configuration = BFFConfiguration()
        for file in files { try apply(file: file, to: &configuration) }
        for (name, text) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix("FLOW_BFF_") {
            let path =
                name == "FLOW_BFF_CURSOR_KEY"
                ? "cursors.key" : ConfigurationKey.all.first { $0.environmentVariable == name }?.path
            guard let path else {
                throw ConfigurationError(
                    code: "unknown_key", key: name,
                    message:
                        "unknown variable\(Self.suggestion(for: name, among: ConfigurationKey.all.map(\.environmentVariable)))",
                    source: "environment")
            }
            try apply(text: text, to: path, source: "environment (\(name))", configuration: &configuration)
        }
        // The standard OpenTelemetry variables override `tracing.*` (docs/operations.md, "Tracing").
        try OpenTelemetryEnvironment.apply(environment, to: &configuration.tracing)
        for (path, text) in flags.sorted(by: { $0.key < $1.key }) {
            try apply(text: text, to: path, source: "flags", configuration: &configuration)
        }
        if configuration.cursors.requireKey, configuration.cursors.key == nil {
            throw ConfigurationError(
                code: "missing_cursor_key", key: "cursors.key",
                message: "cursors.requireKey is true: set FLOW_BFF_CURSOR_KEY (or cursors.key) to a shared secret")
        }
        if !configuration.proxy.recordDirectory.isEmpty, !configuration.proxy.isEnabled {
            throw ConfigurationError(
                code: "invalid_value", key: "proxy.recordDirectory",
                message: "recording writes what the proxy forwards: set proxy.upstream (serve --upstream URL) too")
        }
        try ConfigurationKey.checkTLS(configuration)
        return configuration
    }

    /// The configuration one file's contents give over the defaults, without reading the file system or the
    /// environment: what ``load(files:environment:flags:)`` applies per file. `scripts/fuzz` drives it with
    /// arbitrary bytes (docs/fuzzing.md).
    /// - Parameters:
    ///   - contents: the bytes of a JSON configuration file.
    ///   - source: the name errors report as their source. Default `"(memory)"`.
    public func load(contents: [UInt8], source: String = "(memory)") throws(ConfigurationError) -> BFFConfiguration {
        var configuration = BFFConfiguration()
        try apply(contents: contents, file: source, to: &configuration)
        return configuration
    }

    func apply(file: String, to configuration: inout BFFConfiguration) throws(ConfigurationError) {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigurationError(code: "missing_file", key: "", message: "cannot read the file", source: file)
        }
        try apply(contents: Array(data), file: file, to: &configuration)
    }

    func apply(contents: [UInt8], file: String, to configuration: inout BFFConfiguration) throws(ConfigurationError) {
        let json: JSONValue
        do {
            json = try JSONParser().parse(contents)
        } catch {
            throw ConfigurationError(code: "invalid_json", key: "", message: error.description, source: file)
        }
        guard case .object(let root) = json else {
            throw ConfigurationError(
                code: "invalid_value", key: "", message: "a config file is a JSON object", source: file)
        }
        try apply(object: root, prefix: "", file: file, to: &configuration)
    }

    func apply(object: JSONObject, prefix: String, file: String, to configuration: inout BFFConfiguration)
        throws(ConfigurationError)
    {
        for member in object.members where !member.key.hasPrefix("$") {
            let path = prefix.isEmpty ? member.key : prefix + "." + member.key
            if let key = ConfigurationKey.key(path) {
                do {
                    try key.apply(&configuration, member.value)
                } catch {
                    var error = error
                    error.source = file
                    throw error
                }
            } else if case .object(let nested) = member.value,
                ConfigurationKey.all.contains(where: { $0.path.hasPrefix(path + ".") })
            {
                try apply(object: nested, prefix: path, file: file, to: &configuration)
            } else {
                throw ConfigurationError(
                    code: "unknown_key", key: path,
                    message: "unknown key\(Self.suggestion(for: path, among: ConfigurationKey.all.map(\.path)))",
                    source: file)
            }
        }
    }

    func apply(text: String, to path: String, source: String, configuration: inout BFFConfiguration)
        throws(ConfigurationError)
    {
        guard let key = ConfigurationKey.key(path) else {
            throw ConfigurationError(
                code: "unknown_key", key: path,
                message: "unknown key\(Self.suggestion(for: path, among: ConfigurationKey.all.map(\.path)))",
                source: source)
        }
        let value: JSONValue
        switch key.type {
        case .string: value = .string(text)
        case .integer, .number:
            guard let number = Double(text.trimmingCharacters(in: .whitespaces)) else {
                throw ConfigurationError(
                    code: "invalid_value", key: path, message: "\"\(text)\" is not a number", source: source)
            }
            value = .number(number)
        case .boolean:
            switch text.lowercased() {
            case "true", "1", "yes", "on": value = .bool(true)
            case "false", "0", "no", "off": value = .bool(false)
            default:
                throw ConfigurationError(
                    code: "invalid_value", key: path, message: "\"\(text)\" is not a boolean", source: source)
            }
        case .stringList:
            value = .array(text.split(separator: ",").map { .string($0.trimmingCharacters(in: .whitespaces)) })
        case .object:
            do {
                value = try JSONParser().parse(Array(text.utf8))
            } catch {
                throw ConfigurationError(
                    code: "invalid_value", key: path, message: "not a JSON object: \(error.description)", source: source
                )
            }
        }
        do {
            try key.apply(&configuration, value)
        } catch {
            var error = error
            error.source = source
            throw error
        }
    }

    static func suggestion(for name: String, among candidates: [String]) -> String {
        guard let closest = NearMiss.closest(to: name, among: candidates) else { return "" }
        return " (did you mean \(closest)?)"
    }
}
