import Observation

/// One request channel's status, each field tracked on its own; the storage behind ``PageStatus``.
@Observable
@MainActor
final class RequestStatusStorage {
    private(set) var kind: PageRequest.Kind?
    private(set) var isLoading = false
    private(set) var error: PageLoadError?
    private(set) var hasSucceeded = false

    /// The fields read from storage, registering no Observation access.
    var untracked: RequestStatus {
        RequestStatus(kind: _kind, isLoading: _isLoading, error: _error, hasSucceeded: _hasSucceeded)
    }

    /// Assigns the fields that differ from `status`, so unchanged fields invalidate no reader.
    func publish(_ status: RequestStatus) {
        if _kind != status.kind { kind = status.kind }
        if _isLoading != status.isLoading { isLoading = status.isLoading }
        if _error != status.error { error = status.error }
        if _hasSucceeded != status.hasSucceeded { hasSucceeded = status.hasSucceeded }
    }
}
