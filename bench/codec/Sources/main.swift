// bench-codec: PageModel decode + validate throughput against a bare JSONSerialization parse of the same bytes.
//
// Usage: swift run -c release bench-codec [page.json ...]   (bench/codec/run does this for the sample pages)
// Prints MB/s for both and the ratio codec / JSONSerialization, the median of several alternating rounds.
import Foundation
import PageModel

/// A deterministic page of about `targetBytes` encoded bytes: sections of product cards, rows and accordions.
func generatedPage(targetBytes: Int) -> [UInt8] {
    var sections: [Section] = []
    var index = 0
    while true {
        var widgets: [Widget] = []
        for item in 0..<5 {
            let n = index * 5 + item
            widgets.append(
                Widget(
                    id: "card-\(n)", type: "product_card",
                    content: [
                        "title": .string("Product number \(n) — a sturdy, well-made thing"),
                        "price": .string("€\(n % 97).\(n % 10)0"),
                        "imageURL": .string("https://img.example.com/p/\(n).jpg"),
                        "badge": n % 3 == 0 ? "new" : nil,
                    ], actions: ["tap": .openBottomSheet(pageID: "product", parameters: ["productID": "\(n)"])]))
        }
        widgets.append(
            Widget(
                id: "more-\(index)", type: "accordion", content: ["title": "Details \(index)", "expanded": false],
                children: [Widget(id: "d", type: "text", content: ["text": "Free returns within 30 days. \(index)"])]))
        sections.append(Section(id: "section-\(index)", title: "Section \(index)", widgets: widgets))
        index += 1
        let bytes = Envelope.page(PageModel(id: "generated", title: "Generated", sections: sections)).encoded()
        if bytes.count >= targetBytes { return bytes }
    }
}

struct Input {
    var name: String
    var bytes: [UInt8]
}

func measure(_ bytes: [UInt8], minimumDuration: Duration = .milliseconds(300), _ body: () throws -> Void) rethrows
    -> Double
{
    let clock = ContinuousClock()
    var iterations = 0
    let start = clock.now
    var elapsed = Duration.zero
    repeat {
        try body()
        iterations += 1
        elapsed = clock.now - start
    } while elapsed < minimumDuration
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    return Double(bytes.count * iterations) / seconds / 1_000_000
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

var inputs: [Input] = []
for path in CommandLine.arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("bench-codec: cannot read \(path)\n".utf8))
        exit(2)
    }
    inputs.append(Input(name: (path as NSString).lastPathComponent, bytes: Array(data)))
}
inputs.append(Input(name: "generated-200KB", bytes: generatedPage(targetBytes: 200_000)))

let decoder = PageDecoder()
let validator = PageValidator()
let rounds = 5
print("input                 bytes   JSONSerialization MB/s   decode+validate MB/s   ratio")
var worst = Double.infinity
for input in inputs {
    // Sanity: the page must decode without errors, or the figure means nothing.
    let decoded = try decoder.decodePage(input.bytes)
    let findings = decoded.diagnostics + validator.validate(decoded.value)
    if findings.containsErrors {
        print("\(input.name): has error diagnostics, skipped: \(findings.filter { $0.severity == .error }.prefix(3))")
        continue
    }
    let data = Data(input.bytes)
    var baseline: [Double] = []
    var codec: [Double] = []
    for _ in 0..<rounds {
        baseline.append(try measure(input.bytes) { _ = try JSONSerialization.jsonObject(with: data) })
        codec.append(
            try measure(input.bytes) {
                let page = try decoder.decodePage(input.bytes)
                _ = validator.validate(page.value)
            })
    }
    let ratio = median(codec) / median(baseline)
    worst = min(worst, ratio)
    print(
        input.name.padding(toLength: 20, withPad: " ", startingAt: 0),
        String(input.bytes.count).leftPad(7),
        String(format: "%.1f", median(baseline)).leftPad(24),
        String(format: "%.1f", median(codec)).leftPad(22),
        String(format: "%.2fx", ratio).leftPad(7))
}
print(String(format: "worst ratio: %.2fx (target ≥ 1.50x, issue 19; was ≥ 0.80x)", worst))

extension String {
    func leftPad(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
