import PageModel
import PageStore

/// Contract bodies used across the PageStore tests, written as the server would send them.
enum Fixtures {
    /// A cart page: a header title, an `items` section with the `qty` stepper (content `value` is the payload's
    /// initial), a footer checkout button with an api action, and a cursor when `postback` is set.
    static func cart(stepper: Int = 1, title: String = "Cart", postback: String? = "cursor-1") -> [UInt8] {
        let pagination =
            postback.map { #""pagination": {"hasMore": true, "postback": "\#($0)"}"# }
            ?? #""pagination": {"hasMore": false}"#
        return page(
            #"""
            {"id": "cart", "title": "\#(title)",
             "header": [{"id": "title", "type": "text", "content": {"text": "\#(title)"}}],
             "sections": [{"id": "items", "title": "Items", "widgets": [
               {"id": "qty", "type": "stepper", "content": {"value": \#(stepper), "label": "Quantity"},
                "actions": {"change": {"type": "api", "name": "set_quantity"}}}]}],
             "footer": [{"id": "checkout", "type": "button", "content": {"title": "Checkout"},
                         "actions": {"tap": {"type": "api", "name": "checkout", "payload": {"step": 1}}}}],
             \#(pagination)}
            """#)
    }

    /// A `nextPage` chunk with one `more` section; `postback` continues it, `nil` ends the page.
    static func nextPage(_ name: String = "more", postback: String? = nil) -> [UInt8] {
        let pagination = postback.map { #"{"hasMore": true, "postback": "\#($0)"}"# } ?? #"{"hasMore": false}"#
        return Array(
            #"""
            {"schemaVersion": 1, "kind": "nextPage",
             "sections": [{"id": "\#(name)", "widgets": [
               {"id": "\#(name)-row", "type": "list_row", "content": {"title": "Row \#(name)"}}]}],
             "pagination": \#(pagination)}
            """#.utf8)
    }

    /// A page with no widgets at all.
    static let empty = page(#"{"id": "cart", "sections": []}"#)

    /// A page whose `bad` widget has invalid content (text must be a string).
    static let badContent = page(
        #"""
        {"id": "cart", "sections": [{"id": "items", "widgets": [
          {"id": "ok", "type": "text", "content": {"text": "fine"}},
          {"id": "bad", "type": "text", "content": {"text": 42}},
          {"id": "after", "type": "button", "content": {"title": "Still here"}}]}]}
        """#)

    /// An action response that replaces the `qty` stepper (new label, same id) and asks for a toast.
    static let replaceStepper = actionResponse(
        mutations: #"""
            [{"type": "replaceWidget", "id": "qty",
              "widget": {"id": "qty", "type": "stepper", "content": {"value": 1, "label": "Qty (server)"}}}]
            """#,
        effects: #"[{"type": "toast", "message": "Updated"}]"#)

    static func actionResponse(mutations: String = "[]", effects: String = "[]") -> [UInt8] {
        Array(
            #"{"schemaVersion": 1, "kind": "actionResponse", "mutations": \#(mutations), "effects": \#(effects)}"#
                .utf8)
    }

    static func page(_ pageObject: String) -> [UInt8] {
        Array(#"{"schemaVersion": 1, "kind": "page", "page": \#(pageObject)}"#.utf8)
    }

    /// The document a page body decodes to.
    static func decoded(_ body: [UInt8]) throws -> PageModel {
        try PageDecoder().decodePage(body).value
    }

    /// The document after appending a next-page body.
    static func appending(_ next: [UInt8], to page: PageModel) throws -> PageModel {
        var diagnostics: [Diagnostic] = []
        return page.appending(try PageDecoder().decodeNextPage(next).value, diagnostics: &diagnostics)
    }

    static let serverError = PageLoadError(code: "http_error", message: "HTTP 500 Internal Server Error", status: 500)
}
