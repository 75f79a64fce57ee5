extension Compatibility {
    /// Appends `fallback`, `minAppVersion` and `requires` (in that order, each only when set) to a widget or
    /// section object.
    func write(into object: inout JSONObject) {
        guard !isEmpty else { return }
        if let fallback {
            switch fallback {
            case .drop: object["fallback"] = "drop"
            case .widget(let widget): object["fallback"] = ["widget": widget.json]
            case .category(let name): object["fallback"] = ["category": .string(name)]
            case .section(let section): object["fallback"] = ["section": section.json]
            }
        }
        if let minAppVersion {
            if minAppVersion.versions.count == 1, let all = minAppVersion.versions["*"] {
                object["minAppVersion"] = .string(all.description)
            } else {
                object["minAppVersion"] = .object(
                    JSONObject(
                        minAppVersion.versions.keys.sorted().map {
                            .init(key: $0, value: .string(minAppVersion.versions[$0]!.description))
                        }))
            }
        }
        if !requires.isEmpty { object["requires"] = .array(requires.map { .string($0.description) }) }
    }
}
