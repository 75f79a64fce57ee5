import PageModel

/// Stand-ins keep a recorded folder loadable: a recorded page names pages it opens and actions it fires, and the
/// server's check refuses a folder where one of them is not declared (`unknown_page_reference`,
/// `unknown_action_reference`). Until the real page or answer is recorded, a clearly marked stand-in declares it.
extension RecordedFolder {
    /// The id of a stand-in page's section and widget.
    static let standInID = "not-recorded"

    /// A stand-in answer for action `name`: no mutations, a toast saying it was not recorded.
    static func standInAction(_ name: String) -> JSONValue {
        [
            "schemaVersion": 1, "kind": "actionResponse", "mutations": [],
            "effects": [["type": "toast", "message": .string("Not recorded: \(name)")]],
        ]
    }

    /// A stand-in page file for `pageID`: one empty state saying it was not recorded, served at once.
    static func standInPage(_ pageID: String) -> JSONValue {
        let widget: JSONValue = [
            "id": .string(standInID), "type": "empty_state",
            "content": [
                "title": "Not recorded",
                "message": .string(
                    "A recorded page opens \(pageID), but \(pageID) itself was not recorded. Record it, or replace this file."
                ),
            ],
        ]
        return [
            "schemaVersion": 1, "kind": "page",
            "page": [
                "id": .string(pageID), "title": "Not recorded",
                "sections": [["id": .string(standInID), "widgets": [widget]]],
            ],
            "server": ["pageSize": 0],
        ]
    }

    /// The `api` action names and `open_bottom_sheet` page ids named anywhere in `value`, each once, in
    /// document order.
    static func references(in value: JSONValue) -> (actions: [String], pages: [String]) {
        var actions: [String] = []
        var pages: [String] = []
        func walk(_ value: JSONValue) {
            switch value {
            case .object(let object):
                switch (object["type"], object["name"], object["pageID"]) {
                case (.string("api")?, .string(let name)?, _) where !actions.contains(name):
                    actions.append(name)
                case (.string("open_bottom_sheet")?, _, .string(let pageID)?) where !pages.contains(pageID):
                    pages.append(pageID)
                default:
                    break
                }
                for member in object.members { walk(member.value) }
            case .array(let elements):
                for element in elements { walk(element) }
            default:
                break
            }
        }
        walk(value)
        return (actions, pages)
    }

    /// Adds stand-ins for what file `name` references and the folder does not declare: a page file for each page it
    /// opens, an answer in `base`'s `server.actions` for each action it fires.
    mutating func addStandIns(for name: String, base: String) throws(RecordingError) {
        guard let document = try document(name) else { return }
        let (actions, pages) = Self.references(in: document)
        for pageID in pages where PageID.isValid(pageID) && !exists(pageID + ".json") {
            set(pageID + ".json", Self.standInPage(pageID))
            notes.append("\(pageID).json: a stand-in page (\(name) opens it; it was not recorded)")
        }
        let declared = try declaredActions()
        for action in actions where ActionName.isValid(action) && declared[action] == nil {
            var answers = try server(of: base)["actions"]?.objectValue ?? JSONObject()
            answers[action] = Self.standInAction(action)
            try setServer(base, "actions", .object(answers))
            notes.append("\(base): a stand-in answer for action \(action) (\(name) fires it; it was not recorded)")
        }
    }
}
