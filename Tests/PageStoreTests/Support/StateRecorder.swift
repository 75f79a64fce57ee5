import PageStore

/// Records every state a ``PageStore`` publishes, starting with the state it has when attached, so tests can
/// compare the whole sequence.
@MainActor
final class StateRecorder {
    private(set) var states: [PageState]

    init(_ store: PageStore) {
        states = [store.peek(\.state)]
        store.stateDidChange = { [weak self] state in self?.states.append(state) }
    }
}
