import ContractVerifier
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `verify --progress`: renders ``VerifierProgress`` on standard error, so standard output keeps only the
/// summary. `lines` writes a line when a page target is done or a long page advances, at most one every
/// ``interval`` (CI logs stay short), plus a last line; `live` rewrites one `\r` line (a terminal); `off` writes
/// nothing. `auto` is `live` when standard error is a terminal, else `lines`.
@MainActor
final class VerifyProgressRenderer {
    enum Mode: String, Sendable {
        case auto, lines, off
    }

    enum Style {
        case live, lines, off
    }

    let style: Style
    /// The least time between two lines in `lines` style. Default 2 s.
    let interval: Duration
    private let write: (String) -> Void
    private var lastLine: ContinuousClock.Instant?
    private var latest: VerifierProgress?
    private var liveWidth = 0

    init(
        mode: Mode, isTerminal: Bool = isatty(STDERR_FILENO) == 1, interval: Duration = .seconds(2),
        write: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
    ) {
        switch mode {
        case .off: style = .off
        case .lines: style = .lines
        case .auto: style = isTerminal ? .live : .lines
        }
        self.interval = interval
        self.write = write
    }

    func show(_ progress: VerifierProgress) {
        latest = progress
        switch style {
        case .off:
            return
        case .live:
            let line = progress.line
            let padding = String(repeating: " ", count: max(0, liveWidth - line.count))
            liveWidth = line.count
            write("\r" + line + padding)
        case .lines:
            guard progress.event != .pageStarted else { return }
            let now = ContinuousClock.now
            if let lastLine, now - lastLine < interval { return }
            lastLine = now
            write(progress.line + "\n")
        }
    }

    /// Ends the output: clears the live line, or writes the last state as a line.
    func finish() {
        switch style {
        case .off:
            return
        case .live:
            if liveWidth > 0 { write("\r" + String(repeating: " ", count: liveWidth) + "\r") }
        case .lines:
            if let latest { write(latest.line + " (done)\n") }
        }
    }
}
