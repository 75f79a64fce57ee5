/// The lifecycle of one request channel (document loads or pagination), as plain values.
///
/// ``PageLifecycle`` keeps one per channel; ``PageStore`` publishes each field to its own tracked storage so
/// the ``PageStatus`` lens can be read field by field.
public struct RequestStatus: Sendable, Hashable {
    /// The kind of the latest request on this channel, `nil` before the first.
    public var kind: PageRequest.Kind?
    /// True while that request is in flight.
    public var isLoading: Bool
    /// Why the latest request failed; cleared when the next one starts.
    public var error: PageLoadError?
    /// True once any request on this channel has been accepted.
    public var hasSucceeded: Bool

    public init(
        kind: PageRequest.Kind? = nil, isLoading: Bool = false, error: PageLoadError? = nil,
        hasSucceeded: Bool = false
    ) {
        self.kind = kind
        self.isLoading = isLoading
        self.error = error
        self.hasSucceeded = hasSucceeded
    }

    /// The status once `kind` has been requested.
    mutating func start(_ kind: PageRequest.Kind) {
        self.kind = kind
        isLoading = true
        error = nil
    }

    mutating func succeed() {
        isLoading = false
        error = nil
        hasSucceeded = true
    }

    mutating func fail(_ error: PageLoadError) {
        isLoading = false
        self.error = error
    }

    mutating func cancel() {
        isLoading = false
    }
}
