import Foundation

/// The `main` of a fuzz target outside libFuzzer: runs the target's body once per saved input, so a reproducer
/// can be replayed (and debugged) with a normal build: `swift run fuzz-http-parser crash-…`.
///
/// Built with `scripts/fuzz` (`-DFLOW_BFF_FUZZING`), a target has no `main` of its own and libFuzzer's drives
/// the same body through `LLVMFuzzerTestOneInput`.
public enum FuzzReplay {
    /// Runs `body` over every file named on the command line (directories: every regular file inside them).
    /// Exits 0 after the last input, 64 without arguments; a failing input traps inside `body`.
    public static func main(_ body: (UnsafeRawBufferPointer) -> Void) -> Never {
        let arguments = CommandLine.arguments.dropFirst()
        guard !arguments.isEmpty else {
            FileHandle.standardError.write(Data("usage: \(CommandLine.arguments[0]) FILE|DIRECTORY…\n".utf8))
            exit(64)
        }
        var count = 0
        for path in arguments.flatMap(files(at:)) {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                exit(66)
            }
            data.withUnsafeBytes { body($0) }
            count += 1
        }
        print("replayed \(count) input(s) without a failure")
        exit(0)
    }

    static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return [path]
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { path + "/" + $0 }.filter {
            var nested: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &nested) && !nested.boolValue
        }
    }
}
