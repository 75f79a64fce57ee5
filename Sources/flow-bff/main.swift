// flow-bff: thin command line over BFFServer. Parses arguments, loads configuration, calls the library.
import BFFRedis
import BFFServer
import Foundation
import HTTPCore
import PageModel

let version = BuildInfo.version

let usage = """
    flow-bff \(version) — a backend-for-frontend for server-driven UI

    USAGE
      flow-bff [serve] [DIR] [--pages DIR] [--config FILE] [--host HOST] [--port PORT] [--preview true|false]
                       [--event-loop epoll|dispatch] [--dev] [--tls | --tls-port PORT]
      flow-bff cert [--ca-dir DIR] [--hosts NAME,…]
      flow-bff check [DIR | FILE…] [--pages DIR] [--config FILE] [--strict]
      flow-bff verify (--url URL | --pages DIR) [options]
      flow-bff import har FILE --pages DIR [--redact KEY]… [--no-normalize] [--no-stand-ins]
      flow-bff COMMAND --help | flow-bff --help | --version

    COMMANDS
      serve   Serve the pages in DIR (default: pages/ with config/default.json when present).
              Prints the URL of every page and action, and of the browser preview (/__preview,
              on in mock mode). SIGTERM or Ctrl-C shuts down gracefully.
      check   Lint a pages directory or single page files offline with the server's rules. Prints
              every finding as FILE:LINE:COLUMN: JSON-path: severity: code: message (docs/check.md).
              Exit status 1 when there is an error (with --strict, also a warning).
      verify  Crawl a server like a device (the embedded PageStore) and report every contract
              violation; JUnit and JSON reports for CI.
      cert    Make this machine's development CA (once) and an HTTPS certificate for localhost,
              the emulator and the LAN addresses; print where they are and how a device trusts
              the CA (docs/mock.md, "HTTPS for devices").
      import  Record the contract answers of a HAR capture (pages with all their chunks, action
              answers) as page files in DIR, redacted and normalised (docs/proxy.md).

    CONFIGURATION
      Files (--config, default config/default.json), then FLOW_BFF_* environment variables,
      then flags. Every key is listed in config/README.md.

    EXIT STATUS
      0 success, 1 errors in pages, 2 usage, configuration or address error.
    """

func fail(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("flow-bff: \(message)\n".utf8))
    exit(status)
}

/// The configuration from files, environment and flags; `pages` (a positional DIR) stands in for `--pages`.
func loadConfiguration(_ arguments: CommandLineArguments, pages: String? = nil) -> BFFConfiguration {
    var files: [String] = []
    if let file = arguments.flags["config"] {
        files.append(file)
    } else if FileManager.default.fileExists(atPath: "config/default.json") {
        files.append("config/default.json")
    }
    var flags: [String: String] = [:]
    if let pages = arguments.flags["pages"] ?? pages { flags["pages.directory"] = pages }
    if let host = arguments.flags["host"] { flags["server.host"] = host }
    if let port = arguments.flags["port"] { flags["server.port"] = port }
    if let preview = arguments.flags["preview"] { flags["preview.enabled"] = preview }
    if let eventLoop = arguments.flags["event-loop"] { flags["server.eventLoop"] = eventLoop }
    if let format = arguments.flags["log-format"] { flags["logging.format"] = format }
    if arguments.flags["dev"] != nil { flags["mock.enabled"] = "true" }
    if let upstream = arguments.flags["upstream"] { flags["proxy.upstream"] = upstream }
    if let record = arguments.flags["record"] { flags["proxy.recordDirectory"] = record }
    if arguments.flags["tls"] != nil { flags["tls.port"] = "8443" }
    if let port = arguments.flags["tls-port"] { flags["tls.port"] = port }
    if let file = arguments.flags["tls-cert"] { flags["tls.certificateFile"] = file }
    if let file = arguments.flags["tls-key"] { flags["tls.keyFile"] = file }
    if let directory = arguments.flags["ca-dir"] { flags["tls.caDirectory"] = directory }
    do {
        return try ConfigurationLoader().load(
            files: files, environment: ProcessInfo.processInfo.environment, flags: flags)
    } catch {
        fail("configuration: \(error)")
    }
}

/// Prints findings, errors to standard error and the rest to standard output; `directory` prefixes file names.
func printDiagnostics(_ diagnostics: [FileDiagnostic], in directory: String? = nil) {
    for finding in diagnostics {
        let line = finding.located(in: directory) + "\n"
        if finding.diagnostic.severity == .error {
            FileHandle.standardError.write(Data(line.utf8))
        } else {
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }
}

/// `3 errors`, `1 error`.
func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}

func serve(_ arguments: CommandLineArguments) -> Never {
    var configuration = loadConfiguration(arguments, pages: arguments.positional.first)
    // `--dev`: requests through a container's port mapping or from a phone do not come from loopback, so the admin
    // API needs a token; one is made for this process unless the configuration has one.
    let generatedAdminToken = arguments.flags["dev"] != nil && configuration.mock.adminToken == nil
    if generatedAdminToken { configuration.mock.adminToken = BFFConfiguration.Mock.randomAdminToken() }
    let log = StandardOutputLogSink()
    let terminal = isatty(1) == 1
    let sink: any BFFLogSink
    // `auto` is human only for a developer: mock mode on a terminal. A production container started with a TTY
    // (`docker run -t`, `tty: true`) keeps the JSON lines its log collector reads.
    switch (configuration.logging.format, terminal && configuration.mock.enabled) {
    case (.human, _), (.auto, true):
        let environment = ProcessInfo.processInfo.environment
        let color = terminal && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
        sink = HumanLogSink(base: log, color: color, directory: configuration.pages.directory)
    default:
        sink = log
    }
    let catalog = PageCatalog.load(directory: configuration.pages.directory, defaults: configuration.pages)
    Platform.releaseFreeMemory()  // the load's intermediates, freed on this thread (VerifyCommand.swift)
    printDiagnostics(catalog.diagnostics, in: configuration.pages.directory)
    let service: BFFService
    do {
        service = try makeServer(
            configuration: configuration, catalog: catalog, log: sink,
            idempotencyStore: RedisIdempotencyStore.configured(by: configuration))
        try service.start()
    } catch let error as CatalogError {
        fail(
            "not serving: \(counted(error.diagnostics.errorCount, "error")) in \(configuration.pages.directory) (listed above)",
            status: 1)
    } catch {
        fail("cannot start: \(error)")
    }
    let base = service.baseURL
    log.write("flow-bff \(version) serving \(configuration.pages.directory) on \(base)")
    if configuration.cursors.key == nil {
        log.write(
            "cursor key: random for this process (set FLOW_BFF_CURSOR_KEY to share cursors across restarts and replicas)"
        )
    }
    log.write("pages:")
    for id in catalog.pageIDs { log.write("  GET  \(base)\(ContractRoute.page.path(["pageID": id]))") }
    log.write("actions:")
    for name in catalog.actions.keys.sorted() {
        log.write("  POST \(base)\(ContractRoute.action.path(["name": name]))")
    }
    if let operations = service.operationsURL {
        log.write("also: \(base)/healthz  \(base)/readyz  \(base)/openapi.json")
        log.write("operations: \(operations)/healthz  \(operations)/readyz  \(operations)/metrics  (server.adminPort)")
    } else {
        log.write("also: \(base)/healthz  \(base)/readyz  \(base)/metrics  \(base)/openapi.json")
    }
    if configuration.proxy.isEnabled {
        let recording =
            configuration.proxy.recordDirectory.isEmpty ? "" : "; recording to \(configuration.proxy.recordDirectory)"
        log.write(
            "proxy: everything else under \(configuration.proxy.include.joined(separator: ", ")) goes to \(configuration.proxy.upstream)\(recording) (docs/proxy.md)"
        )
    }
    for line in DeviceURLs.lines(host: configuration.server.host, port: service.port) { log.write(line) }
    if let secure = service.tlsURL, let tlsServer = service.tlsServer {
        log.write("https: \(secure)  (tls.port; the same pages and actions)")
        for line in DeviceURLs.lines(host: configuration.server.host, port: tlsServer.port, scheme: "https") {
            log.write(line)
        }
        if let authority = service.developmentCA {
            for line in CertCommand.banner(authority, directory: configuration.tls.caDirectory) { log.write(line) }
        } else {
            log.write("  certificate: \(configuration.tls.certificateFile) (re-read when it changes)")
        }
    }
    for line in MockBanner.lines(configuration: configuration, baseURL: base) { log.write(line) }
    if generatedAdminToken, let token = configuration.mock.adminToken {
        log.write(
            "  admin token (this process; set FLOW_BFF_MOCK_ADMIN_TOKEN to keep one): Authorization: Bearer \(token)")
    }
    if configuration.servesPreview {
        let local = base.replacingOccurrences(of: "://0.0.0.0:", with: "://127.0.0.1:")
            .replacingOccurrences(of: "://[::]:", with: "://[::1]:")
        log.write("preview: \(local)/__preview  (the pages in a browser, docs/preview.md)")
    }
    log.flush()
    service.installSignalHandlers()  // SIGTERM, SIGINT: not ready, grace period, drain (docs/operations.md)
    service.waitUntilStopped()
    Logger(sink: sink).info("stopped")
    log.flush()
    exit(0)
}

// verify parses its own options (repeatable --page, --report KIND FILE): dispatch before the generic parser.
if CommandLine.arguments.dropFirst().first == "verify" { verify(Array(CommandLine.arguments.dropFirst(2))) }
// import collects its repeatable --redact before the generic parser (ImportCommand.swift).
if CommandLine.arguments.dropFirst().first == "import" {
    importCommand(Array(CommandLine.arguments.dropFirst(2)))
}

do {
    let arguments = try CommandLineArguments(
        Array(CommandLine.arguments.dropFirst()), booleanFlags: ["help", "version", "strict", "dev", "tls"])
    let namesCommand = !(CommandLine.arguments.dropFirst().first ?? "-").hasPrefix("-")
    if arguments.flags["version"] != nil {
        print("flow-bff \(version) (\(BuildInfo.commit))")
        exit(0)
    }
    if arguments.command == "help" || (arguments.flags["help"] != nil && !namesCommand) {
        print(usage)
        exit(0)
    }
    let spec: CommandSpec
    switch arguments.command {
    case "serve": spec = .serve
    case "check": spec = .check
    case "cert": spec = .cert
    default: fail("unknown command \"\(arguments.command)\"; see flow-bff --help")
    }
    if arguments.flags["help"] != nil {
        print(spec.help)
        exit(0)
    }
    do {
        try spec.check(arguments)
    } catch {
        fail("\(error); see flow-bff \(spec.name) --help")
    }
    switch spec.name {
    case "serve": serve(arguments)
    case "cert": certCommand(arguments)
    default: check(arguments)
    }
} catch {
    fail("\(error); see flow-bff --help")
}
