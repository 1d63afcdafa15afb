import BenchModels
import Foundation

// objects-bench: the objects tier of `make bench` (benchmarks/README.md).
//
//   objects-bench [--quick] [--reps N] [--engines realmlite,grdb,sqlite]
//                 [--dir DIR] [--json FILE] [--source-rev REV] [--no-big] [--keep]
//   objects-bench --child ENGINE DIR ID     (internal: one cold open + lookup)
//   objects-bench --suite ENGINE DIR [--quick]  (internal: one repetition)
//
// Each repetition runs the whole suite once per engine, in a rotated order,
// on fresh files, each in a process of its own: an engine that runs after
// another in one process inherits its heap (RealmLite's pk lookups, which
// allocate an accessor each, were 37% slower after GRDB and SQLite had run
// than first in a fresh process). Each child first runs the quick suite,
// untimed, as a warm-up. Cells are medians over repetitions (min–max).

nonisolated(unsafe) let allEngines: [any Engine.Type] = [RealmLiteEngine.self, GRDBEngine.self, SQLiteEngine.self]

func engineType(_ name: String) -> (any Engine.Type)? { allEngines.first { $0.name == name } }

struct Options {
    var quick = false, reps = 5, big = true, keep = false // 5: this VM swings by a third for minutes at a time
    var engines = allEngines.map { $0.name }
    var directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("tmp")
    var json: String?
    var sourceRev = "unknown"

    init(_ arguments: [String]) {
        parseArguments(arguments) { flag, value in
            switch flag {
            case "--quick": quick = true; reps = 1
            case "--reps": reps = Int(value()) ?? 1
            case "--engines": engines = value().split(separator: ",").map(String.init)
            case "--dir": directory = URL(fileURLWithPath: value())
            case "--json": json = value()
            case "--source-rev": sourceRev = value()
            case "--no-big": big = false
            case "--keep": keep = true // leaves the last files in --dir/objects-PID, for profiling
            default: return false
            }
            return true
        }
    }
}

let specs: [WorkloadSpec] = [
    .init(name: "insert_ints", unit: .opsPerSecond, what: "GRDB suite: insert rows of 10 Ints, one transaction",
          goal: .ratioToGRDB(9.3, realmCore: "1.15M", grdb: "124k")),
    .init(name: "fetch_ints", unit: .opsPerSecond, what: "GRDB suite: fetch all rows of 10 Ints, reading every field",
          goal: .ratioToGRDB(14, realmCore: "8.1M", grdb: "0.56M")),
    .init(name: "insert_person", unit: .opsPerSecond, what: "insert the Person objects in one write transaction",
          goal: .ratioToGRDB(6.9, realmCore: "1.04M", grdb: "150k")),
    .init(name: "file_size", unit: .bytes, what: "size of the Person database after the insert (checkpointed)",
          goal: .atMost(5.0 * 1_048_576, "realm-core 5.0 MiB")),
    .init(name: "count_filtered", unit: .milliseconds, what: "count `age > 50 AND active == true` (median of repeats)",
          goal: .ratioToGRDB(13.6, realmCore: "0.59 ms", grdb: "8 ms")),
    .init(name: "enumerate", unit: .opsPerSecond, what: "enumerate every Person reading all five properties",
          goal: .ratioToGRDB(16, realmCore: "15.6M", grdb: "0.98M")),
    .init(name: "pk_lookup", unit: .opsPerSecond, what: "random lookups by primary key reading `name`",
          goal: .ratioToGRDB(96, realmCore: "3.7M", grdb: "38k")),
    .init(name: "lookup_indexed_string", unit: .opsPerSecond, what: "random lookups by an indexed String property"),
    .init(name: "lookup_unindexed_string", unit: .opsPerSecond, what: "random lookups by an unindexed String property"),
    .init(name: "sort_score", unit: .opsPerSecond, what: "sort every Person by `score`, reading each in order (objects/s)"),
    .init(name: "durable_txns", unit: .opsPerSecond, what: "durable one-object write transactions, half inserts, half updates",
          goal: .atLeast(5_000, "5k/s = 5× realm-core's 1.0k/s"), atLeastSQLite: true),
    .init(name: "durable_bytes", unit: .bytesPerTxn,
          what: "bytes those transactions wrote, per transaction (every write call on a regular file, counted at the libc boundary: IOCount)"),
    .init(name: "durable_writes", unit: .callsPerTxn, what: "write calls per durable transaction"),
    .init(name: "durable_flushes", unit: .callsPerTxn,
          what: "flushes per durable transaction (fsync, fdatasync, msync, sync_file_range, O_DSYNC writes)"),
    .init(name: "durable_bytes_ckpt", unit: .bytesPerTxn,
          what: "durable_bytes plus a final WAL checkpoint (TRUNCATE) after the transactions, spread over them"),
    .init(name: "delete_all", unit: .opsPerSecond, what: "delete every Person in one write transaction (objects/s)"),
    .init(name: "cold_open_ms", unit: .milliseconds, what: "big database: open with a cold page cache, look up one object by primary key (a child process of the bench binary, every engine alike)"),
    .init(name: "cold_open_own_ms", unit: .milliseconds, what: "big database: the same for RealmLite's child in a binary with RealmLite alone (realmlite-open, the memory rows' child)"),
    .init(name: "peak_rss", unit: .kibibytes, what: "big database: peak RSS of the cold child (RealmLite's: a binary with RealmLite alone; the others': the bench binary)",
          goal: .atMost(16 * 1024, "16 MiB")),
    .init(name: "open_rss", unit: .kibibytes, what: "big database: that peak less the child's RSS before the open (what the database costs)"),
    .init(name: "big_file_size", unit: .bytes, what: "big database: bytes on disk"),
]

/// One repetition of the suite on one engine; checks every checksum.
func runSuite(_ type: any Engine.Type, sizes: Sizes, directory: URL, keep: Bool, report: Report) throws {
    try? FileManager.default.removeItem(at: directory)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { if !keep { try? FileManager.default.removeItem(at: directory) } }
    let name = type.name
    let engine = try type.init(directory: directory)
    func rate(_ workload: String, _ count: Int, _ body: () throws -> Void) rethrows {
        let (secs, _) = try timed(body)
        report.record(workload, name, Double(count) / secs)
    }
    func check<T: Equatable>(_ what: String, _ got: T, _ want: T) {
        if got != want { fatalError("\(name): \(what) gave \(got), expected \(want)") }
    }

    try rate("insert_ints", sizes.intsInsert) { try engine.insertInts(0..<sizes.intsInsert) }
    try engine.insertInts(sizes.intsInsert..<sizes.intsFetch)
    var sum = 0
    try rate("fetch_ints", sizes.intsFetch) { sum = try engine.fetchInts() }
    check("fetch_ints", sum, Expected.fetchInts(sizes.intsFetch))

    let n = sizes.people
    try rate("insert_person", n) { try engine.insertPeople(n) }
    report.record("file_size", name, Double(try engine.peopleFileSize()))
    try engine.insertNamedItems(n)

    var counts: [Double] = []
    for _ in 0..<sizes.countRepeats {
        let (secs, count) = try timed { try engine.countAgeOver50Active() }
        check("count_filtered", count, Expected.count(n))
        counts.append(secs * 1000)
    }
    report.record("count_filtered", name, median(counts))

    try rate("enumerate", n) { sum = try engine.enumeratePeople() }
    check("enumerate", sum, Expected.enumerate(n))

    let ids = randomInts(n, below: n, seed: 42)
    try rate("pk_lookup", ids.count) { sum = try engine.lookupNames(ids: ids) }
    check("pk_lookup", sum, ids.reduce(0) { $0 + PersonValues($1).name.utf8.count })

    let indexedNames = randomInts(sizes.indexedLookups, below: n, seed: 7).map { "n\($0)" }
    try rate("lookup_indexed_string", indexedNames.count) { sum = try engine.lookupNamed(indexedNames, indexed: true) }
    check("lookup_indexed_string", sum, indexedNames.count)
    let plainNames = randomInts(sizes.unindexedLookups, below: n, seed: 8).map { "n\($0)" }
    try rate("lookup_unindexed_string", plainNames.count) { sum = try engine.lookupNamed(plainNames, indexed: false) }
    check("lookup_unindexed_string", sum, plainNames.count)

    var scoreSum = 0.0
    try rate("sort_score", n) { scoreSum = try engine.sortByScore() }
    check("sort_score", scoreSum, (0..<n).reduce(0.0) { $0 + PersonValues($1).score })

    let updates = randomInts(sizes.durableTransactions, below: n, seed: 9)
    let io = try DurableIO(engine, name: name, first: n, updates: updates)
    report.record("durable_txns", name, io.perSecond)
    report.record("durable_bytes", name, io.bytes)
    report.record("durable_writes", name, io.writes)
    report.record("durable_flushes", name, io.flushes)
    report.record("durable_bytes_ckpt", name, io.bytesCheckpointed)

    var deleted = 0
    let total = n + (updates.count + 1) / 2
    try rate("delete_all", total) { deleted = try engine.deleteAllPeople() }
    check("delete_all", deleted, total)
    try engine.close()
}

/// Creates `type`'s big database in `directory` and records its size.
func createBig(_ type: any Engine.Type, sizes: Sizes, directory: URL, report: Report) throws {
    try? FileManager.default.removeItem(at: directory)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let (secs, _) = try timed { try type.createBig(at: directory, count: sizes.bigObjects, bioBytes: sizes.bioBytes) }
    let bytes = directoryBytes(directory)
    report.record("big_file_size", type.name, Double(bytes))
    print(String(format: "  %@: created %d objects, %.0f MiB, in %.1f s", type.name, sizes.bigObjects,
                 Double(bytes) / 1_048_576, secs))
}

/// The memory and cold-open measurements: one child process per open, the
/// engines taking turns in a rotated order (as the suite's repetitions do),
/// so that a slow stretch of the disk falls on every engine alike instead
/// of on whichever engine's turn it was. Every engine's timed child is this
/// binary (`--child`): children of one binary open faster after each other
/// (measured: RealmLite's open 10% faster from this binary than from its
/// own when the peers' children run between), so one binary for all keeps
/// that alike. RealmLite's memory child is realmlite-open (RealmLite
/// alone), right after; its time is the cold_open_own_ms row.
func runBigOpens(_ types: [any Engine.Type], sizes: Sizes, directories: [URL], reps: Int, report: Report) throws {
    for rep in 0..<reps {
        let id = randomInts(rep + 1, below: sizes.bigObjects, seed: 11)[rep]
        for k in 0..<types.count {
            let type = types[(k + rep) % types.count], directory = directories[(k + rep) % types.count]
            func cold(_ arguments: [String], executable: URL? = nil) throws -> [String: Any] {
                dropPageCache(of: directory)
                let child = try executable.map { try runProcess(arguments, executable: $0) } ?? runProcess(arguments)
                guard child["name"] as? String == PersonValues(id).name else { fatalError("\(type.name): big lookup gave \(child)") }
                return child
            }
            let timed = try cold(["--child", type.name, directory.path, String(id)])
            report.record("cold_open_ms", type.name, timed["ms"] as! Double)
            var memory = timed
            if type == RealmLiteEngine.self {
                memory = try cold([directory.path, String(id)], executable: realmLiteOpenBinary)
                report.record("cold_open_own_ms", type.name, memory["ms"] as! Double)
            }
            let peak = memory["rss_kib"] as! Int, before = memory["rss_before_kib"] as! Int
            report.record("peak_rss", type.name, Double(peak))
            report.record("open_rss", type.name, Double(peak - before))
        }
    }
}


/// Runs `executable` (this binary by default) and parses the JSON object it prints.
func runProcess(_ arguments: [String], executable: URL = URL(fileURLWithPath: CommandLine.arguments[0])) throws -> [String: Any] {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0,
          let result = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        fatalError("child \(arguments) failed: \(String(decoding: data, as: UTF8.self))")
    }
    return result
}

/// In the child: open, look up one object, report time and RSS.
func childMain(_ arguments: [String]) -> Never {
    let directory = URL(fileURLWithPath: arguments[1])
    guard let type = engineType(arguments[0]) else { reportOpen { "" } } // the baseline
    reportOpen { try type.openBigAndLookup(at: directory, id: Int(arguments[2])!) }
}

/// One repetition in a fresh process: `--suite ENGINE DIR [--quick]`; prints
/// the recorded values as JSON ({workload: value}) for the parent.
func suiteChildMain(_ arguments: [String]) -> Never {
    guard let type = engineType(arguments[0]) else { fatalError("unknown engine \(arguments[0])") }
    let sizes = arguments.contains("--quick") ? Sizes.quick : Sizes()
    let report = Report(specs: specs, engines: [(type.name, type.settings)])
    let directory = URL(fileURLWithPath: arguments[1])
    do {
        // Warm-up, untimed: the quick suite on its own files, so that the
        // measured run does not pay for first use in a fresh process (Swift
        // metadata, lazy binding, the heap's first growth) — the state of an
        // app that has been running, for every engine alike.
        try runSuite(type, sizes: .quick, directory: directory.appendingPathComponent("warm-up"), keep: false,
                     report: Report(specs: specs, engines: [(type.name, type.settings)]))
        try runSuite(type, sizes: sizes, directory: directory, keep: arguments.contains("--keep"), report: report)
    } catch {
        fatalError("\(type.name): \(error)")
    }
    var values: [String: Double] = [:]
    for (workload, engines) in report.results { values[workload] = engines[type.name]?.last }
    let data = (try? JSONSerialization.data(withJSONObject: values)) ?? Data()
    FileHandle.standardOutput.write(data)
    exit(0)
}

/// Runs one repetition of `type`'s suite in a child process and records it.
func runSuiteInChild(_ type: any Engine.Type, quick: Bool, directory: URL, keep: Bool, report: Report) throws {
    let values = try runProcess(["--suite", type.name, directory.path] + (quick ? ["--quick"] : []) + (keep ? ["--keep"] : []))
    for spec in specs {
        if let value = values[spec.name] as? Double { report.record(spec.name, type.name, value) }
    }
}

let arguments = CommandLine.arguments
if arguments.count > 1 && arguments[1] == "--child" { childMain(Array(arguments.dropFirst(2))) }
if arguments.count > 1 && arguments[1] == "--suite" { suiteChildMain(Array(arguments.dropFirst(2))) }
if arguments.count > 1 && arguments[1].hasPrefix("--scale") { scaleMain(arguments[1], Array(arguments.dropFirst(2))) }
if arguments.count > 1 && arguments[1].hasPrefix("--shapes") { shapesMain(arguments[1], Array(arguments.dropFirst(2))) }
if arguments.count > 1 && arguments[1] == "--pk-probe" { pkProbeMain(Array(arguments.dropFirst(2))) }
if arguments.count > 1 && arguments[1] == "--make-big" { makeBigMain(Array(arguments.dropFirst(2))) }

let options = Options(arguments)
let sizes = options.quick ? Sizes.quick : Sizes()
let types = options.engines.map { name -> any Engine.Type in
    guard let type = engineType(name) else { fatalError("unknown engine \(name)") }
    return type
}
let report = Report(specs: specs, engines: types.map { ($0.name, $0.settings) })
let loadBefore = Machine.loadAverage
let runDirectory = options.directory.appendingPathComponent("objects-\(getpid())")
print("objects tier: \(types.map { $0.name }.joined(separator: ", ")); \(sizes.people) Person, \(options.reps) repetition(s)")
for rep in 0..<options.reps {
    for k in 0..<types.count {
        let type = types[(k + rep) % types.count]
        let (secs, _) = try timed {
            try runSuiteInChild(type, quick: options.quick, directory: runDirectory.appendingPathComponent(type.name),
                                keep: options.keep, report: report)
        }
        print(String(format: "  repetition %d: %@ %.1f s", rep + 1, type.name, secs))
    }
}
if options.big {
    print("big database: \(sizes.bigObjects) objects with \(sizes.bioBytes)-byte bios")
    let directories = types.map { runDirectory.appendingPathComponent("big-\($0.name)") }
    for (type, directory) in zip(types, directories) { try createBig(type, sizes: sizes, directory: directory, report: report) }
    try runBigOpens(types, sizes: sizes, directories: directories, reps: options.reps, report: report)
    if !options.keep { for directory in directories { try? FileManager.default.removeItem(at: directory) } }
}
if !options.keep { try? FileManager.default.removeItem(at: runDirectory) }

let machine = ["cpu": Machine.cpu, "kernel": Machine.kernel, "loadavg_start": loadBefore, "loadavg_end": Machine.loadAverage]
let table = report.table()
print()
print(table)
let config: [String: Any] = [
    "people": sizes.people, "ints_insert": sizes.intsInsert, "ints_fetch": sizes.intsFetch,
    "durable_transactions": sizes.durableTransactions, "indexed_lookups": sizes.indexedLookups,
    "unindexed_lookups": sizes.unindexedLookups, "count_repeats": sizes.countRepeats,
    "big_objects": sizes.bigObjects, "bio_bytes": sizes.bioBytes, "reps": options.reps,
    "order": "each repetition runs the suite per engine in a rotated order, on fresh files, in a process of its own after an untimed quick-suite warm-up; the big database's cold opens take turns the same way, after every engine's file is created",
]
var markdown = [
    "- Date: \(ISO8601DateFormatter().string(from: Date())); RealmLite source: commit \(options.sourceRev)",
    "- CPU: \(machine["cpu"]!); kernel \(machine["kernel"]!)",
    "- Load average before the run: \(loadBefore); after: \(machine["loadavg_end"]!)",
    "- \(sizes.people) Person; GRDB suite: insert \(sizes.intsInsert), fetch \(sizes.intsFetch) rows;"
        + " \(sizes.durableTransactions) durable transactions; big database: \(sizes.bigObjects) objects",
    "- \(options.reps) repetition(s); cells are median (min–max)",
    "- Engines:",
] + report.engines.map { "  - \($0.name): \($0.settings)" }
markdown += ["", table, "", "Ratios: how many times better RealmLite is (rate over rate, or time/size over time/size).", "",
             "What each workload does:", ""] + specs.map { "- `\($0.name)`: \($0.what)" }
if let path = options.json {
    let data = report.json(config: config, machine: machine, quick: options.quick, sourceRev: options.sourceRev,
                           markdown: markdown.joined(separator: "\n"))
    try data.write(to: URL(fileURLWithPath: path))
    print("wrote \(path)")
}
