import Foundation

// Two builds of one harness (ObjectOps.swift):
//  - libFuzzer (fuzz/Makefile `fuzz-objects`, -DLIBFUZZER -sanitize=fuzzer):
//    main hands the arguments to libFuzzer's driver;
//  - a plain program (built by `swift build`, run by `make test`):
//      objectfuzz replay FILE|DIR...      runs each input
//      objectfuzz random SEED RUNS        runs RUNS seeded random inputs
//    and exits 1 with the failing input's name at the first difference.

let fuzzFile = URL(fileURLWithPath: "/dev/shm").appendingPathComponent("objectfuzz-\(getpid()).realm")

func runInput(_ bytes: [UInt8]) -> FuzzFailure? {
    do {
        try ObjectOpsRun(bytes, url: fuzzFile).run()
        return nil
    } catch let failure as FuzzFailure {
        return failure
    } catch {
        return FuzzFailure(description: "error: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let failure = runInput(bytes) {
        FileHandle.standardError.write(Data("objectfuzz: \(failure)\n".utf8))
        abort()
    }
    return 0
}

#if LIBFUZZER
/// libFuzzer's driver, for programs with their own main (SwiftPM gives an
/// executable target's entry point its own name, so libFuzzer's main is
/// not used).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                     _ body: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

@main
struct ObjectFuzzMain {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv) { fuzzOneInput($0, $1) })
    }
}
#else
@main
struct ObjectFuzzMain {
    static func main() {
        let args = CommandLine.arguments.dropFirst()
        switch args.first {
        case "replay":
            var count = 0
            for path in args.dropFirst() {
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                let files = isDirectory.boolValue
                    ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 }
                    : [path]
                for file in files {
                    guard let data = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
                    if let failure = runInput([UInt8](data)) { fail("\(file): \(failure)") }
                    count += 1
                }
            }
            print("objectfuzz: \(count) inputs replayed, all matched the model")
        case "random":
            guard args.count == 3, let seed = UInt64(args[args.startIndex + 1]), let runs = Int(args[args.startIndex + 2]) else { usage() }
            var generator = SplitMix64(seed: seed)
            for run in 0..<runs {
                let length = Int(generator.next() % 3000) + 1
                let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                if let failure = runInput(bytes) { fail("seed \(seed) run \(run): \(failure)") }
            }
            print("objectfuzz: \(runs) random inputs (seed \(seed)) matched the model")
        default:
            usage()
        }
        try? FileManager.default.removeItem(at: fuzzFile)
        try? FileManager.default.removeItem(atPath: fuzzFile.path + ".lock")
    }

    static func usage() -> Never {
        FileHandle.standardError.write(Data("usage: objectfuzz replay FILE|DIR... | objectfuzz random SEED RUNS\n".utf8))
        exit(2)
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("objectfuzz: \(message)\n".utf8))
        exit(1)
    }
}

/// A small seeded generator, so a failing random run can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
#endif
