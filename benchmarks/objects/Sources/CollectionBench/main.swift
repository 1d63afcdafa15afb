// What a List, MutableSet or Map change costs as the collection grows
// (RealmLite alone, in-memory Realm, release build): one append in its own
// write, many appends in one write, index access, iteration, set contains,
// map lookup, and the file bytes a List<Int> element costs. Prints a table;
// every result read is checked, never its time.
//
//   collection-bench [--quick] [--only single|many|read|keyed|file]

import Foundation
import RealmLite

final class BenchListOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var numbers: List<Int>
    @Persisted var tags: MutableSet<Int>
    @Persisted var scores: Map<String, Int>
}

let quick = CommandLine.arguments.contains("--quick")
let big = quick ? 100_000 : 1_000_000
/// One section alone (profiling).
let only = CommandLine.arguments.firstIndex(of: "--only").map { CommandLine.arguments[$0 + 1] }
func runs(_ section: String) -> Bool { only == nil || only == section }

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds, cpuStart = threadCPU()
    try body()
    lastCPU = threadCPU() - cpuStart
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// This thread's CPU time: steadier than wall time on a shared machine.
func threadCPU() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The CPU seconds of the last `seconds` call.
nonisolated(unsafe) var lastCPU = 0.0

func memoryRealm(_ name: String) throws -> Realm {
    try Realm(configuration: Realm.Configuration(inMemoryIdentifier: name, objectTypes: [BenchListOwner.self]))
}

func row(_ label: String, _ value: String) {
    print(label.padding(toLength: 58, withPad: " ", startingAt: 0), value)
    fflush(nil)
}

func format(_ value: Double) -> String { String(format: "%.3g", value) }

/// An owner whose list holds `size` elements (appended in batches): 0,
/// 1, 2, ... each times `scale`.
func owner(in realm: Realm, id: Int, size: Int, scale: Int = 1) throws -> BenchListOwner {
    let owner = try realm.write { realm.create(BenchListOwner.self, value: ["id": id]) }
    var added = 0
    while added < size {
        let n = min(100_000, size - added)
        try realm.write { owner.numbers.append(objectsIn: (added..<(added + n)).lazy.map { $0 &* scale }) }
        added += n
    }
    return owner
}

print("collection-bench (\(quick ? "quick" : "full"), in-memory, release)")
if runs("single") {
    let realm = try memoryRealm("single")
    for (i, size) in [10, 100_000].enumerated() {
        let o = try owner(in: realm, id: i, size: size)
        let reps = 2_000
        let t = try seconds { for r in 0..<reps { try realm.write { o.numbers.append(r) } } }
        precondition(o.numbers.count == size + reps)
        row("one append in its own write, List of \(size)", "\(format(t / Double(reps) * 1e6)) µs")
    }
}
if runs("many") {
    let realm = try memoryRealm("many")
    for (i, size) in [1_000, 10_000, 30_000, 100_000, big].enumerated() {
        let o = try owner(in: realm, id: i, size: 0)
        let t = try seconds { try realm.write { for r in 0..<size { o.numbers.append(r) } } }
        precondition(o.numbers.count == size && o.numbers[size - 1] == size - 1)
        row("appends one at a time in one write, to \(size)", "\(format(Double(size) / t)) elements/s")
    }
    // The list above was the last in the tree (appends at its right
    // edge); this one has another list after it.
    let inner = try owner(in: realm, id: 10, size: 100)
    _ = try owner(in: realm, id: 11, size: 100)
    let t = try seconds { try realm.write { for r in 0..<big { inner.numbers.append(r) } } }
    precondition(inner.numbers.count == big + 100 && inner.numbers[big + 99] == big - 1)
    row("appends one at a time in one write, to \(big), not the last list", "\(format(Double(big) / t)) elements/s")
}
if runs("read") {
    let realm = try memoryRealm("read")
    let o = try owner(in: realm, id: 1, size: big)
    let reps = 200_000
    var sum = 0
    let access = seconds { for r in 0..<reps { sum &+= o.numbers[(r &* 7919) % big] } }
    precondition(sum != 0)
    row("index access, List of \(big)", "\(format(access / Double(reps) * 1e6)) µs (cpu \(format(lastCPU / Double(reps) * 1e6)) µs)")
    var total = 0
    let iterate = seconds { for n in o.numbers { total &+= n } }
    precondition(total == (big - 1) * big / 2)
    row("iterate a List<Int> of \(big)", "\(format(Double(big) / iterate)) elements/s (cpu \(format(Double(big) / lastCPU)) /s)")
}
if runs("keyed") {
    // Sets and maps above 64 entries live in the collections tree: one
    // descent per contains or lookup.
    let realm = try memoryRealm("keyed")
    for (i, size) in [10_000, 100_000, big].enumerated() where i < 2 || big > 100_000 {
        let o = try realm.write { realm.create(BenchListOwner.self, value: ["id": 10 + i]) }
        var added = 0
        while added < size {
            let n = min(100_000, size - added)
            try realm.write {
                o.tags.insert(objectsIn: added..<(added + n))
                for k in added..<(added + n) { o.scores["k\(k)"] = k }
            }
            added += n
        }
        precondition(o.tags.count == size && o.scores.count == size)
        let reps = 200_000
        var found = 0
        let contains = seconds { for r in 0..<reps where o.tags.contains((r &* 7919) % (2 * size)) { found += 1 } }
        precondition(found == (0..<reps).count { (($0 &* 7919) % (2 * size)) < size })
        row("MutableSet contains, \(size) elements", "\(format(Double(reps) / contains)) /s (cpu \(format(Double(reps) / lastCPU)) /s)")
        found = 0
        let lookup = seconds { for r in 0..<reps where o.scores["k\((r &* 7919) % size)"] != nil { found += 1 } }
        precondition(found == reps)
        row("Map lookup, \(size) entries", "\(format(Double(reps) / lookup)) /s (cpu \(format(Double(reps) / lastCPU)) /s)")
    }
    // Random values below 2^32, inserted in that order: no right edge to
    // grow at, whatever the encoding. Probes: half members, half absent.
    var state: UInt64 = 88_172_645_463_325_252
    func next() -> Int {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return Int(state >> 32)
    }
    let values = (0..<big).map { _ in next() }
    let o = try realm.write { realm.create(BenchListOwner.self, value: ["id": 20]) }
    for start in stride(from: 0, to: big, by: 100_000) {
        try realm.write { o.tags.insert(objectsIn: values[start..<min(big, start + 100_000)]) }
    }
    precondition(o.tags.count == Set(values).count)
    let reps = 200_000
    var found = 0
    let contains = seconds {
        for r in 0..<reps where o.tags.contains(values[(r &* 7919) % big] + (r & 1) << 32) { found += 1 }
    }
    precondition(found == reps / 2)
    row("MutableSet contains, \(big) random elements below 2^32", "\(format(Double(reps) / contains)) /s (cpu \(format(Double(reps) / lastCPU)) /s)")
}
if runs("file") {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("collection-bench-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    func fileBytes(_ size: Int, scale: Int = 1) throws -> Int {
        let url = directory.appendingPathComponent("list-\(size)-\(scale).realm")
        try autoreleasepoolish {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [BenchListOwner.self]))
            _ = try owner(in: realm, id: 1, size: size, scale: scale)
        }
        let compacted = directory.appendingPathComponent("list-\(size)-\(scale)-compact.realm")
        try autoreleasepoolish {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [BenchListOwner.self]))
            try realm.writeCopy(toFile: compacted)
        }
        return try FileManager.default.attributesOfItem(atPath: compacted.path)[.size] as! Int
    }
    let empty = try fileBytes(0), full = try fileBytes(big)
    row("file bytes per List<Int> element (\(big), compacted)", format(Double(full - empty) / Double(big)))
    // Values of large magnitude (past 2^48 or wrapped: varints of 8 to 10 bytes).
    let large = try fileBytes(big, scale: (1 << 48) + 12_345)
    row("… elements i × (2^48 + 12345), wrapping (\(big), compacted)", format(Double(large - empty) / Double(big)))
}

func autoreleasepoolish(_ body: () throws -> Void) rethrows { try body() }
