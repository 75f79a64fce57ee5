import BFFTesting
import Foundation
import HTTPCore
import HTTPTesting
import PageModel
import Testing

@testable import BFFServer

/// Pages from data (pages/README.md § Pages from data): `data/` documents, `$each` / `$if` templates, pages per
/// item, and answers that change a session's copy of the data.
@Suite struct PagesFromDataTests {
    static let orders = """
        [
          {"id": "o-1001", "status": "delivered", "month": "November", "total": 49.8, "lines": 2},
          {"id": "o-1002", "status": "processing", "month": "December", "total": 12, "lines": 1},
          {"id": "o-1003", "status": "processing", "month": "December", "total": 99, "lines": 4}
        ]
        """

    /// The orders screen of the issue: one section per month (newest order first), a row per order, a cancel
    /// button only for orders still processing, which fires `orders.cancel`.
    static let ordersPage = """
        {
          "schemaVersion": 1, "kind": "page",
          "page": {
            "id": "orders", "title": "{{data.orders.count}} orders",
            "sections": [
              { "id": "intro", "widgets": [ { "id": "intro", "type": "text", "content": { "text": "Your orders" } } ] },
              { "$each": "data.orders", "as": "order", "sortBy": "-order.id", "groupBy": "order.month",
                "section": {
                  "id": "month.{{group.key}}", "title": "{{group.key}} ({{group.count}})",
                  "widgets": [
                    { "$each": "group.items", "as": "order", "widgets": [
                      { "id": "order.{{order.id}}", "type": "list_row",
                        "content": { "title": "Order {{order.id}}", "subtitle": "{{order.status}}", "trailing": "€{{order.total}}" },
                        "actions": { "tap": { "type": "open_bottom_sheet", "pageID": "order",
                                              "parameters": { "orderID": "{{order.id}}" } } } },
                      { "$if": { "order.status": "processing" },
                        "widget": { "id": "cancel.{{order.id}}", "type": "button",
                          "content": { "title": "Cancel", "style": "secondary" },
                          "actions": { "tap": { "type": "api", "name": "orders.cancel",
                                                "payload": { "orderID": "{{order.id}}" } } } } }
                    ] }
                  ] } }
            ]
          },
          "server": {
            "pageSize": 2,
            "actions": {
              "orders.cancel": { "responses": [
                { "data": [ { "update": "data.orders", "where": { "id": "{{request.payload.orderID}}" },
                              "set": { "status": "cancelled" } } ],
                  "response": { "schemaVersion": 1, "kind": "actionResponse",
                    "mutations": [ { "type": "removeWidget", "id": "cancel.{{request.payload.orderID}}" } ],
                    "effects": [ { "type": "toast", "message": "Order {{request.payload.orderID}} cancelled" } ] } }
              ] }
            }
          }
        }
        """

    static let orderNotFound = #", "problem": { "status": 404, "code": "order_not_found", "title": "Order not found" }"#

    static func orderPage(problem: String = orderNotFound) -> String {
        """
        {
          "schemaVersion": 1, "kind": "page",
          "page": {
            "id": "order", "title": "Order {{order.id}}",
            "sections": [ { "id": "summary", "widgets": [
              { "id": "status", "type": "key_value", "content": { "label": "Status", "value": "{{order.status}}" } },
              { "id": "lines", "type": "stepper", "content": { "label": "Lines", "value": "{{order.lines}}" } }
            ] } ]
          },
          "server": {
            "item": { "parameter": "orderID", "from": "data.orders", "key": "id", "as": "order"\(problem) }
          }
        }
        """
    }

    static func files(orders: String = orders, ordersPage: String = ordersPage) -> [String: String] {
        ["data/orders.json": orders, "orders.json": ordersPage, "order.json": orderPage()]
    }

    static func load(_ files: [String: String]) throws -> PageCatalog {
        PageCatalog.load(directory: try temporaryPages(files))
    }

    static func errors(_ catalog: PageCatalog) -> [FileDiagnostic] {
        catalog.diagnostics.filter { $0.diagnostic.severity == .error }
    }

    static func ids(_ section: Section) -> [String] { section.widgets.map(\.id) }

    @Test func aTemplateRepeatsGroupsSortsAndFiltersOverTheData() throws {
        let catalog = try Self.load(Self.files())
        #expect(Self.errors(catalog).isEmpty, "\(catalog.diagnostics)")
        let page = try #require(catalog.pages["orders"]).page
        #expect(page.title == "3 orders", "an array's count")
        #expect(page.sections.map(\.id) == ["intro", "month.December", "month.November"])
        #expect(page.sections.map(\.title) == [nil, "December (2)", "November (1)"])
        #expect(Self.ids(page.sections[1]) == ["order.o-1003", "cancel.o-1003", "order.o-1002", "cancel.o-1002"])
        #expect(Self.ids(page.sections[2]) == ["order.o-1001"], "no cancel button for a delivered order")
        let row = page.sections[1].widgets[0]
        #expect(row.content["trailing"] == "€99")
        #expect(row.content["subtitle"] == "processing")
        guard case .openBottomSheet(let pageID, let parameters)? = row.actions["tap"] else {
            Issue.record("the row opens the order sheet: \(row.actions)")
            return
        }
        #expect(pageID == "order" && parameters == ["orderID": "o-1003"])
    }

    @Test func aPlaceholderThatIsTheWholeValueKeepsTheDataType() throws {
        let catalog = try Self.load(Self.files())
        let order = try #require(catalog.pages["order"]?.items?.pages["o-1003"]).page
        #expect(order.sections[0].widgets[1].content["value"] == 4, "a number, as the stepper's value must be")
        #expect(order.title == "Order o-1003")
    }

    @Test func anUnknownItemFieldIsAnErrorWithDidYouMeanAtTheTemplatesPosition() throws {
        let typo = Self.ordersPage.replacingOccurrences(of: "{{order.status}}", with: "{{order.stauts}}")
        let directory = try temporaryPages(Self.files(ordersPage: typo))
        let errors = Self.errors(PageCatalog.load(directory: directory))
        #expect(errors.count == 1, "one finding for the template, not one per order: \(errors)")
        let located = try #require(errors.first).located()
        #expect(located.hasPrefix("orders.json:13:73:"), "the subtitle in the template: \(located)")
        #expect(located.contains("/page/sections/1/section/widgets/0/widgets/0/content/subtitle"), "\(located)")
        #expect(located.contains("unknown_field"))
        #expect(located.contains("(did you mean status?)"), "\(located)")
    }

    @Test func mistakesInTemplatesAreNamedWithTheirPaths() throws {
        func firstError(_ from: String, _ to: String) throws -> Diagnostic? {
            let edited = Self.ordersPage.replacingOccurrences(of: from, with: to)
            #expect(edited != Self.ordersPage, "the edit applies: \(from)")
            return Self.errors(try Self.load(Self.files(ordersPage: edited))).first?.diagnostic
        }
        let document = try #require(try firstError(#""$each": "data.orders""#, #""$each": "data.ordres""#))
        #expect(document.code == "unknown_data")
        #expect(document.message.contains("did you mean orders?"))
        let member = try #require(try firstError(#""sortBy""#, #""sortby""#))
        #expect(member.code == "invalid_template" && member.message.contains("did you mean sortBy?"))
        let variable = try #require(try firstError("Order {{order.id}}", "Order {{ordr.id}}"))
        #expect(variable.code == "unknown_placeholder" && variable.message.contains("did you mean order?"))
        let matcher = try #require(
            try firstError(#"{ "order.status": "processing" }"#, #"{ "order.status": {"eq": 1} }"#))
        #expect(matcher.code == "unknown_operator", "\(matcher)")
        let unfilled = try #require(
            try firstError(#""title": "{{data.orders.count}} orders""#, #""title": "{{order.id}} orders""#))
        #expect(unfilled.code == "unknown_placeholder" && unfilled.path == "/page/title", "outside its $each")
        #expect(unfilled.message.contains("bound only inside the $each"), "\(unfilled)")
        let change = try #require(try firstError(#""update": "data.orders""#, #""update": "data.order""#))
        #expect(change.code == "unknown_data" && change.path.string.hasSuffix("/data/0/update"), "\(change)")
        // A value that cannot fit the widget once filled: the codec's finding, at the template's position, once.
        var files = Self.files()
        files["order.json"] = Self.orderPage().replacingOccurrences(
            of: #""value": "{{order.lines}}""#, with: #""value": "{{order.status}}""#)
        let misfit = Self.errors(try Self.load(files))
        #expect(misfit.count == 1, "\(misfit)")
        #expect(misfit.first?.file == "order.json")
        #expect(misfit.first?.diagnostic.path == "/page/sections/0/widgets/1/content/value")
        // Request values stay the answer's: in page content they are served as written (with the usual warning).
        let catalog = try Self.load(
            Self.files(ordersPage: Self.ordersPage.replacingOccurrences(of: "Your orders", with: "{{request.value}}")))
        #expect(Self.errors(catalog).isEmpty)
        #expect(catalog.diagnostics.contains { $0.diagnostic.code == "placeholder_outside_answer" })
    }

    /// A data change's `where` compares a request value as it is: an object sent is never read as matchers.
    @Test func aDataChangeComparesRequestValuesAndNeverReadsThemAsMatchers() throws {
        let catalog = try Self.load(Self.files())
        var diagnostics: [Diagnostic] = []
        let change = try #require(
            DataChange(
                [
                    "update": "data.orders", "where": ["id": "{{request.payload.orderID}}", "total": ["gt": 20]],
                    "set": ["status": "cancelled", "note.by": "{{session.id}}"],
                ], at: .root, data: catalog.data, diagnostics: &diagnostics))
        #expect(diagnostics.isEmpty)
        func statuses(_ payload: JSONValue) -> [JSONValue?] {
            var documents = catalog.data
            let facts = RequestFacts(
                action: ActionRequest(
                    name: "orders.cancel", pageID: "orders", widgetID: "w", event: "tap", value: nil, payload: payload),
                query: [:], headers: [:], sessionID: "s-1", scenario: nil)
            change.applied(to: &documents, facts: facts)
            return documents.documents["orders"]?.arrayValue?.map { $0["status"] } ?? []
        }
        #expect(statuses(["orderID": "o-1003"]) == ["delivered", "processing", "cancelled"])
        #expect(statuses(["orderID": "o-1002"]) == ["delivered", "processing", "processing"], "total 12 is not > 20")
        #expect(statuses(["orderID": ["present": true]]) == ["delivered", "processing", "processing"])
    }

    @Test func aBrokenDataFileIsAnErrorAndItsLastGoodDataIsKept() throws {
        let directory = try temporaryPages(Self.files())
        let first = PageCatalog.load(directory: directory)
        try Data("[{\"id\": ".utf8).write(to: URL(fileURLWithPath: directory + "/data/orders.json"))
        let broken = PageCatalog.load(directory: directory, reusing: first)
        let error = try #require(Self.errors(broken).first)
        #expect(error.file == "data/orders.json" && error.diagnostic.code == "invalid_json")
        #expect(error.located(in: directory).contains("data/orders.json:1:"), "\(error.located(in: directory))")
        #expect(broken.pages["orders"]?.page == first.pages["orders"]?.page, "made from the last good data")
        #expect(broken.keepingLastGood(from: first).kept == ["data/orders.json"])
        // Only the data changes: the page file is decoded again all the same.
        let more = Self.orders.replacingOccurrences(
            of: "\n]", with: #", {"id": "o-1004", "status": "processing", "month": "January", "total": 5, "lines": 1}]"#
        )
        try Data(more.utf8).write(to: URL(fileURLWithPath: directory + "/data/orders.json"))
        let fixed = PageCatalog.load(directory: directory, reusing: broken)
        #expect(Self.errors(fixed).isEmpty)
        #expect(fixed.pages["orders"]?.page.sections.map(\.id)[1] == "month.January", "the newest order first")
        #expect(fixed.pages["order"]?.items?.pages["o-1004"] != nil)
        #expect(fixed.pages["orders"]?.version != first.pages["orders"]?.version)
    }

    @Test func theSameFilesGiveTheSameBytes() throws {
        let directory = try temporaryPages(Self.files())
        let one = PageCatalog.load(directory: directory).pages["orders"]
        let two = PageCatalog.load(directory: directory).pages["orders"]
        #expect(one?.page.encoded() == two?.page.encoded())
        #expect(one?.version == two?.version)
    }

    /// The issue's "done when": cancel changes the session's data and the next GET shows it; other sessions and
    /// clients without one see the files' data; an unknown orderID answers a 404 problem; a reset forgets it all.
    @Test func cancellingAnOrderChangesThatSessionsDataOnly() async throws {
        let pages = try temporaryPages(Self.files())
        try await withTestServer(pages: pages, configuration: mockConfiguration()) { server in
            let http = HTTPTestClient(port: server.port)
            let mine = [("X-Flow-Session", "ui-test-1")]
            func widgets(_ target: String, _ headers: [(String, String)]) async throws -> [String] {
                var ids: [String] = []
                var next: String? = target
                while let current = next {
                    let response = try await http.get(current, headers: headers)
                    #expect(response.status == 200, "\(current): \(response.text)")
                    let (sections, pagination): ([Section], Pagination?)
                    switch try PageDecoder().decodeEnvelope(response.body).value {
                    case .page(let page): (sections, pagination) = (page.sections, page.pagination)
                    case .nextPage(let chunk): (sections, pagination) = (chunk.sections, chunk.pagination)
                    default: (sections, pagination) = ([], nil)
                    }
                    ids += sections.flatMap {
                        $0.widgets.map { "\($0.id)=\($0.content["subtitle"]?.stringValue ?? "")" }
                    }
                    next = pagination?.postback.map {
                        "/v1/pages/orders/next?postback="
                            + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                    }
                }
                return ids
            }
            // A request value is compared, never read as matchers: an object sent as the order id cancels nothing.
            let injected = try await http.post(
                "/v1/actions/orders.cancel",
                json:
                    #"{"pageID": "orders", "widgetID": "cancel.o-1002", "event": "tap", "payload": {"orderID": {"present": true}}}"#,
                headers: [("X-Flow-Session", "ui-test-3")])
            #expect(injected.status == 422, "the answer's target cannot be built from an object: nothing is sent")
            #expect(
                try await widgets("/v1/pages/orders", [("X-Flow-Session", "ui-test-3")]).contains(
                    "order.o-1002=processing"))
            let before = try await widgets("/v1/pages/orders", mine)
            #expect(before.contains("cancel.o-1002="))
            #expect(before.contains("order.o-1002=processing"))
            let answer = try await http.post(
                "/v1/actions/orders.cancel",
                json:
                    #"{"pageID": "orders", "widgetID": "cancel.o-1002", "event": "tap", "payload": {"orderID": "o-1002"}}"#,
                headers: mine)
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.text.contains("Order o-1002 cancelled"))
            let after = try await widgets("/v1/pages/orders", mine)
            #expect(after.contains("order.o-1002=cancelled"), "\(after)")
            #expect(!after.contains("cancel.o-1002="), "the cancel button is gone: \(after)")
            #expect(after.contains("cancel.o-1003="), "the other order is unchanged")
            #expect(try await widgets("/v1/pages/orders", [("X-Flow-Session", "ui-test-2")]) == before)
            #expect(try await widgets("/v1/pages/orders", []) == before)

            let detail = try json(try await http.get("/v1/pages/order?orderID=o-1002", headers: mine))
            #expect(detail["page"]?["sections"]?[0]?["widgets"]?[0]?["content"]?["value"] == "cancelled")
            let theirs = try json(try await http.get("/v1/pages/order?orderID=o-1002"))
            #expect(theirs["page"]?["sections"]?[0]?["widgets"]?[0]?["content"]?["value"] == "processing")
            for target in ["/v1/pages/order?orderID=o-9", "/v1/pages/order"] {
                let missing = try await http.get(target, headers: mine)
                #expect(missing.status == 404, "\(target)")
                #expect(missing.header("Content-Type") == "application/problem+json")
                #expect(try json(missing)["code"] == "order_not_found")
            }
            let reset = try await http.request(
                "POST", "/__admin/reset?session=ui-test-1", headers: [("X-Flow-Admin", "1")])
            #expect(reset.status == 200, "\(reset.text)")
            #expect(try await widgets("/v1/pages/orders", mine) == before)
        }
    }

    /// A member some items lack inserts nothing for them; one that no item has is the file's error, once.
    @Test func aPagePerItemReportsOnlyMembersNoItemHas() throws {
        var files = Self.files(
            orders: Self.orders.replacingOccurrences(of: #""lines": 1}"#, with: #""lines": 1, "note": "gift"}"#))
        files["order.json"] = Self.orderPage().replacingOccurrences(
            of: #""Order {{order.id}}""#, with: #""{{order.id}} {{order.note}}""#)
        let catalog = try Self.load(files)
        #expect(Self.errors(catalog).isEmpty, "\(catalog.diagnostics)")
        let items = try #require(catalog.pages["order"]?.items)
        #expect(items.pages.count == 3)
        #expect(items.pages["o-1002"]?.page.title == "o-1002 gift")
        #expect(items.pages["o-1001"]?.page.title == "o-1001 ")
        files["order.json"] = Self.orderPage().replacingOccurrences(
            of: #""Order {{order.id}}""#, with: #""{{order.nope}}""#)
        let errors = Self.errors(try Self.load(files))
        #expect(errors.map(\.diagnostic.code) == ["unknown_field"], "\(errors)")
        #expect(errors.first?.diagnostic.path == "/page/title")
    }

    /// `filterBy` and `sortable`: the page made for the query's values, with its own version and cursors; from
    /// the session's data in mock mode.
    @Test func queryParametersFilterAndSortThePageMadeFromData() async throws {
        let queried = Self.ordersPage.replacingOccurrences(
            of: #""as": "order", "sortBy": "-order.id","#,
            with:
                #""as": "order", "sortBy": "-order.id", "filterBy": {"status": "order.status"}, "sortable": {"total": "order.total"},"#
        )
        #expect(queried != Self.ordersPage)
        let pages = try temporaryPages(Self.files(ordersPage: queried))
        #expect(Self.errors(PageCatalog.load(directory: pages)).isEmpty)
        try await withTestServer(pages: pages, configuration: mockConfiguration()) { server in
            let http = HTTPTestClient(port: server.port)
            func rows(_ target: String, _ headers: [(String, String)] = []) async throws -> [String] {
                let response = try await http.get(target, headers: headers)
                #expect(response.status == 200, "\(target): \(response.text)")
                let page = try PageDecoder().decodePage(response.body).value
                return page.sections.flatMap { $0.widgets.map(\.id) }.filter { $0.hasPrefix("order.") }
            }
            #expect(
                try await rows("/v1/pages/orders") == ["order.o-1003", "order.o-1002"], "first chunk: two sections")
            #expect(try await rows("/v1/pages/orders?status=processing") == ["order.o-1003", "order.o-1002"])
            #expect(try await rows("/v1/pages/orders?status=delivered") == ["order.o-1001"])
            #expect(try await rows("/v1/pages/orders?status=nope") == [])
            #expect(try await rows("/v1/pages/orders?sort=total") == ["order.o-1002", "order.o-1003"])
            #expect(try await rows("/v1/pages/orders?sort=-total") == ["order.o-1003", "order.o-1002"])
            #expect(try await rows("/v1/pages/orders?sort=unknown") == ["order.o-1003", "order.o-1002"], "the default")
            // Values are keys as they are: an encoded "&" in one value is not two parameters.
            #expect(
                try await rows("/v1/pages/orders?sort=total%26status%3Ddelivered") == ["order.o-1003", "order.o-1002"])
            #expect(try await rows("/v1/pages/orders?sort=total&status=delivered") == ["order.o-1001"])
            // Its own version, and cursors that continue it.
            let plain = try await http.get("/v1/pages/orders")
            let sorted = try await http.get("/v1/pages/orders?sort=total")
            #expect(plain.header("ETag") != sorted.header("ETag"))
            let postback = try #require(try PageDecoder().decodePage(sorted.body).value.pagination?.postback)
            let next = try await http.get(
                "/v1/pages/orders/next?postback="
                    + (postback.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            #expect(next.status == 200, "\(next.text)")
            #expect(next.text.contains("order.o-1001"))
            // A session's data: after its cancel, its filtered page follows.
            let mine = [("X-Flow-Session", "ui-q")]
            _ = try await http.post(
                "/v1/actions/orders.cancel",
                json:
                    #"{"pageID": "orders", "widgetID": "cancel.o-1002", "event": "tap", "payload": {"orderID": "o-1002"}}"#,
                headers: mine)
            #expect(try await rows("/v1/pages/orders?status=processing", mine) == ["order.o-1003"])
            #expect(try await rows("/v1/pages/orders?status=processing") == ["order.o-1003", "order.o-1002"])
        }
    }

    @Test func aPagePerItemWithoutADeclaredProblemAnswersItemNotFound() async throws {
        let edited = Self.orderPage(problem: "")
        #expect(!edited.contains("order_not_found"))
        var files = Self.files()
        files["order.json"] = edited
        try await withTestServer(pages: try temporaryPages(files)) { server in
            let answer = try await HTTPTestClient(port: server.port).get("/v1/pages/order?orderID=nope")
            #expect(answer.status == 404)
            #expect(try json(answer)["code"] == "item_not_found")
        }
    }

    /// A UI test sets up the data it needs: a data document for its session only, or for everyone, refused with the
    /// findings of the pages it would break.
    @Test func aDataDocumentPutAtRuntimeIsServedToItsSessionOrToAll() async throws {
        try await withTestServer(pages: try temporaryPages(Self.files()), configuration: mockConfiguration()) {
            server in
            let http = HTTPTestClient(port: server.port)
            let admin = [("X-Flow-Admin", "1"), ("Content-Type", "application/json")]
            let mine = [("X-Flow-Session", "ui-test-9")]
            func title(_ headers: [(String, String)] = []) async throws -> String? {
                try await PageDecoder().decodePage(http.get("/v1/pages/orders", headers: headers).body).value.title
            }
            let one = #"[{"id": "o-7", "status": "processing", "month": "May", "total": 1, "lines": 1}]"#
            let put = try await http.request(
                "PUT", "/__admin/stubs/data/orders?session=ui-test-9", headers: admin, body: Array(one.utf8))
            #expect(put.status == 200, "\(put.text)")
            #expect(try json(put)["data"] == [["name": "orders", "session": "ui-test-9"]])
            #expect(try await title(mine) == "1 orders")
            #expect(try await title() == "3 orders", "others get the file's data")
            #expect(try await http.get("/v1/pages/order?orderID=o-7", headers: mine).status == 200)
            #expect(try await http.get("/v1/pages/order?orderID=o-7").status == 404)

            // A document that would break a page made from it is refused with that page's findings.
            let broken = #"[{"id": "o-8", "status": "processing", "month": "May", "total": 1, "lines": "many"}]"#
            let refused = try await http.request(
                "PUT", "/__admin/stubs/data/orders", headers: admin, body: Array(broken.utf8))
            #expect(refused.status == 400)
            #expect(try json(refused)["code"] == "invalid_stub")
            let finding = try #require(try json(refused)["diagnostics"]?[0])
            #expect(finding["path"] == "/page/sections/0/widgets/1/content/value", "\(finding)")
            #expect(finding["message"]?.stringValue?.hasPrefix("order.json: ") == true, "\(finding)")
            #expect(try await title() == "3 orders", "nothing changed")

            // For everyone: the pages are loaded again with it, until it is removed.
            let none = try await http.request(
                "PUT", "/__admin/stubs/data/orders", headers: admin, body: Array("[]".utf8))
            #expect(none.status == 200, "\(none.text)")
            #expect(try await title() == "0 orders")
            #expect(try await title(mine) == "1 orders", "the session's own stub comes first")
            let removed = try await http.request("DELETE", "/__admin/stubs/data/orders", headers: admin)
            #expect(removed.status == 200)
            #expect(try await title() == "3 orders")
            let gone = try await http.request("DELETE", "/__admin/stubs/data/orders?session=ui-test-9", headers: admin)
            #expect(try json(gone)["data"] == [])
            #expect(try await title(mine) == "3 orders")
            // Forgetting every stub gives a session with data stubs the files' data again too.
            _ = try await http.request(
                "PUT", "/__admin/stubs/data/orders?session=ui-test-9", headers: admin, body: Array(one.utf8))
            #expect(try await title(mine) == "1 orders")
            #expect(try await http.request("DELETE", "/__admin/stubs", headers: admin).status == 200)
            #expect(try await title(mine) == "3 orders")
        }
    }

    static let generatedPeople = """
        { "$generate": { "count": 40, "seed": 7, "item": {
          "id": "p-{{fake.sequence 100}}", "name": "{{fake.name}}", "address": "{{fake.address}}",
          "price": "{{fake.price 5 80 EUR}}", "age": "{{fake.number 18 90}}", "since": "{{fake.date -30 0}}",
          "vip": "{{fake.boolean}}", "status": "{{fake.pick new active gone}}", "avatar": "{{fake.image 64 48}}",
          "label": "{{fake.product}} #{{fake.number 1 9}}" } } }
        """

    static let peoplePage = """
        { "schemaVersion": 1, "kind": "page", "page": { "id": "people", "title": "{{fake.name}}", "sections": [
          { "$each": "data.people", "as": "person", "section": { "id": "{{person.id}}", "widgets": [
            { "id": "row.{{person.id}}", "type": "list_row",
              "content": { "title": "{{person.name}}", "subtitle": "{{fake.city}}", "trailing": "{{person.price}}" } }
          ] } } ] } }
        """

    @Test func fakeDataIsTheSameForTheSameSeedAndHasItsShape() throws {
        let files = ["data/people.json": Self.generatedPeople, "people.json": Self.peoplePage]
        let one = PageCatalog.load(directory: try temporaryPages(files))
        let two = PageCatalog.load(directory: try temporaryPages(files))
        #expect(Self.errors(one).isEmpty, "\(one.diagnostics)")
        #expect(one.data.documents["people"] == two.data.documents["people"], "same seed, same document")
        #expect(one.pages["people"]?.page.encoded() == two.pages["people"]?.page.encoded(), "same page bytes")
        let people = try #require(one.data.documents["people"]?.arrayValue)
        #expect(people.count == 40)
        #expect(people.map { $0["id"] } == (100..<140).map { .string("p-\($0)") })
        let today = Date()
        for person in people {
            let age = try #require(person["age"]?.numberValue, "a whole-value placeholder keeps the number")
            #expect((18...90).contains(age) && age == age.rounded())
            let price = try #require(person["price"]?.stringValue)
            #expect(price.wholeMatch(of: /€\d{1,2}\.\d\d/) != nil, "\(price)")
            let euros = Double(price.dropFirst()) ?? 0
            #expect(euros >= 5 && euros <= 80)
            let since = try #require(person["since"]?.stringValue)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate]
            let day = try #require(formatter.date(from: since), "\(since)")
            #expect(day <= today && day > today.addingTimeInterval(-32 * 86_400), "\(since)")
            #expect(person["vip"]?.boolValue != nil)
            #expect(["new", "active", "gone"].contains(person["status"]?.stringValue ?? ""))
            #expect(person["avatar"]?.stringValue?.hasPrefix("https://placehold.co/64x48?text=") == true)
            #expect(person["address"]?.stringValue?.wholeMatch(of: /\d+ [A-Za-z ]+, .+/) != nil)
        }
        #expect(Set(people.map { $0["name"] }).count > 20, "names vary: \(people.map { $0["name"] })")
        let reseeded = PageCatalog.load(
            directory: try temporaryPages(
                files.merging([
                    "data/people.json": Self.generatedPeople.replacingOccurrences(
                        of: "\"seed\": 7", with: "\"seed\": 8")
                ]) { $1 }))
        #expect(reseeded.data.documents["people"] != one.data.documents["people"], "another seed, other values")
        let page = try #require(one.pages["people"]).page
        #expect(page.title?.contains(" ") == true, "a fake name in the template itself")
        #expect(page.sections[0].widgets[0].content["title"] == people[0]["name"])
    }

    @Test func aMisspeltGeneratorIsAnErrorWithTheClosestName() throws {
        let typo = Self.generatedPeople.replacingOccurrences(of: "fake.address", with: "fake.adress")
        let catalog = PageCatalog.load(directory: try temporaryPages(["data/people.json": typo]))
        let error = try #require(Self.errors(catalog).first)
        #expect(error.file == "data/people.json")
        #expect(error.diagnostic.code == "unknown_generator")
        #expect(error.diagnostic.path == "/$generate/item/address")
        #expect(error.diagnostic.message.contains("did you mean fake.address?"))
        #expect(error.position?.line == 2, "\(error.located())")
        for arguments in ["90 18", "-9223372036854775808 0", "1 99999999999"] {
            let edited = Self.generatedPeople.replacingOccurrences(
                of: "fake.number 18 90", with: "fake.number \(arguments)")
            let bad = Self.errors(PageCatalog.load(directory: try temporaryPages(["data/people.json": edited])))
            #expect(bad.first?.diagnostic.code == "invalid_generator", "\(arguments)")
        }
    }

    /// The mock's `/` index lists the data documents and opens a page per item with its samples.
    @Test func theMockIndexListsDataAndSamplesOfPagesPerItem() async throws {
        try await withTestServer(configuration: mockConfiguration()) { server in
            let http = HTTPTestClient(port: server.port)
            let index = try json(try await http.get("/", headers: [("Accept", "application/json")]))
            #expect(index["data"] == [["name": "orders", "file": "data/orders.json", "items": 45]])
            let order = try #require(index["pages"]?.arrayValue?.first { $0["id"] == "order" })
            #expect(order["href"] == "/v1/pages/order?orderID=o-1001")
            #expect(
                order["samples"]?.arrayValue?.map { $0["href"] } == [
                    "/v1/pages/order?orderID=o-1001", "/v1/pages/order?orderID=o-1023",
                    "/v1/pages/order?orderID=o-1045",
                ])
            #expect(try await http.get("/v1/pages/order?orderID=o-1023").status == 200, "a sample loads")
            let html = try await http.get("/", headers: [("Accept", "text/html")]).text
            #expect(html.contains("<h2>Data</h2>"))
            #expect(html.contains("<code>data/orders.json</code>"))
            #expect(html.contains(#"<a href="/v1/pages/order?orderID=o-1045">orderID=o-1045</a>"#))
        }
    }

    @Test func anEditedDataFileIsServedWithoutARestart() async throws {
        let pages = try temporaryPages(Self.files())
        let configuration = mockConfiguration {
            $0.watch = .auto
            $0.debounceMs = 50
            $0.pollIntervalMs = 200
        }
        try await withTestServer(pages: pages, configuration: configuration) { server in
            let http = HTTPTestClient(port: server.port)
            func title() async throws -> String? {
                try await PageDecoder().decodePage(http.get("/v1/pages/orders").body).value.title
            }
            #expect(try await title() == "3 orders")
            try Data("[]".utf8).write(to: URL(fileURLWithPath: pages + "/data/orders.json"))
            try await HotReloadTests.eventually("the emptied data served") { try await title() == "0 orders" }
        }
    }
}
