import BenchModels
import Foundation

// Probes for single rows (not part of `make bench`):
//
//   objects-bench --pk-probe ENGINE DIR N LOOKUPS ROUNDS
//   objects-bench --make-big ENGINE DIR     (the cold-open row's database)
//
// Inserts N Person objects in a fresh ENGINE database in DIR, then prints
// the nanoseconds per random pk lookup of each round (fresh keys per round,
// after one untimed round), one line per round: for profiling and for
// comparing changes to the lookup path under a chosen machine load.
func pkProbeMain(_ arguments: [String]) -> Never {
    guard arguments.count == 5, let type = engineType(arguments[0]), let n = Int(arguments[2]),
          let lookups = Int(arguments[3]), let rounds = Int(arguments[4]) else {
        fatalError("usage: objects-bench --pk-probe ENGINE DIR N LOOKUPS ROUNDS")
    }
    do {
        let directory = URL(fileURLWithPath: arguments[1])
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let engine = try type.init(directory: directory)
        try engine.insertPeople(0..<n)
        _ = try engine.lookupNames(ids: randomInts(lookups, below: n, seed: 1))
        for round in 0..<rounds {
            let ids = randomInts(lookups, below: n, seed: 100 + UInt64(round))
            let (secs, sum) = try timed { try engine.lookupNames(ids: ids) }
            guard sum == ids.reduce(0, { $0 + PersonValues($1).name.utf8.count }) else { fatalError("wrong names") }
            print(String(format: "%@ %.1f ns", type.name, secs / Double(lookups) * 1e9))
        }
        try engine.close()
    } catch {
        fatalError("\(error)")
    }
    exit(0)
}

/// `--make-big ENGINE DIR`: the big database of the cold-open and memory
/// rows, as `make bench` makes it, kept in DIR for cold-open experiments.
func makeBigMain(_ arguments: [String]) -> Never {
    guard arguments.count == 2, let type = engineType(arguments[0]) else { fatalError("usage: objects-bench --make-big ENGINE DIR") }
    do {
        let directory = URL(fileURLWithPath: arguments[1])
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sizes = Sizes()
        try type.createBig(at: directory, count: sizes.bigObjects, bioBytes: sizes.bioBytes)
    } catch {
        fatalError("\(error)")
    }
    exit(0)
}
