import PageModel

extension BFFApplication {
    /// What is wrong with each of `rules` that no request to this application can match: a rule for a page or
    /// action that does not exist (`/v1/pages/ordres`) would otherwise simulate nothing, silently. One message per
    /// such rule, with the path meant when one is close; empty when every rule can match. Behind a proxy, rules for
    /// pages and actions are not judged (the upstream may serve them).
    func unmatchedFaultRules(_ rules: [FaultRule]) -> [String] {
        guard !rules.isEmpty else { return [] }
        let routes = faultableRoutes()
        var messages: [String] = []
        for rule in rules {
            // Behind a proxy, any page or action may exist upstream.
            if proxy != nil, rule.path.hasPrefix("/v1/pages/") || rule.path.hasPrefix("/v1/actions/") { continue }
            let matched = routes.contains { route in
                route.methods.contains { rule.matches(method: $0, path: route.path) }
                    || (route.path.contains("*") && (rule.method.map(route.methods.contains) ?? true)
                        && FaultRule.glob(Array(route.path.utf8)[...], Array(rule.path.utf8)[...]))
            }
            guard !matched else { continue }
            let hint =
                NearMiss.closest(to: rule.path, among: routes.map(\.path).filter { !$0.contains("*") })
                .map { " (did you mean \($0)?)" } ?? ""
            messages.append(
                "fault rule \"\(rule.pattern)\" matches no route of this server\(hint); it simulates nothing")
        }
        return messages
    }

    /// Every path a request can have here, with its methods: the pages (and their next chunks) and actions of the
    /// catalog, the Swift providers and handlers (their `*` patterns kept), the page index and the operational
    /// routes.
    private func faultableRoutes() -> [(methods: [String], path: String)] {
        let pageMethods = ["GET", "HEAD"]
        let nextMethods = ["GET", "HEAD", "POST"]
        var routes: [(methods: [String], path: String)] = []
        for id in catalog.pages.keys.sorted() + providers.pageIDs {
            routes.append((pageMethods, ContractRoute.page.template.replacingPlaceholder(with: id)))
            routes.append((nextMethods, ContractRoute.nextPage.template.replacingPlaceholder(with: id)))
        }
        for name in catalog.actions.keys.sorted() + actions.patterns {
            routes.append((["POST"], ContractRoute.action.template.replacingPlaceholder(with: name)))
        }
        for route in [ContractRoute.pageIndex, .healthz, .readyz, .metrics, .openAPI] {
            routes.append((pageMethods, route.template))
        }
        return routes
    }
}

extension String {
    /// This route template with its one `{parameter}` segment replaced by `value` (kept as written: a pattern's `*`
    /// stays a glob).
    fileprivate func replacingPlaceholder(with value: String) -> String {
        guard let open = firstIndex(of: "{"), let close = self[open...].firstIndex(of: "}") else { return self }
        return String(self[..<open]) + value + String(self[index(after: close)...])
    }
}
