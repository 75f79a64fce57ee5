import BFFServer
import FuzzSupport
import PageModel

/// libFuzzer target for the configuration readers and the request headers the server interprets itself:
/// `X-Flow-Client` (``ClientCapabilities``), `X-Flow-Mock` (``FaultSpec``) and `Accept-Language`.
///
/// Input: one selector byte (which parser, modulo 5), then
/// 0. the contents of a configuration file (``ConfigurationLoader/load(contents:source:)``);
/// 1. a key index byte, then a value as text, applied as a flag and as its `FLOW_BFF_*` variable;
/// 2. an `X-Flow-Client` value; 3. an `X-Flow-Mock` value; 4. an `Accept-Language` value.
///
/// Properties, besides "never traps": a flag and its environment variable mean the same; the canonical forms
/// (`profileKey`, `FaultSpec.description`) parse back to the same value; latency samples stay in range.
enum ConfigHeadersFuzzTarget {
    static func run(_ buffer: UnsafeRawBufferPointer) {
        var input = FuzzInput(buffer)
        switch input.byte() % 5 {
        case 0:
            _ = try? ConfigurationLoader().load(contents: Array(input.rest))
        case 1:
            let key = ConfigurationKey.all[Int(input.byte()) % ConfigurationKey.all.count]
            let text = input.restText
            let loader = ConfigurationLoader()
            let flag = Result { () throws(ConfigurationError) in
                try loader.load(files: [], environment: [:], flags: [key.path: text])
            }
            let variable = Result { () throws(ConfigurationError) in
                try loader.load(files: [], environment: [key.environmentVariable: text])
            }
            fuzzCheck(
                (try? flag.get()) == (try? variable.get()),
                "\(key.path) and \(key.environmentVariable) disagree on \"\(text)\"")
        case 2:
            guard let capabilities = try? ClientCapabilities(header: input.restText) else { return }
            let canonical = capabilities.profileKey
            let again = try? ClientCapabilities(header: canonical)
            fuzzCheck(again == capabilities, "profile key \"\(canonical)\" does not parse back to \(capabilities)")
        case 3:
            guard let spec = try? FaultSpec.parse(input.restText) else { return }
            let again = try? FaultSpec.parse(spec.description)
            fuzzCheck(again == spec, "\"\(spec.description)\" does not parse back to the same specification")
            if let latency = spec.latency {
                var random = SplitMix64(seed: 42)
                for _ in 0..<4 {
                    let sample = latency.sample(&random)
                    fuzzCheck(
                        sample.isFinite && sample >= 0 && sample <= LatencyDistribution.maximumMs,
                        "latency sample \(sample) from \(latency)")
                }
            }
        default:
            let ranges = AcceptLanguage.ranges(input.restText)
            fuzzCheck(ranges.count <= 32, "\(ranges.count) language ranges")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigHeaders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    ConfigHeadersFuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#if !FLOW_BFF_FUZZING
    @main
    enum Replay {
        static func main() { FuzzReplay.main(ConfigHeadersFuzzTarget.run) }
    }
#endif
