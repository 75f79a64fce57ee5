/// Reading `minAppVersion`, `requires` and `fallback` on widgets and sections (docs/contract.md § 17). Problems are
/// `invalid_compatibility` errors and the member is ignored; they never fail the document.
extension DecodingContext {
    static let compatibilityKeys = ["minAppVersion", "requires", "fallback"]

    mutating func compatibility(
        _ object: JSONObject, at path: LazyPointer, widgetID: String, isSection: Bool
    ) -> Compatibility {
        var result = Compatibility()
        guard object["minAppVersion"] != nil || object["requires"] != nil || object["fallback"] != nil else {
            return result
        }
        func problem(_ key: String, _ message: String) {
            diagnostics.append(
                .error("invalid_compatibility", path.pointer / key, widgetID: isSection ? nil : widgetID, message))
        }
        switch object["minAppVersion"] {
        case nil, .null?: break
        case .string(let text)?:
            if let version = AppVersion(text) {
                result.minAppVersion = .all(version)
            } else {
                problem("minAppVersion", "minAppVersion \"\(text)\" is not a dotted version like 3.2.0")
            }
        case .object(let platforms)?:
            var versions: [String: AppVersion] = [:]
            for member in platforms.members {
                if let text = member.value.stringValue, let version = AppVersion(text) {
                    versions[member.key] = version
                } else {
                    problem("minAppVersion", "minAppVersion.\(member.key) must be a dotted version string")
                }
            }
            if !versions.isEmpty { result.minAppVersion = MinimumAppVersion(versions) }
        case let other?:
            problem("minAppVersion", "minAppVersion is a version string or an object of them, found \(other.typeName)")
        }
        switch object["requires"] {
        case nil, .null?: break
        case .array(let entries)?:
            for (index, entry) in entries.enumerated() {
                guard let text = entry.stringValue, let requirement = try? Requirement(parsing: text) else {
                    problem("requires/\(index)", "a requirement is a string \"name\" or \"name@version\"")
                    continue
                }
                result.requires.append(requirement)
            }
        case let other?:
            problem("requires", "requires is an array of strings, found \(other.typeName)")
        }
        guard let fallback = object["fallback"], !fallback.isNull else { return result }
        if fallback.stringValue == "drop" {
            result.fallback = .drop
        } else if !isSection, let replacement = fallback["widget"] {
            if var widget = self.widget(replacement, at: path / "fallback" / "widget") {
                if widget.isGeneratedID {
                    widget.id = widgetID
                    widget.isGeneratedID = false
                }
                result.fallback = .widget(widget)
            }
        } else if !isSection, let category = fallback["category"] {
            if let name = category.stringValue, GenericCategory(rawValue: name) != nil {
                result.fallback = .category(name)
            } else {
                problem(
                    "fallback/category",
                    "category is one of \(GenericCategory.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        } else if isSection, let replacement = fallback["section"] {
            if let section = try? self.section(replacement, at: path / "fallback" / "section") {
                result.fallback = .section(section)
            } else {
                problem("fallback/section", "the fallback section must be a section object")
            }
        } else {
            problem(
                "fallback",
                isSection
                    ? "a section fallback is \"drop\" or {\"section\": Section}"
                    : "a widget fallback is \"drop\", {\"widget\": Widget} or {\"category\": name}")
        }
        return result
    }
}
