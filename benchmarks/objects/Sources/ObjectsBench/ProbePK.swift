import BenchModels
import Foundation

// A probe for the pk-lookup row alone (not part of `make bench`):
//
//   objects-bench --pk-probe ENGINE DIR N LOOKUPS ROUNDS
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
