import PageModel

/// Rules that make recordings stable and safe: secrets are redacted and volatile values normalised before a
/// recorded page or action answer is written (docs/proxy.md § Recording and HAR import).
///
/// The rules apply to member values anywhere in a recorded document, never to member names, and never to the
/// values that make it a contract document: `schemaVersion`, `kind`, every `id`, `type` and `pageID`, and the
/// `name` of an `api` action.
public struct RecordingRules: Sendable, Hashable {
    /// JSON object member names whose string values are replaced by `"[redacted]"` wherever they appear,
    /// compared case-insensitively. Default: `token`, `accessToken`, `refreshToken`, `password`, `secret`,
    /// `apiKey`, `authorization`.
    public var redactedKeys: [String]
    /// Member names (case-insensitive) whose values are volatile: a string or number value is replaced by
    /// `"<normalized>"`. Default: `timestamp`, `updatedAt`, `createdAt`, `expiresAt`, `requestId`, `traceId`,
    /// `trackingId`.
    public var normalizedKeys: [String]
    /// Whether string values that are an ISO-8601 date-time (`2024-05-01T09:30:00Z`, `2024-05-01T09:30:00.123+02:00`)
    /// are replaced by `"2000-01-01T00:00:00Z"`. Default true.
    public var normalizesTimestamps: Bool
    /// Whether an `api` action or an `open_bottom_sheet` page that a recorded document names, but that nothing in
    /// the folder declares yet, gets a clearly marked stand-in (an answer with a "Not recorded" toast, a page with a
    /// "Not recorded" empty state), so the folder loads without `unknown_action_reference` /
    /// `unknown_page_reference` errors. Recording the real page or answer later replaces the stand-in. Default true.
    public var addsStandIns: Bool

    public static let defaultRedactedKeys = [
        "token", "accessToken", "refreshToken", "password", "secret", "apiKey", "authorization",
    ]
    public static let defaultNormalizedKeys = [
        "timestamp", "updatedAt", "createdAt", "expiresAt", "requestId", "traceId", "trackingId",
    ]
    /// What a redacted string becomes.
    public static let redacted = "[redacted]"
    /// What a normalised volatile value becomes.
    public static let normalized = "<normalized>"
    /// What a normalised date-time becomes.
    public static let normalizedTimestamp = "2000-01-01T00:00:00Z"

    /// - Parameters: see the properties; every default is the documented one.
    public init(
        redactedKeys: [String] = RecordingRules.defaultRedactedKeys,
        normalizedKeys: [String] = RecordingRules.defaultNormalizedKeys, normalizesTimestamps: Bool = true,
        addsStandIns: Bool = true
    ) {
        self.redactedKeys = redactedKeys
        self.normalizedKeys = normalizedKeys
        self.normalizesTimestamps = normalizesTimestamps
        self.addsStandIns = addsStandIns
    }
}
