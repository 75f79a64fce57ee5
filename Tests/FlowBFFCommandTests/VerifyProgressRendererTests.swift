import ContractVerifier
import Synchronization
import Testing

@testable import flow_bff

/// `verify --progress`: what each style writes for the crawl's progress events.
@MainActor @Suite struct VerifyProgressRendererTests {
    /// Collects what a renderer writes.
    final class Output: Sendable {
        private let text = Mutex("")
        func append(_ more: String) { text.withLock { $0 += more } }
        var value: String { text.withLock { $0 } }
    }

    static func events() -> [VerifierProgress] {
        [
            VerifierProgress(event: .pageStarted, pagesDone: 0, pagesQueued: 1, violations: 0, page: "home"),
            VerifierProgress(event: .pageFinished, pagesDone: 1, pagesQueued: 3, violations: 0, page: "home"),
            VerifierProgress(event: .pageStarted, pagesDone: 1, pagesQueued: 3, violations: 0, page: "feed"),
            VerifierProgress(event: .chunks, pagesDone: 1, pagesQueued: 3, violations: 1, page: "feed", chunks: 100),
            VerifierProgress(event: .pageFinished, pagesDone: 3, pagesQueued: 3, violations: 1, page: "cart"),
        ]
    }

    func render(_ mode: VerifyProgressRenderer.Mode, terminal: Bool, interval: Duration = .zero) -> String {
        let output = Output()
        let renderer = VerifyProgressRenderer(
            mode: mode, isTerminal: terminal, interval: interval, write: { output.append($0) })
        for event in Self.events() { renderer.show(event) }
        renderer.finish()
        return output.value
    }

    @Test func linesWriteFinishedPagesAndLongPagesThenTheLastState() {
        let text = render(.lines, terminal: false)
        #expect(
            text.split(separator: "\n") == [
                "verify: 1/3 pages, 0 violations, home",
                "verify: 1/3 pages, 1 violations, feed (100 chunks)",
                "verify: 3/3 pages, 1 violations",
                "verify: 3/3 pages, 1 violations (done)",
            ])
        #expect(!text.contains("\r"))
    }

    @Test func linesAreThrottled() {
        let text = render(.lines, terminal: false, interval: .seconds(3600))
        #expect(
            text.split(separator: "\n") == [
                "verify: 1/3 pages, 0 violations, home", "verify: 3/3 pages, 1 violations (done)",
            ])
    }

    @Test func autoIsALiveLineOnATerminalThatIsClearedAtTheEnd() {
        let text = render(.auto, terminal: true)
        #expect(text.hasPrefix("\rverify: 0/1 pages, 0 violations, home"))
        #expect(text.contains("\rverify: 1/3 pages, 1 violations, feed (100 chunks)"))
        #expect(!text.contains("\n"))
        #expect(text.hasSuffix("\r"))
        #expect(render(.auto, terminal: false) == render(.lines, terminal: false))
    }

    @Test func offWritesNothing() {
        #expect(render(.off, terminal: true).isEmpty)
        #expect(render(.off, terminal: false).isEmpty)
    }
}

/// The progress line counts the action requests sent (issue 32), once there are some.
@Suite struct VerifierProgressLineTests {
    @Test func actionsAreCountedOnceThereAreSome() {
        var progress = VerifierProgress(event: .pageFinished, pagesDone: 2, pagesQueued: 5, violations: 1, page: "cart")
        #expect(progress.line == "verify: 2/5 pages, 1 violations, cart")
        progress.actionRequests = 12
        #expect(progress.line == "verify: 2/5 pages, 12 action requests, 1 violations, cart")
    }
}
