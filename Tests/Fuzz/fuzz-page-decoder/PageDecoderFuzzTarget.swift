import FuzzSupport
import PageModel

/// libFuzzer target for the JSON parser and the lenient page decoder (``JSONParser``, ``PageDecoder``), the
/// validator and mutation application: everything a client or `flow-bff check` does with untrusted JSON.
///
/// Input: a JSON document (page envelope, next page, action response, bare page or widget, or anything else).
/// Properties, besides "never traps, never overflows the stack":
/// - JSON: `parse(write(parse(x))) == parse(x)`;
/// - decoding is a fixed point once normalised: `encode(decode(y)) == y` for every `y = encode(decode(x))`;
/// - an action response's mutations apply to a page, or fail with a thrown contract error.
enum PageDecoderFuzzTarget {
    static let decoder = PageDecoder()
    static let validator = PageValidator()
    /// The page mutations are applied to: ids that the seed corpus's mutations target.
    static let basePage: PageModel? = {
        let text = """
            {"schemaVersion":1,"kind":"page","page":{"id":"cart","title":"Cart",
             "header":[{"id":"title","type":"text","content":{"text":"Cart"}}],
             "sections":[{"id":"items","widgets":[{"id":"qty.p-1042","type":"stepper","content":{"value":1}},
               {"id":"accordion","type":"accordion","content":{"title":"More"},
                "children":[{"id":"child","type":"text","content":{"text":"x"}}]}]}],
             "footer":[{"id":"checkout","type":"button","content":{"title":"Pay"}}]}}
            """
        return try? decoder.decodePage(Array(text.utf8)).value
    }()

    static func run(_ buffer: UnsafeRawBufferPointer) {
        let bytes = Array(buffer)
        guard let json = try? JSONParser().parse(bytes) else { return }
        let written = JSONWriter().write(json)
        let reparsed = try? JSONParser().parse(written)
        fuzzCheck(reparsed == json, "JSON does not survive write/parse: \(String(decoding: written, as: UTF8.self))")

        if let decoded = try? decoder.decodeEnvelope(json: json) {
            let envelope = decoded.value
            let encoded = envelope.encoded()
            let again = try? decoder.decodeEnvelope(encoded).value.encoded()
            fuzzCheck(
                again == encoded,
                "decoding is not a fixed point: \(String(decoding: encoded, as: UTF8.self)) becomes "
                    + (again.map { String(decoding: $0, as: UTF8.self) } ?? "an error"))
            switch envelope {
            case .page(let page):
                _ = validator.validate(page)
            case .nextPage(let next):
                for (index, section) in next.sections.enumerated() {
                    _ = validator.validate(section, at: JSONPointer.root / "sections" / index)
                }
            case .actionResponse(let response):
                guard var page = basePage else { break }
                var diagnostics: [Diagnostic] = []
                for mutation in response.mutations {
                    guard let next = try? page.applying(mutation, diagnostics: &diagnostics) else { break }
                    page = next
                }
                _ = validator.validate(page)
            }
        }
        if let page = try? decoder.decodePage(json: json).value {
            _ = validator.validate(page)
        }
        _ = decoder.decodeWidget(json: json)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPageDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    PageDecoderFuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#if !FLOW_BFF_FUZZING
    @main
    enum Replay {
        static func main() { FuzzReplay.main(PageDecoderFuzzTarget.run) }
    }
#endif
