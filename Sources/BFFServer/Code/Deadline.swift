import HTTPCore
import PageModel
import Synchronization

/// Runs an application's Swift code (a page provider, an action handler) under its timeout: past it, a 504 problem
/// with `timeoutCode` naming `subject` ("The page provider for \"cart\""). `count` is told the code of a failure
/// (a problem's code, `internal_error` for anything else), for the per-page or per-action outcome metrics.
func runUnderDeadline<Value: Sendable>(
    _ subject: String, timeout: Duration, timeoutCode: ProblemCode, count: (String) -> Void,
    _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    do {
        return try await withDeadline(
            timeout,
            onTimeout: {
                ProblemDetails(
                    timeoutCode, detail: "\(subject) did not answer within \(timeout.seconds) s.")
            }, body)
    } catch let error as PageProviderError {
        count(error.code)
        throw error
    } catch let error as ProblemDetails {
        count(error.code)
        throw error
    } catch {
        count(ProblemCode.internalError.rawValue)
        throw error
    }
}

/// Runs `body` but returns at `timeout` at the latest: the work is cancelled then and its result ignored, so a
/// provider or upstream that ignores cancellation cannot hold a response past its deadline.
func withDeadline<Value: Sendable>(
    _ timeout: Duration, onTimeout: @escaping @Sendable () -> any Error,
    _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let once = ResumeOnce<Value>()
    let work = Mutex<Task<Void, Never>?>(nil)
    return try await withCheckedThrowingContinuation { continuation in
        once.set(continuation)
        // On the deadline thread, not a sleeping task: no task and no Dispatch timer per call.
        let deadline = DeadlineTimer.shared.schedule(after: timeout) {
            if once.resume(.failure(onTimeout())) { work.withLock { $0 }?.cancel() }
        }
        // On the caller's event loop when there is one (HTTPReply.task), so the work costs no thread hop.
        let task = Task(executorPreference: HTTPServer.currentTaskExecutor) {
            do { once.resume(.success(try await body())) } catch { once.resume(.failure(error)) }
            deadline.cancel()
        }
        work.withLock { $0 = task }
    }
}

/// A continuation resumed by whichever side finishes first.
final class ResumeOnce<Value: Sendable>: Sendable {
    private let state = Mutex<
        (continuation: CheckedContinuation<Value, any Error>?, pending: Result<Value, any Error>?)
    >(
        (nil, nil))

    func set(_ continuation: CheckedContinuation<Value, any Error>) {
        let early = state.withLock { state -> Result<Value, any Error>? in
            if let pending = state.pending { return pending }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// Resumes with `result` unless already resumed; true when this call won.
    @discardableResult
    func resume(_ result: Result<Value, any Error>) -> Bool {
        let (continuation, won) = state.withLock { state -> (CheckedContinuation<Value, any Error>?, Bool) in
            if let continuation = state.continuation {
                state.continuation = nil
                state.pending = result  // marks done
                return (continuation, true)
            }
            if state.pending != nil { return (nil, false) }
            state.pending = result
            return (nil, true)
        }
        continuation?.resume(with: result)
        return won
    }
}
