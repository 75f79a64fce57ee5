import Foundation
import HTTPCore

/// The fields every HTML answer carries (the preview's pages, the mock's `/` index), and `nosniff` on the preview's
/// scripts and style sheets (docs/preview.md § Browser hardening). Neither page has an inline script or style
/// attribute: the preview loads its script and CSS from `/__preview/…`, and the index's one `<style>` element is
/// allowed by its SHA-256, so no policy needs `'unsafe-inline'`.
enum BrowserHardening {
    /// The preview's policy: its own scripts, styles, fetches and event stream only; nothing may frame it.
    static let previewPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// The index's policy for a page whose only style is the inline `<style>` element `style` (its text).
    static func indexPolicy(style: String) -> String {
        "default-src 'none'; style-src '\(hashSource(style))'; img-src 'self' data:; base-uri 'none'; "
            + "form-action 'none'; frame-ancestors 'none'"
    }

    /// `sha256-<base64>` of `text`, a CSP hash source.
    static func hashSource(_ text: String) -> String {
        "sha256-" + Data(Crypto.sha256(Array(text.utf8))).base64EncodedString()
    }

    /// `headers` with `Content-Security-Policy` (when `policy` is given) and `X-Content-Type-Options: nosniff`.
    static func apply(to headers: inout HTTPFields, policy: String?) {
        if let policy { headers.set("Content-Security-Policy", policy) }
        headers.set("X-Content-Type-Options", "nosniff")
    }
}
