#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The loop as a Swift task executor: a task started with the loop as its executor preference
/// (``HTTPReply/task(_:)``, or `Task(executorPreference: HTTPServer.currentTaskExecutor)`) runs on the loop thread
/// between events, and so do its child tasks and every continuation resumed for it — a socket event, an upstream
/// answer or a promise completed on the loop hands work on with no lock, no wake-up and no thread hop. Jobs
/// enqueued from other threads go through the inbox like ``execute(_:)``; after the loop has stopped they run in
/// the global executor instead, so no task is ever stranded.
extension EventLoop: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if isCurrent {
            localJobs.append(job)
            return
        }
        let (accepted, wake) = acceptJob(job)
        if !accepted {
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        } else if wake {
            self.wake()
        }
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Runs one job on this loop (the loop thread only).
    func run(_ job: UnownedJob) {
        job.runSynchronously(on: asUnownedTaskExecutor())
    }

    /// Whether work was handed over on the loop and waits for the end of the current event.
    var hasLocalWork: Bool { !localJobs.isEmpty || !localTasks.isEmpty }

    /// Runs the work handed over on the loop so far. Work it hands over in turn waits for the next round (the
    /// poller then does not wait), so a task that keeps yielding cannot starve the sockets.
    func runLocalWork() {
        let tasks = localTasks
        let jobs = localJobs
        localTasks = []
        localJobs = []
        for task in tasks { task() }
        for job in jobs { run(job) }
    }

    // MARK: The current loop

    /// Whether this thread is running this loop right now.
    var isCurrent: Bool { CurrentEventLoop.get() === self }

    /// The loop this thread is running, if any.
    static var current: EventLoop? { CurrentEventLoop.get() }

    /// Marks this thread as running `loop` (the epoll thread once, Dispatch around each event), or none.
    static func setCurrent(_ loop: EventLoop?) { CurrentEventLoop.set(loop) }
}

extension HTTPServer {
    /// The task executor of the event loop running on this thread, or `nil` off the loops. A task started with
    /// `Task(executorPreference: HTTPServer.currentTaskExecutor)` from code that runs on a loop (a responder, or a
    /// task of ``HTTPReply/task(_:)``) continues on that loop instead of hopping to the global executor.
    public static var currentTaskExecutor: (any TaskExecutor)? { CurrentEventLoop.get() }
}

/// The loop a thread runs, in a pthread key (no Swift `thread_local`): one `pthread_getspecific` per question.
private enum CurrentEventLoop {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, nil)
        precondition(result == 0, "pthread_key_create failed: \(result)")
        return key
    }()

    static func get() -> EventLoop? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<EventLoop>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Unretained: the thread's runner holds the loop while it is set.
    static func set(_ loop: EventLoop?) {
        _ = pthread_setspecific(key, loop.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
    }
}
