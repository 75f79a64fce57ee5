import Foundation
import PageModel

/// Deterministic fake values (pages/README.md § Fake data): `{{fake.name}}`, `{{fake.price 5 80 EUR}}`, … in a data
/// file's `$generate` document and in page templates. Drawn in document order from a SplitMix64 generator seeded
/// by the document's `seed` (a page template: by its page id), with this type's own arithmetic, so the same seed
/// gives the same values byte for byte, on every machine and toolchain. Dates are relative to the day the files
/// load (UTC): the same on every restart that day.
struct FakeData {
    /// The generators and their arguments, for messages and "did you mean".
    static let generators: [String: String] = [
        "name": "", "firstName": "", "lastName": "", "product": "", "address": "", "city": "",
        "price": "MIN MAX [CURRENCY]", "number": "MIN MAX", "date": "FROM_DAYS TO_DAYS", "image": "WIDTH HEIGHT",
        "pick": "WORD WORD…", "sequence": "START", "boolean": "",
    ]

    static let firstNames = [
        "Ada", "Ben", "Chiara", "Dmitri", "Elif", "Farah", "Gustav", "Hana", "Ivo", "Jonas", "Kemal", "Lena", "Mateo",
        "Nora", "Oskar", "Priya", "Quinn", "Rosa", "Samir", "Tove", "Uma", "Viktor", "Wen", "Yusuf", "Zoe",
    ]
    static let lastNames = [
        "Andersen", "Becker", "Costa", "Dubois", "Eriksen", "Fischer", "García", "Horvat", "Ito", "Jansen", "Kowalski",
        "Laurent", "Moreau", "Novak", "Okafor", "Petrov", "Rossi", "Schmidt", "Tanaka", "Varga", "Weber", "Yilmaz",
    ]
    static let materials = ["Stoneware", "Cast Iron", "Linen", "Walnut", "Enamel", "Glass", "Copper", "Olive Wood"]
    static let things = [
        "Espresso Cups", "Skillet", "Tea Towels", "Cutting Board", "Dutch Oven", "Storage Jars", "Measuring Spoons",
        "Pour-Over Dripper", "Salad Servers", "Bread Bin", "Butter Dish", "Pasta Bowls",
    ]
    static let streets = ["Mill Lane", "Station Road", "Church Street", "Harbour Way", "Orchard Close", "Kingsway"]
    static let cities = ["Bristol", "Leeds", "Utrecht", "Lyon", "Porto", "Graz", "Aarhus", "Bologna", "Gdańsk"]
    static let currencies = ["EUR": "€", "USD": "$", "GBP": "£", "JPY": "¥"]

    private var random: SplitMix64
    /// The item being generated (`sequence` counts from it).
    var index = 0
    /// The placeholder image service: `{width}`, `{height}` and `{n}` are filled.
    let imageURL: String
    /// The day dates count from.
    let today: Date

    init(seed: UInt64, imageURL: String, today: Date = Date()) {
        random = SplitMix64(seed: seed)
        self.imageURL = imageURL
        self.today = today
    }

    /// A seed from text (a page id): the first 8 bytes of its SHA-256.
    static func seed(_ text: String) -> UInt64 {
        Crypto.sha256(Array(text.utf8)).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// `0..<count`, uniformly (multiply-shift: no modulo bias worth the name for these small ranges).
    private mutating func below(_ count: Int) -> Int {
        Int((UInt64(truncatingIfNeeded: count).multipliedFullWidth(by: random.next())).high)
    }

    private mutating func pick<T>(_ list: [T]) -> T { list[below(list.count)] }

    /// The value of `{{fake.<name> <arguments>}}`.
    /// - Throws: `unknown_generator` (with the closest name) or `invalid_generator` for arguments that do not fit.
    mutating func value(_ name: String, _ arguments: [String]) throws(MatchingError) -> JSONValue {
        func integers(_ count: Int, ordered: Bool = true) throws(MatchingError) -> [Int] {
            let numbers = arguments.prefix(count).compactMap { Int($0) }
            guard numbers.count == count, !ordered || count < 2 || numbers[0] <= numbers[1],
                numbers.allSatisfy({ (-100_000_000...100_000_000).contains($0) })
            else {
                let rule = ordered && count == 2 ? "whole numbers, MIN ≤ MAX" : "whole numbers"
                throw MatchingError("invalid_generator", "fake.\(name) takes \(Self.generators[name] ?? ""): \(rule)")
            }
            return numbers
        }
        switch name {
        case "firstName": return .string(pick(Self.firstNames))
        case "lastName": return .string(pick(Self.lastNames))
        case "name": return .string(pick(Self.firstNames) + " " + pick(Self.lastNames))
        case "product": return .string(pick(Self.materials) + " " + pick(Self.things))
        case "city": return .string(pick(Self.cities))
        case "address": return .string("\(1 + below(120)) \(pick(Self.streets)), \(pick(Self.cities))")
        case "boolean": return .bool(below(2) == 1)
        case "number":
            let bounds = try integers(2)
            return .number(Double(bounds[0] + below(bounds[1] - bounds[0] + 1)))
        case "sequence":
            return .number(Double(try integers(1)[0] + index))
        case "pick":
            guard !arguments.isEmpty else {
                throw MatchingError("invalid_generator", "fake.pick takes the words to pick from")
            }
            return .string(pick(arguments))
        case "price":
            let bounds = try integers(2)
            let code = arguments.count > 2 ? arguments[2].uppercased() : "EUR"
            let cents = bounds[0] * 100 + below((bounds[1] - bounds[0]) * 100 + 1)
            let amount = "\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100)"
            return .string(Self.currencies[code].map { $0 + amount } ?? "\(code) \(amount)")
        case "date":
            let bounds = try integers(2)
            let day = bounds[0] + below(bounds[1] - bounds[0] + 1)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let date = calendar.date(byAdding: .day, value: day, to: calendar.startOfDay(for: today)) ?? today
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
            return .string("\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day))")
        case "image":
            let size = try integers(2, ordered: false)
            let url = imageURL.replacingOccurrences(of: "{width}", with: String(size[0]))
                .replacingOccurrences(of: "{height}", with: String(size[1]))
                .replacingOccurrences(of: "{n}", with: String(below(1000)))
            return .string(url)
        default:
            let hint =
                NearMiss.closest(to: name, among: Self.generators.keys).map { " (did you mean fake.\($0)?)" } ?? ""
            throw MatchingError(
                "unknown_generator",
                "unknown generator fake.\(name)\(hint); generators: "
                    + Self.generators.keys.sorted().map { "fake.\($0)" }.joined(separator: ", "))
        }
    }

    /// `value` with every `{{fake.…}}` placeholder of its strings filled (a string that is one placeholder keeps
    /// the value's type: `{{fake.number 1 5}}` is a number). Other placeholders are errors: a `$generate` item knows
    /// only generators.
    mutating func fill(_ value: JSONValue, at path: JSONPointer, diagnostics: inout [Diagnostic]) -> JSONValue {
        switch value {
        case .string(let text) where text.contains("{{"):
            do throws(MatchingError) {
                let pieces = try TemplateText.split(text)
                var values: [JSONValue] = []
                for case .placeholder(let name, _) in pieces {
                    guard let (generator, arguments) = Self.call(name) else {
                        throw MatchingError(
                            "unknown_generator", "\"\(name)\" is not a generator; a $generate item takes {{fake.…}}")
                    }
                    values.append(try self.value(generator, arguments))
                }
                if pieces.count == 1, case .placeholder(_, let asText) = pieces[0], let only = values.first {
                    return asText ? .string(only.templateText) : only
                }
                var result = ""
                var next = values.makeIterator()
                for piece in pieces {
                    switch piece {
                    case .literal(let part): result += part
                    case .placeholder: result += next.next()?.templateText ?? ""
                    }
                }
                return .string(result)
            } catch {
                diagnostics.append(.error(error.code, path, error.message))
                return value
            }
        case .array(let items):
            return .array(items.enumerated().map { fill($1, at: path / $0, diagnostics: &diagnostics) })
        case .object(let object):
            return .object(
                JSONObject(
                    object.members.map {
                        .init(key: $0.key, value: fill($0.value, at: path / $0.key, diagnostics: &diagnostics))
                    }
                ))
        default:
            return value
        }
    }

    /// A data file's `{"$generate": {"count": 45, "seed": 7, "item": {…}}}`: `count` items made from `item` with
    /// fake values, deterministic for the seed (default 1). `nil` when `document` is not one.
    static func generated(
        _ document: JSONValue, imageURL: String, today: Date = Date(), diagnostics: inout [Diagnostic]
    ) -> JSONValue? {
        guard case .object(let root) = document, let settings = root["$generate"] else { return nil }
        let path = JSONPointer.root / "$generate"
        guard root.count == 1, case .object(let object) = settings else {
            diagnostics.append(
                .error(
                    "invalid_generator", path,
                    "a generated document is {\"$generate\": {\"count\": N, \"seed\"?: N, \"item\": {…}}} alone"))
            return nil
        }
        for member in object.members where !["count", "seed", "item"].contains(member.key) {
            diagnostics.append(.error("unknown_setting", path / member.key, "$generate has count, seed and item"))
        }
        guard let count = object["count"]?.intValue, (0...100_000).contains(count) else {
            diagnostics.append(.error("invalid_generator", path / "count", "count is an integer 0–100000"))
            return nil
        }
        let seed = object["seed"]?.intValue ?? 1
        guard let item = object["item"] else {
            diagnostics.append(.error("invalid_generator", path / "item", "item is the template of each item"))
            return nil
        }
        var fake = FakeData(seed: UInt64(bitPattern: Int64(seed)), imageURL: imageURL, today: today)
        var items: [JSONValue] = []
        items.reserveCapacity(count)
        let errorsBefore = diagnostics.count
        for index in 0..<count {
            fake.index = index
            // Findings are the same for every item: reported once.
            var found: [Diagnostic] = []
            items.append(fake.fill(item, at: path / "item", diagnostics: &found))
            if index == 0 { diagnostics += found }
        }
        return diagnostics.count == errorsBefore ? .array(items) : nil
    }

    /// Splits `fake.price 5 80 EUR` into the generator's name and its arguments; `nil` when `text` is not `fake.…`.
    static func call(_ text: String) -> (name: String, arguments: [String])? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let first = words.first, first.hasPrefix("fake."), first.count > 5 else { return nil }
        return (String(first.dropFirst(5)), Array(words.dropFirst()))
    }
}
