import PageModel
import Testing

/// "Did you mean" hints: the candidate a person meant, by edit distance with adjacent swaps counted as one edit.
@Suite struct NearMissTests {
    @Test(arguments: [
        ("ordres", ["order", "orders"], "orders"),  // a swap: one edit from orders, two from order (issue 33)
        ("stauts", ["status", "latency", "rate"], "status"),
        ("sessoin", ["method", "path", "session", "status"], "session"),
        ("list_rwo", ["list_row", "text"], "list_row"),
        ("cart.ad", ["cart.add", "cart.remove"], "cart.add"),
    ])
    func suggestsTheOneMeant(_ name: String, _ candidates: [String], _ meant: String) {
        #expect(NearMiss.closest(to: name, among: candidates) == meant)
    }

    @Test func farNamesHaveNoSuggestion() {
        #expect(NearMiss.closest(to: "checkout", among: ["home", "cart"]) == nil)
    }
}
