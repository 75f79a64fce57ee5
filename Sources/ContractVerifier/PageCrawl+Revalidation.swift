import PageModel
import PageStore

extension PageCrawl {
    /// After the page's actions ran, asks for the page again as a device that cached the first answer would:
    /// identical bytes must carry the identical `ETag` (tags are stable for identical bodies), and
    /// `If-None-Match` with the first tag may be answered 304 only while the document is still the one that tag
    /// names — an action that changed the page (a session, a stateful backend) must change the tag too.
    func checkRevalidation() async {
        guard let first = firstAnswer, let etag = first.header("ETag") else { return }
        begin("revalidation")
        let urlRequest = loader.http.urlRequest(for: initialRequest)
        let request = loader.describe(initialRequest)
        let current: HTTPProbe.Response
        let conditional: HTTPProbe.Response
        do {
            current = try await probe.send(urlRequest, headers: ["Accept-Encoding": "identity"])
            conditional = try await probe.send(
                urlRequest, headers: ["Accept-Encoding": "identity", "If-None-Match": etag])
        } catch {
            record(ViolationCode.pageFailed, "revalidation", request: request, message: "\(error)")
            return
        }
        guard current.status == 200 else {
            record(
                ViolationCode.pageFailed, "revalidation", request: request,
                message: "after the page's actions the page answered \(current.status)", expected: "200",
                actual: String(current.status))
            return
        }
        if current.body == first.body, let tag = current.header("ETag"), tag != etag {
            record(
                ViolationCode.etagInconsistent, "revalidation", request: request,
                message: "the same bytes came with another ETag: tags must be stable for identical bodies",
                expected: etag, actual: tag)
        }
        guard conditional.status == 304 else { return }
        let before = try? decoder.decodePage(first.body).value.withoutPostbacks
        let after = try? decoder.decodePage(current.body).value.withoutPostbacks
        guard let before, let after, before != after else { return }
        let difference = JSONDiff.differences(expected: after.json, actual: before.json).first
        record(
            ViolationCode.etagInconsistent, "revalidation", request: request + " (If-None-Match: \(etag))",
            path: JSONPointer(string: "/page" + (difference?.path.string ?? "")),
            message: "the page changed after an action but If-None-Match with its old ETag was still answered 304",
            expected: difference?.expected, actual: difference?.actual)
    }
}
