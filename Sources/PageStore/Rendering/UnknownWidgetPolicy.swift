/// What a renderer shows for a widget whose type the registry does not know.
///
/// A rendering decision only: it is never stored in ``WidgetStateStore`` (a placeholder is not user state).
public enum UnknownWidgetPolicy: Sendable, Hashable {
    /// Show a placeholder naming the type, so authors see the gap.
    case placeholder
    /// Leave the widget (and its children) out.
    case skip

    /// `.placeholder` in debug builds, `.skip` in release builds.
    public static var `default`: UnknownWidgetPolicy {
        #if DEBUG
            .placeholder
        #else
            .skip
        #endif
    }
}
