import BenchModels
import Foundation

// Statistics, machine facts and the deterministic random orders
// shared by all engines.

/// SplitMix64: the same pseudo-random ids for every engine and run.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func randomInts(_ count: Int, below bound: Int, seed: UInt64) -> [Int] {
    var rng = SeededRandom(state: seed)
    return (0..<count).map { _ in Int.random(in: 0..<bound, using: &rng) }
}

/// Drops the page cache of every file in `directory`
/// (posix_fadvise DONTNEED: no privileges needed), for cold opens.
func dropPageCache(of directory: URL) {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    for file in files {
        let fd = open(directory.appendingPathComponent(file).path, O_RDONLY)
        guard fd >= 0 else { continue }
        fdatasync(fd)
        posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED))
        close(fd)
    }
}

func directoryBytes(_ directory: URL) -> Int {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return files.reduce(0) { sum, file in
        sum + ((try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(file).path)[.size] as? Int) ?? 0)
    }
}

enum Machine {
    static var cpu: String {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = info.split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        return "\(model) (\(ProcessInfo.processInfo.activeProcessorCount) CPUs online)"
    }

    static var kernel: String {
        var name = utsname()
        uname(&name)
        return withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    static var loadAverage: String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "")
            .split(separator: " ").prefix(3).joined(separator: " ")
    }
}
