/// `Accept-Language` parsing (RFC 9110 § 12.5.4): language ranges by descending q-value, lowercased;
/// ranges with `q=0` are dropped, ties keep the client's order.
public enum AcceptLanguage {
    public static func ranges(_ value: String) -> [String] {
        var ranked: [(range: String, quality: Double, order: Int)] = []
        for (order, element) in value.split(separator: ",").prefix(32).enumerated() {
            let parts = element.split(separator: ";")
            guard let first = parts.first else { continue }
            let range = first.trimmingSpaces.lowercased()
            guard !range.isEmpty, range.utf8.count <= 35 else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let trimmed = parameter.trimmingSpaces
                if trimmed.hasPrefix("q=") || trimmed.hasPrefix("Q=") {
                    quality = Double(trimmed.dropFirst(2)) ?? 0
                }
            }
            if quality > 0 { ranked.append((range, quality, order)) }
        }
        return ranked.sorted { ($0.quality, -$0.order) > ($1.quality, -$1.order) }.map(\.range)
    }
}
