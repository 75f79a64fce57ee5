/// The browser preview's static files, served at `/__preview/{name}` (docs/preview.md): Preview/web as it is,
/// compiled in by the EmbedFiles build plugin.
enum PreviewAssets {
    static let files: [String: String] = [
        "index.html": EmbeddedFiles.previewIndexHTML,
        "preview.css": EmbeddedFiles.previewCSS,
        "preview.js": EmbeddedFiles.previewJS,
        "widgets.js": EmbeddedFiles.widgetsJS,
    ]
}
