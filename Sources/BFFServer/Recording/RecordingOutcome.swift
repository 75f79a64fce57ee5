/// What one recording did to the folder.
public struct RecordingOutcome: Sendable, Hashable {
    /// Files whose bytes changed (created or rewritten), relative to the folder, sorted.
    public var written: [String] = []
    /// Files the recording produced with exactly the bytes already on disk (left untouched), sorted.
    public var unchanged: [String] = []
    /// Why nothing was recorded, when nothing was (an action no recorded page fires, …).
    public var skipped: String?
    /// Remarks about what was recorded: an incomplete chunk chain, stand-ins added, a variant added.
    public var notes: [String] = []

    public init(written: [String] = [], unchanged: [String] = [], skipped: String? = nil, notes: [String] = []) {
        self.written = written
        self.unchanged = unchanged
        self.skipped = skipped
        self.notes = notes
    }

    /// Every file the recording produced, written or unchanged, sorted.
    public var files: [String] { (written + unchanged).sorted() }
}
