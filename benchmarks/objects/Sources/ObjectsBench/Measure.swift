import BenchModels
import Foundation

// Statistics and the deterministic random orders shared by all engines
// (machine facts: BenchModels' Machine).

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

/// realmlite-open, beside this binary: RealmLite alone (the memory rows' child).
var realmLiteOpenBinary: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("realmlite-open")
}
