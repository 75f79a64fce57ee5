import HTTPCore

/// The browser preview in the responder chain (composed when ``BFFConfiguration/servesPreview``): `/__preview…`
/// is answered by its routes (Preview/BFFApplication+Preview.swift), everything else goes on to the next link.
struct PreviewResponder: ChainResponder {
    let application: BFFApplication
    let routes: ContextRouter<RequestContext>
    let next: any ChainResponder

    init(application: BFFApplication, next: any ChainResponder) {
        self.application = application
        routes = application.makePreviewRouter()
        self.next = next
    }

    func respond(to request: consuming HTTPRequest, context: RequestContext) -> HTTPReply {
        guard request.path.hasPrefix(BFFApplication.previewPrefix) else {
            return next.respond(to: request, context: context)
        }
        let path = request.path
        do {
            return try routes.respond(to: request, context: context)
        } catch {
            return application.unrouted(path: path, context: context, error)
        }
    }
}
