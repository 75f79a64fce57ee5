import Synchronization

extension HTTPClient {
    /// At most `limit` transfers of the requests carrying this limit run at once; the others wait, in order, on the
    /// client's loop (no task is parked on a lock or an actor). Share one limit between the requests to one
    /// upstream.
    public final class ConcurrencyLimit: Sendable {
        struct State {
            var running = 0
            var waiting: [ClientTransfer] = []
            var head = 0
        }

        public let limit: Int
        let state = Mutex(State())

        public init(_ limit: Int) {
            self.limit = max(1, limit)
        }

        /// Takes a slot for `transfer`, or queues it and answers `false`.
        func admit(_ transfer: ClientTransfer) -> Bool {
            state.withLock { state in
                if state.running < limit {
                    state.running += 1
                    return true
                }
                state.waiting.append(transfer)
                return false
            }
        }

        /// Gives a slot back and hands it to the next waiting transfer, if any (which then holds it).
        func release() -> ClientTransfer? {
            state.withLock { state in
                guard state.head < state.waiting.count else {
                    state.running -= 1
                    return nil
                }
                let next = state.waiting[state.head]
                state.head += 1
                if state.head == state.waiting.count {
                    state.waiting.removeAll(keepingCapacity: true)
                    state.head = 0
                } else if state.head > 64, state.head * 2 > state.waiting.count {
                    state.waiting.removeFirst(state.head)
                    state.head = 0
                }
                return next
            }
        }

        /// Takes `transfer` out of the queue; `false` when it is not waiting (it started already).
        func withdraw(_ transfer: ClientTransfer) -> Bool {
            state.withLock { state in
                guard let index = state.waiting[state.head...].firstIndex(where: { $0 === transfer }) else {
                    return false
                }
                state.waiting.remove(at: index)
                return true
            }
        }
    }
}
