/// The parsed command line: a subcommand, its flags (`--name value` or `--name=value`) and positional arguments.
struct CommandLineArguments {
    var command: String
    var flags: [String: String] = [:]
    var positional: [String] = []

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    /// - Parameters:
    ///   - arguments: the arguments after the executable name.
    ///   - booleanFlags: flags that take no value (`--help`, `--version`).
    init(_ arguments: [String], booleanFlags: Set<String> = ["help", "version"]) throws {
        var remaining = arguments[...]
        if let first = remaining.first, !first.hasPrefix("-") {
            command = first
            remaining = remaining.dropFirst()
        } else {
            command = "serve"
        }
        while let argument = remaining.popFirst() {
            guard argument.hasPrefix("--") else {
                if argument == "-h" {
                    flags["help"] = "true"
                } else if argument.hasPrefix("-") {
                    throw UsageError(description: "unknown option \(argument)")
                } else {
                    positional.append(argument)
                }
                continue
            }
            let body = argument.dropFirst(2)
            if let equals = body.firstIndex(of: "=") {
                flags[String(body[..<equals])] = String(body[body.index(after: equals)...])
            } else if booleanFlags.contains(String(body)) {
                flags[String(body)] = "true"
            } else {
                guard let value = remaining.popFirst() else {
                    throw UsageError(description: "\(argument) needs a value")
                }
                flags[String(body)] = value
            }
        }
    }

    /// Fails on flags outside `allowed`.
    func check(allowed: Set<String>) throws {
        for name in flags.keys.sorted() where !allowed.contains(name) {
            throw UsageError(description: "unknown option --\(name) for \(command)")
        }
    }
}
