import Dispatch
import Foundation
import PageModel
import Synchronization

/// What the reloads of the pages directory found, for the log and `GET /__admin/status`.
final class ReloadState: Sendable {
    struct Status: Sendable {
        var count = 0
        /// Unix time of the last reload (or of the start).
        var lastAt = Date().timeIntervalSince1970
        /// Diagnostics of the last load, errors and warnings.
        var diagnostics: [FileDiagnostic] = []
        /// Files whose last good version is served because the current one has errors.
        var kept: [String] = []
        /// `inotify+poll`, `poll` or `off`.
        var watcher = "off"
    }

    let status = Mutex(Status())
    /// The browser preview's live-reload streams, told of every reload.
    let events = ReloadEvents()
    /// Serialises reloads (watcher, admin API, deletion confirmations).
    let lock = Mutex(())
    /// Runs deletion confirmations after their grace period.
    let queue = DispatchQueue(label: "flow-bff.reload")

    /// Records the catalog the server started with.
    func loaded(_ catalog: PageCatalog) {
        status.withLock { $0.diagnostics = catalog.diagnostics }
    }
}

extension BFFApplication {
    /// Reloads the pages directory: pages and scenarios whose file now has an error keep their last good
    /// version; the new catalog replaces the old one atomically. Incremental: only files whose bytes changed are
    /// decoded and checked again, and unchanged pages keep their prepared first-load bodies. Errors are logged and
    /// kept for `GET /__admin/status`. A deleted page file keeps being served for a grace period (twice the
    /// debounce, at least 250 ms) and is dropped by a confirming reload, so editors that save by
    /// delete-and-recreate never cause a 404.
    @discardableResult
    public func reloadPages() -> PageCatalog { reloadPages(confirmingDeletes: false) }

    @discardableResult
    func reloadPages(confirmingDeletes: Bool) -> PageCatalog {
        reload.lock.withLock { _ in
            let started = DispatchTime.now().uptimeNanoseconds
            let fresh = PageCatalog.load(
                directory: configuration.pages.directory, defaults: configuration.pages, reusing: catalog,
                dataOverrides: mock?.stubs.globalData ?? [:])
            let merge = fresh.keepingLastGood(from: catalog, keepingDeleted: !confirmingDeletes)
            // The catalog is swapped under the status lock: whoever sees the new pages and then reads the
            // status sees this reload's diagnostics, never the previous one's.
            let count = reload.status.withLock { status in
                replaceCatalog(merge.catalog)
                status.count += 1
                status.lastAt = Date().timeIntervalSince1970
                status.diagnostics = fresh.diagnostics
                status.kept = merge.kept
                return status.count
            }
            reload.events.publish(count: count)
            // Errors every time (the file is still not served); warnings once, from the reload that read the file,
            // so saving one page does not repeat every other page's warnings.
            let decoded = Set(fresh.sources.decoded)
            for finding in fresh.diagnostics
            where finding.diagnostic.severity == .error
                || (finding.diagnostic.severity == .warning && decoded.contains(finding.file))
            {
                let diagnostic = finding.diagnostic
                let line = finding.position.map { JSONValue.number(Double($0.line)) } ?? .null
                let column = finding.position.map { JSONValue.number(Double($0.column)) } ?? .null
                let fields: KeyValuePairs<String, JSONValue> = [
                    "file": .string(finding.file), "line": line, "column": column,
                    "path": .string(diagnostic.path.string), "code": .string(diagnostic.code),
                    "detail": .string(diagnostic.message),
                ]
                guard diagnostic.severity == .error else {
                    log.warning("reload: served", fields)
                    continue
                }
                log.error(
                    "reload: \(merge.kept.contains(finding.file) ? "serving the last good version" : "not served")",
                    fields)
            }
            log.info(
                "pages reloaded",
                [
                    "pages": .number(Double(merge.catalog.pages.count)),
                    "errors": .number(Double(fresh.diagnostics.errorCount)),
                    "keptLastGood": .number(Double(merge.kept.count)),
                    "pendingDeletion": .number(Double(merge.pendingDeletion.count)),
                    "catalogVersion": .string(merge.catalog.version),
                    "decoded": .number(Double(fresh.sources.decoded.count)),
                    "ms": .number(Double((DispatchTime.now().uptimeNanoseconds - started) / 1_000_000)),
                ])
            if !merge.pendingDeletion.isEmpty {
                let grace = max(2 * configuration.mock.debounceMs, 250)
                reload.queue.asyncAfter(deadline: .now() + .milliseconds(grace)) { [weak self] in
                    self?.reloadPages(confirmingDeletes: true)
                }
            }
            return merge.catalog
        }
    }

    /// A watcher that reloads the pages on change, per `mock.watch` (the development loop); `nil` without mock
    /// mode or with `off`.
    func makePageWatcher() -> PageWatcher? {
        guard configuration.mock.enabled, configuration.mock.watch != .off else { return nil }
        return PageWatcher(
            directory: configuration.pages.directory, useInotify: configuration.mock.watch == .auto,
            pollIntervalMs: configuration.mock.pollIntervalMs, debounceMs: configuration.mock.debounceMs
        ) { [weak self] in self?.reloadPages() }
    }

    /// Records how the pages are watched (`inotify+poll`, `poll`) for `GET /__admin/status`.
    func watcherStarted(_ mode: String) {
        reload.status.withLock { $0.watcher = mode }
    }
}
