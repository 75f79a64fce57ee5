import PageModel

extension PageRecorder {
    /// A page's chunks merged into one page-file document (without `server`), with the observed page size.
    struct MergedPage {
        var document: JSONValue
        var pageSize: Int
        var notes: [String]
    }

    /// Envelope members that describe one response, not the page: never written to a page file.
    static let responseOnlyMembers: Set<String> = ["degradations", "locale"]

    /// Decodes each chunk with PageModel (the first a `page` envelope of `pageID`, the others `nextPage`
    /// envelopes), then merges their sections into the first envelope's page and applies `rules`.
    static func merge(pageID: String, chunks: [[UInt8]], rules: RecordingRules, catalog: WidgetCatalog)
        throws(RecordingError) -> MergedPage
    {
        guard PageID.isValid(pageID) else {
            throw RecordingError(code: .invalidPageID, message: "page ids match \(PageID.pattern), found \"\(pageID)\"")
        }
        guard let first = chunks.first else {
            throw RecordingError(code: .noChunks, message: "a recorded page needs its first page envelope")
        }
        let decoder = PageDecoder(catalog: catalog)
        let (root, envelope) = try decode(first, as: .page, label: "the page envelope", decoder: decoder)
        guard case .page(let page) = envelope else { preconditionFailure("decode(_:as:) checked the kind") }
        guard page.id == pageID else {
            throw RecordingError(
                code: .invalidPageID, path: "/page/id",
                message: "the page envelope is page \"\(page.id)\", recorded as \"\(pageID)\"")
        }
        var sections = root["page"]?["sections"]?.arrayValue ?? []
        var counts = [sections.count]
        var hasMore = page.pagination?.hasMore ?? false
        var notes: [String] = []
        for (index, chunk) in chunks.enumerated().dropFirst() {
            if !hasMore {
                notes.append("\(pageID): chunk \(index) said hasMore false, but more chunks were recorded")
            }
            let (next, envelope) = try decode(chunk, as: .nextPage, label: "nextPage chunk \(index)", decoder: decoder)
            guard case .nextPage(let decoded) = envelope else { preconditionFailure("decode(_:as:) checked the kind") }
            let chunkSections = next["sections"]?.arrayValue ?? []
            sections += chunkSections
            counts.append(chunkSections.count)
            hasMore = decoded.pagination.hasMore
        }
        if hasMore {
            notes.append(
                "\(pageID): incomplete, the last of the \(chunks.count) recorded chunks says hasMore; "
                    + "the file holds the \(sections.count) sections recorded")
        }
        // The largest chunk but the last is the page size that cuts the same chunks again (chunks of a page
        // resolved for a client may be smaller: dropped sections still count). One complete chunk: all at once.
        let pageSize =
            chunks.count == 1 && !hasMore ? 0 : max(1, (hasMore ? counts : counts.dropLast()).max() ?? 1)
        var document = JSONObject(capacity: root.count)
        for member in root.members where !responseOnlyMembers.contains(member.key) {
            guard member.key == "page", case .object(var pageObject) = member.value else {
                document[member.key] = member.value
                continue
            }
            pageObject["pagination"] = nil
            pageObject["sections"] = .array(sections)
            document["page"] = .object(pageObject)
        }
        return MergedPage(document: rules.scrubbed(.object(document)), pageSize: pageSize, notes: notes)
    }

    /// An action answer decoded with PageModel, its response-only members dropped and `rules` applied.
    static func answer(_ body: [UInt8], rules: RecordingRules, catalog: WidgetCatalog) throws(RecordingError)
        -> JSONValue
    {
        let (root, _) = try decode(
            body, as: .actionResponse, label: "the actionResponse envelope", decoder: PageDecoder(catalog: catalog))
        let members = root.members.filter { !responseOnlyMembers.contains($0.key) }
        return rules.scrubbed(.object(JSONObject(members)))
    }

    /// Parses and decodes one envelope of kind `kind`: its JSON object and the decoded envelope.
    static func decode(_ bytes: [UInt8], as kind: Envelope.Kind, label: String, decoder: PageDecoder)
        throws(RecordingError) -> (JSONObject, Envelope)
    {
        do throws(ContractError) {
            let json = try decoder.parse(bytes)
            let decoded = try decoder.decodeEnvelope(json: json)
            guard decoded.value.kind == kind else {
                throw ContractError(
                    code: "unexpected_kind", path: "/kind",
                    message: "expected kind \"\(kind.rawValue)\", found \"\(decoded.value.kind.rawValue)\"")
            }
            guard case .object(let root) = json else { preconditionFailure("an envelope decodes from an object") }
            return (root, decoded.value)
        } catch {
            throw RecordingError(error, in: label)
        }
    }
}
