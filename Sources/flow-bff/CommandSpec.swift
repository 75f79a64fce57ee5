import Foundation

/// One subcommand's interface: the options it accepts, how many positional arguments it takes, and the help text
/// `flow-bff COMMAND --help` prints. `verify` parses its own options (VerifyCommand.swift) and keeps its usage there.
struct CommandSpec {
    var name: String
    /// Option names without `--`, each with its value placeholder (empty for none) and a one-line meaning.
    var options: [(name: String, value: String, meaning: String)]
    /// What the positional arguments are, e.g. `[DIR]`; empty when the command takes none.
    var positionalUsage: String
    /// The most positional arguments accepted; more are a usage error (exit 2).
    var maximumPositional: Int
    var summary: String
    /// The EXIT STATUS section, one entry per line.
    var exitStatus: [String]

    /// The option names, for ``CommandLineArguments/check(allowed:)``.
    var optionNames: Set<String> { Set(options.map(\.name)) }

    /// Fails on options this command does not take and on extra positional arguments.
    func check(_ arguments: CommandLineArguments) throws {
        try arguments.check(allowed: optionNames.union(["help"]))
        if arguments.positional.count > maximumPositional {
            let extra = arguments.positional.dropFirst(maximumPositional).joined(separator: " ")
            throw CommandLineArguments.UsageError(
                description: maximumPositional == 0
                    ? "\(name) takes no arguments, found \(extra)"
                    : "\(name) takes at most \(maximumPositional) argument, found also \(extra)")
        }
    }

    /// The text `flow-bff NAME --help` prints.
    var help: String {
        let width = options.map { $0.name.count + ($0.value.isEmpty ? 0 : $0.value.count + 1) }.max() ?? 0
        var lines = ["flow-bff \(name) — \(summary)", "", "USAGE"]
        lines.append("  flow-bff \(name) \(positionalUsage.isEmpty ? "" : positionalUsage + " ")[options]")
        lines += ["", "OPTIONS"]
        for option in options {
            let flag = "--\(option.name)" + (option.value.isEmpty ? "" : " \(option.value)")
            lines.append("  " + flag.padding(toLength: width + 4, withPad: " ", startingAt: 0) + option.meaning)
        }
        lines.append("  " + "--help".padding(toLength: width + 4, withPad: " ", startingAt: 0) + "this text")
        lines += ["", "EXIT STATUS"] + exitStatus.map { "  " + $0 }
        return lines.joined(separator: "\n")
    }

    static let serve = CommandSpec(
        name: "serve",
        options: [
            ("pages", "DIR", "the pages directory (default: pages, or the configuration's pages.directory)"),
            ("config", "FILE", "configuration file (default config/default.json when present)"),
            ("host", "HOST", "address to bind, e.g. 0.0.0.0 for the simulator and devices (default 127.0.0.1)"),
            ("port", "PORT", "TCP port, 0 for a free one (default 8080)"),
            ("preview", "true|false", "the browser preview at /__preview (default: on in mock mode)"),
            (
                "dev", "",
                "mock backend for app developers: mock mode on, and the admin API opened to other hosts (a container's port mapping, a phone) with a token printed at start (docs/platforms.md)"
            ),
            (
                "event-loop", "epoll|dispatch",
                "epoll (Linux's fast path) or dispatch (portable); default epoll on Linux"
            ),
            (
                "log-format", "auto|json|human",
                "human: compact lines, findings as file:line:column; json: one object per line; auto (default): human on a terminal"
            ),
            (
                "upstream", "URL",
                "proxy to a real backend: page, next-page and action requests without a local file go to URL (docs/proxy.md)"
            ),
            ("record", "DIR", "with --upstream: write each forwarded page and action answer as page files in DIR"),
            ("tls", "", "also serve HTTPS on port 8443 (with --dev: a certificate from this machine's development CA)"),
            ("tls-port", "PORT", "also serve HTTPS on PORT, 0 for a free one (tls.port)"),
            ("tls-cert", "FILE", "PEM certificate and chain for HTTPS, re-read when it changes (tls.certificateFile)"),
            ("tls-key", "FILE", "PEM private key of --tls-cert (tls.keyFile)"),
            ("ca-dir", "DIR", "where the development CA lives (tls.caDirectory; default per user, printed)"),
        ],
        positionalUsage: "[DIR]", maximumPositional: 1,
        summary: "serve the page files in DIR (the same as --pages DIR)",
        exitStatus: [
            "0 after a graceful shutdown (SIGTERM, Ctrl-C), 1 errors in the pages,",
            "2 usage, configuration or address error (e.g. the port is already in use).",
        ])

    static let check = CommandSpec(
        name: "check",
        options: [
            ("pages", "DIR", "the pages directory when no DIR or FILE is given (default: pages)"),
            ("config", "FILE", "configuration file: custom widget and action types (default config/default.json)"),
            ("strict", "", "warnings are errors too (exit 1 on any warning)"),
        ],
        positionalUsage: "[DIR | FILE…]", maximumPositional: .max,
        summary: "lint page files offline with the server's rules (docs/check.md)",
        exitStatus: [
            "0 no error, 1 errors in the pages (with --strict: or warnings), 2 usage or configuration error.",
            "Every finding is printed as FILE:LINE:COLUMN: JSON-path: severity: code: message.",
        ])

    static let cert = CommandSpec(
        name: "cert",
        options: [
            (
                "ca-dir", "DIR",
                "where the CA lives (tls.caDirectory; default $XDG_DATA_HOME/flow-bff/ca or ~/.local/share/flow-bff/ca)"
            ),
            ("hosts", "NAME,…", "more DNS names for the certificate, beside localhost"),
            ("config", "FILE", "configuration file (tls.caDirectory; default config/default.json)"),
        ],
        positionalUsage: "", maximumPositional: 0,
        summary: "make the development CA and an HTTPS certificate for this machine (docs/mock.md)",
        exitStatus: ["0 the CA and certificate are in place, 2 usage error or a file that cannot be written."])

    /// `import har` parses `--redact` itself (repeatable) before these are checked (ImportCommand.swift).
    static let importHAR = CommandSpec(
        name: "import",
        options: [
            ("pages", "DIR", "the folder of page files to write (created when missing; required)"),
            ("redact", "KEY", "also redact string values of members named KEY (repeatable; docs/proxy.md)"),
            ("no-normalize", "", "keep volatile values (timestamps, request ids) as captured"),
            ("no-stand-ins", "", "add no stand-ins for pages and actions the capture names but does not hold"),
            ("config", "FILE", "configuration file: custom widget and action types (default config/default.json)"),
        ],
        positionalUsage: "har FILE", maximumPositional: 2,
        summary: "record the contract answers of a HAR capture as page files (docs/proxy.md)",
        exitStatus: [
            "0 something was imported and nothing failed, 1 an entry could not be imported because it is invalid,",
            "nothing was imported, or FILE is unreadable or not HAR; 2 usage or configuration error.",
        ])
}
