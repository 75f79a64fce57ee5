import HTTPCore
import PageModel

extension BFFApplication {
    /// The answer a page file declares for `action` (`server.actions` in pages/README.md): the declared response,
    /// prepared once per catalog.
    func declaredAnswer(
        _ declared: CatalogAction, to action: ActionRequest, _ request: HTTPRequest, snapshot: CatalogSnapshot
    ) throws -> ActionAnswer {
        ActionAnswer(response: declared.response, prepared: snapshot.actionBodies[declared.name])
    }
}
