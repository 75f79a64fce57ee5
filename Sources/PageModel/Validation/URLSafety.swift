/// Which URLs a page may hand to a device (lint code `unsafe_url`, docs/check.md § URLs). A deeplink goes to the
/// host app's handler and an image URL to an image loader, but both are one `WKWebView` or `openURL` away from
/// running script: `javascript:` and `vbscript:` never belong in a page; nor does `data:` or `file:` in a
/// deeplink. An image may be a `data:image/…` URL, except SVG (which can carry script).
public enum URLSafety {
    /// The scheme as a browser reads it: leading spaces and C0 controls dropped, tabs and newlines anywhere removed
    /// (`" java\tscript:"` is `javascript:`), lowercased; `nil` for a relative URL.
    public static func scheme(of url: String) -> String? {
        var scheme = ""
        var started = false
        for scalar in url.unicodeScalars {
            if scalar == "\t" || scalar == "\n" || scalar == "\r" { continue }
            if !started, scalar.value <= 0x20 { continue }
            started = true
            if scalar == ":" { return scheme.isEmpty ? nil : scheme }
            let isLetter = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            let isSchemeCharacter = isLetter || ("0"..."9").contains(scalar) || "+-.".unicodeScalars.contains(scalar)
            guard scheme.isEmpty ? isLetter : isSchemeCharacter else { return nil }
            scheme.unicodeScalars.append(scalar)
        }
        return nil
    }

    /// Why `url` must not be sent as a deeplink, or `nil` when it may be.
    public static func deeplinkProblem(_ url: String) -> String? {
        guard let scheme = scheme(of: url)?.lowercased() else { return nil }
        switch scheme {
        case "javascript", "vbscript":
            return "a \(scheme): URL runs script where a web view opens it; deeplinks name an app route"
        case "data", "file":
            return "a \(scheme): URL is not a deeplink (it opens content, not an app route)"
        default:
            return nil
        }
    }

    /// Why `url` must not be sent as an image URL, or `nil` when it may be.
    public static func imageProblem(_ url: String) -> String? {
        guard let scheme = scheme(of: url)?.lowercased() else { return nil }
        switch scheme {
        case "javascript", "vbscript":
            return "a \(scheme): URL is script, not an image"
        case "data":
            // Tabs and newlines are dropped by a browser's URL parser anywhere (`image/sv\tg+xml` is SVG).
            let rest = url.drop { $0 != ":" }.dropFirst().filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }
                .lowercased()
            guard rest.hasPrefix("image/"), !rest.hasPrefix("image/svg") else {
                return "a data: URL for an image must be data:image/… (not SVG, which can carry script)"
            }
            return nil
        default:
            return nil
        }
    }

    /// True for content fields that hold a URL: `url`, or a name ending in `URL` / `Url` (`imageURL`).
    public static func isURLField(_ name: String) -> Bool {
        name == "url" || name.hasSuffix("URL") || name.hasSuffix("Url")
    }
}
