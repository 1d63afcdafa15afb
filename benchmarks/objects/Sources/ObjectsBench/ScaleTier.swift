import BenchModels
import Foundation
import GRDB
import GRDBSQLite
import PeerDatabases

// The scale tier (`make bench-scale`): the Person workloads at growing sizes
// (100k, 1M, 10M), so that growth is visible. Each size of each engine runs
// in a child process of its own (RSS per size), on fresh files:
//
//   objects-bench --scale [--quick] [--sizes 100000,1000000] [--engines ...]
//                 [--peer-max N] [--lookups N] [--dir DIR]
//   objects-bench --scale-child ENGINE DIR N LOOKUPS   (internal: build and measure)
//   objects-bench --scale-open ENGINE DIR N LOOKUPS    (internal: a peer's memory child)
//
// The building child inserts N Person objects in batches of 100k (one
// durable write each), then times the filtered count, enumeration, random
// pk lookups and the sort, checking every result, and 1,000 durable
// one-object transactions with what they write and flush (DurableIO). Its
// files stay; the parent drops their page cache (posix_fadvise DONTNEED: no
// privileges needed, and no other engineer's cache is touched) and starts a fresh
// process that opens the file and does the pk lookups: the cold open, and
// peak RSS (VmHWM) of what an app reading by key would be. RealmLite's is
// realmlite-open (RealmLite alone); the peers' is this binary. The peers
// (GRDB, SQLite through the objects tier's own engines) run up to
// --peer-max objects (1M by default: at 10M they take minutes per size).

private let batch = 100_000
/// Durable one-object transactions per size (half inserts, half updates).
private let durableTransactions = 1_000

private struct ScaleMetric {
    let key: String, label: String
    /// Rates: higher is better; the rest: lower is better.
    let rate: Bool
    let format: @Sendable (Double) -> String
}

private func rateText(_ v: Double) -> String {
    v >= 1e6 ? String(format: "%.2fM", v / 1e6) : v >= 1e3 ? String(format: "%.0fk", v / 1e3) : String(format: "%.0f", v)
}

@Sendable private func mib(_ kib: Double) -> String { String(format: "%.1f", kib / 1024) }

private let metrics: [ScaleMetric] = [
    .init(key: "insert", label: "insert, batches of 100k (objects/s)", rate: true, format: rateText),
    .init(key: "insert_last", label: "insert, last batch (objects/s)", rate: true, format: rateText),
    .init(key: "pk_lookup", label: "pk lookup, random keys, warm (lookups/s, median of 3 rounds)", rate: true, format: rateText),
    .init(key: "count_ns", label: "filtered count `age > 50 AND active` (ns/object)", rate: false,
          format: { String(format: "%.1f", $0) }),
    .init(key: "enumerate", label: "enumerate, all five properties (objects/s)", rate: true, format: rateText),
    .init(key: "sort", label: "sort by score, read in order (objects/s)", rate: true, format: rateText),
    .init(key: "durable", label: "durable one-object txns, half inserts, half updates (txns/s)", rate: true, format: rateText),
    .init(key: "durable_bytes", label: "… bytes written per txn (IOCount)", rate: false, format: { String(format: "%.0f", $0) }),
    .init(key: "durable_writes", label: "… write calls per txn", rate: false, format: { String(format: "%.2f", $0) }),
    .init(key: "durable_flushes", label: "… flushes per txn", rate: false, format: { String(format: "%.2f", $0) }),
    .init(key: "durable_bytes_ckpt", label: "… bytes per txn with a final WAL checkpoint", rate: false,
          format: { String(format: "%.0f", $0) }),
    .init(key: "bytes_per_object", label: "file bytes per object", rate: false, format: { String(format: "%.1f", $0) }),
    .init(key: "open_ms", label: "cold open, fresh process (ms)", rate: false, format: { String(format: "%.2f", $0) }),
    .init(key: "first_lookup_ms", label: "first pk lookup after it (ms)", rate: false, format: { String(format: "%.2f", $0) }),
    .init(key: "first_rss_kib", label: "peak RSS after the open and one lookup (MiB)", rate: false, format: mib),
    .init(key: "open_rss_kib", label: "… less its RSS before the open (MiB)", rate: false, format: mib),
    .init(key: "cold_lookups", label: "then 10k pk lookups (lookups/s)", rate: true, format: rateText),
    .init(key: "peak_rss_kib", label: "peak RSS after them (MiB)", rate: false, format: mib),
    .init(key: "anon_rss_kib", label: "… resident anonymous memory at the end (MiB)", rate: false, format: mib),
    .init(key: "file_rss_kib", label: "… resident file pages at the end, binary included (MiB)", rate: false, format: mib),
    .init(key: "build_rss_kib", label: "peak RSS of the building process (MiB)", rate: false, format: { String(format: "%.0f", $0 / 1024) }),
]

private func sizeLabel(_ n: Int) -> String {
    n % 1_000_000 == 0 ? "\(n / 1_000_000)M" : n % 1000 == 0 ? "\(n / 1000)k" : "\(n)"
}

/// Entry point for `--scale`, `--scale-child` and `--scale-open`.
func scaleMain(_ mode: String, _ arguments: [String]) -> Never {
    do {
        switch mode {
        case "--scale-child": try scaleChild(arguments)
        case "--scale-open": try scaleOpen(arguments)
        case "--scale": try scaleRun(arguments)
        default: fatalError("unknown mode \(mode)")
        }
    } catch {
        fatalError("scale tier: \(error)")
    }
    exit(0)
}

/// One size of one engine: builds the file in batches and measures; prints JSON.
private func scaleChild(_ arguments: [String]) throws {
    guard arguments.count == 4, let type = engineType(arguments[0]), let n = Int(arguments[2]), let lookups = Int(arguments[3])
    else { fatalError("usage: --scale-child ENGINE DIR N LOOKUPS") }
    let directory = URL(fileURLWithPath: arguments[1])
    try? FileManager.default.removeItem(at: directory)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let engine = try type.init(directory: directory)
    func check<T: Equatable>(_ what: String, _ got: T, _ want: T) {
        if got != want { fatalError("\(type.name) at \(n): \(what) gave \(got), expected \(want)") }
    }
    var values: [String: Double] = [:]
    var total = 0.0, last = 0.0
    for start in stride(from: 0, to: n, by: batch) {
        let range = start..<min(n, start + batch)
        let (secs, _) = try timed { try engine.insertPeople(range) }
        total += secs
        last = Double(range.count) / secs
    }
    values["insert"] = Double(n) / total
    values["insert_last"] = last
    values["bytes_per_object"] = Double(try engine.peopleFileSize()) / Double(n)

    let expectedCount = Expected.count(n)
    var counts: [Double] = []
    for _ in 0..<(n > 1_000_000 ? 3 : 5) {
        let (secs, count) = try timed { try engine.countAgeOver50Active() }
        check("count", count, expectedCount)
        counts.append(secs)
    }
    values["count_ns"] = median(counts) / Double(n) * 1e9

    let (enumerateSecs, sum) = try timed { try engine.enumeratePeople() }
    check("enumerate", sum, Expected.enumerate(n))
    values["enumerate"] = Double(n) / enumerateSecs

    var lookupRates: [Double] = [] // three rounds of fresh keys: this machine's speed swings
    for seed in 42..<UInt64(45) {
        let ids = randomInts(lookups, below: n, seed: seed)
        let (secs, names) = try timed { try engine.lookupNames(ids: ids) }
        check("pk_lookup", names, ids.reduce(0) { $0 + PersonValues($1).name.utf8.count })
        lookupRates.append(Double(lookups) / secs)
    }
    values["pk_lookup"] = median(lookupRates)

    let (sortSecs, scores) = try timed { try engine.sortByScore() }
    check("sort", scores, (0..<n).reduce(0.0) { $0 + PersonValues($1).score })
    values["sort"] = Double(n) / sortSecs

    let io = try DurableIO(engine, name: type.name, first: n, updates: randomInts(durableTransactions, below: n, seed: 9))
    values["durable"] = io.perSecond
    values["durable_bytes"] = io.bytes
    values["durable_writes"] = io.writes
    values["durable_flushes"] = io.flushes
    values["durable_bytes_ckpt"] = io.bytesCheckpointed
    try engine.close()
    values["build_rss_kib"] = Double(processMemoryKiB("VmHWM"))
    FileHandle.standardOutput.write(try JSONSerialization.data(withJSONObject: values))
}

/// A peer's memory child: open its Person database, look up by key.
private func scaleOpen(_ arguments: [String]) throws {
    guard arguments.count == 4, let n = Int(arguments[2]), let lookups = Int(arguments[3])
    else { fatalError("usage: --scale-open ENGINE DIR N LOOKUPS") }
    let directory = URL(fileURLWithPath: arguments[1])
    switch arguments[0] {
    case SQLiteEngine.name:
        var db: SQLiteDB?
        reportLookups(count: n, lookups: lookups,
                      open: { db = try SQLiteDB(path: directory.appendingPathComponent("people.sqlite").path) },
                      lookup: { id in
                          let s = try db!.statement("SELECT name FROM person WHERE id = ?")
                          sqlite3_bind_int64(s, 1, Int64(id))
                          guard sqlite3_step(s) == SQLITE_ROW else { throw db!.failure("lookup \(id)") }
                          return Int(sqlite3_column_bytes(s, 0))
                      })
    case GRDBEngine.name:
        var queue: DatabaseQueue?
        reportLookups(count: n, lookups: lookups,
                      open: { queue = try GRDBEngine.open(directory.appendingPathComponent("people.sqlite").path) },
                      lookup: { id in try queue!.read { db in try PersonRecord.fetchOne(db, key: id)!.name.utf8.count } })
    default: fatalError("no memory child for \(arguments[0])")
    }
}

private func scaleRun(_ arguments: [String]) throws {
    var sizes = [100_000, 1_000_000, 10_000_000], peerMax = 1_000_000, lookups = 100_000
    var engines = allEngines.map { $0.name }
    var directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("tmp")
    parseArguments(arguments, from: 0, usage: "the comment at the top of ScaleTier.swift") { flag, value in
        switch flag {
        case "--quick": sizes = [100_000]; lookups = 10_000
        case "--sizes": sizes = value().split(separator: ",").compactMap { Int($0) }
        case "--engines": engines = value().split(separator: ",").map(String.init)
        case "--peer-max": peerMax = Int(value()) ?? peerMax
        case "--lookups": lookups = Int(value()) ?? lookups
        case "--dir": directory = URL(fileURLWithPath: value())
        default: return false
        }
        return true
    }
    let loadBefore = Machine.loadAverage
    let runDirectory = directory.appendingPathComponent("scale-\(getpid())")
    defer { try? FileManager.default.removeItem(at: runDirectory) }
    print("scale tier: \(engines.joined(separator: ", ")) at \(sizes.map(sizeLabel).joined(separator: ", ")) Person"
          + " (peers up to \(sizeLabel(peerMax))); 3 × \(lookups) pk lookups per size")
    // results[engine][size][metric]
    var results: [String: [Int: [String: Double]]] = [:]
    for n in sizes {
        for name in engines where name == RealmLiteEngine.name || n <= peerMax {
            guard engineType(name) != nil else { fatalError("unknown engine \(name)") }
            let files = runDirectory.appendingPathComponent("\(name)-\(n)")
            let (secs, built) = try timed { try runProcess(["--scale-child", name, files.path, String(n), String(lookups)]) }
            var row = built.compactMapValues { $0 as? Double }
            dropPageCache(of: files)
            let cold = min(lookups, 10_000) // each may read the disk
            let child = name == RealmLiteEngine.name
                ? try runProcess(["--people", files.path, String(n), String(cold)], executable: realmLiteOpenBinary)
                : try runProcess(["--scale-open", name, files.path, String(n), String(cold)])
            let want = (0..<cold).reduce(0) { $0 + PersonValues(scaleLookupID($1, below: n)).name.utf8.count }
            guard child["checksum"] as? Int == want else { fatalError("\(name) at \(n): lookup child gave \(child)") }
            for key in ["open_ms", "first_lookup_ms"] { row[key] = child[key] as? Double }
            row["cold_lookups"] = child["lookups_per_s"] as? Double
            let first = child["rss_first_kib"] as! Int, before = child["rss_before_kib"] as! Int
            row["first_rss_kib"] = Double(first)
            row["open_rss_kib"] = Double(first - before)
            for (mine, theirs) in [("peak_rss_kib", "rss_kib"), ("anon_rss_kib", "rss_anon_kib"), ("file_rss_kib", "rss_file_kib")] {
                row[mine] = (child[theirs] as? Int).map(Double.init)
            }
            results[name, default: [:]][n] = row
            try? FileManager.default.removeItem(at: files)
            print(String(format: "  %@ %@: %.1f s", name, sizeLabel(n), secs))
        }
    }
    print()
    print(scaleTable(results, engines: engines, sizes: sizes))
    print()
    print("- Date: \(ISO8601DateFormatter().string(from: Date())); CPU: \(Machine.cpu); kernel \(Machine.kernel)")
    print("- Load average before: \(loadBefore); after: \(Machine.loadAverage)")
}

/// The markdown table: a column per engine and size, RealmLite's growth
/// from the second-largest to the largest size, then the bars.
private func scaleTable(_ results: [String: [Int: [String: Double]]], engines: [String], sizes: [Int]) -> String {
    let columns = engines.flatMap { name in sizes.filter { results[name]?[$0] != nil }.map { (name, $0) } }
    let mine = results[RealmLiteEngine.name] ?? [:]
    let grown = sizes.filter { mine[$0] != nil }.suffix(2)
    let growth = grown.count == 2 ? (grown.first!, grown.last!) : nil
    var header = ["workload"] + columns.map { "\($0.0) \(sizeLabel($0.1))" }
    if let (a, b) = growth { header.append("RL \(sizeLabel(b)) vs \(sizeLabel(a))") }
    var lines = ["| " + header.joined(separator: " | ") + " |", "|---|" + String(repeating: "---|", count: header.count - 1)]
    for metric in metrics {
        var row = [metric.label] + columns.map { results[$0.0]?[$0.1]?[metric.key].map(metric.format) ?? "—" }
        if let (a, b) = growth, let small = mine[a]?[metric.key], let large = mine[b]?[metric.key], small > 0, large > 0 {
            // How many times worse the large size is (1.00: no worse).
            row.append(String(format: "%.2f×", metric.rate ? small / large : large / small))
        } else if growth != nil { row.append("") }
        lines.append("| " + row.joined(separator: " | ") + " |")
    }
    lines.append("")
    if let (a, b) = growth {
        for key in ["insert", "pk_lookup"] {
            guard let small = mine[a]?[key], let large = mine[b]?[key] else { continue }
            let slower = small / large
            lines.append(String(format: "- %@ at %@ vs %@: %.2f× slower (bar ≤ 1.5×): %@", key, sizeLabel(b), sizeLabel(a),
                                slower, slower <= 1.5 ? "met" : "**missed**"))
        }
    }
    if let largest = sizes.last(where: { mine[$0] != nil }), let peak = mine[largest]?["first_rss_kib"] {
        lines.append(String(format: "- peak RSS, open and a pk lookup in the %@ file: %.1f MiB (bar ≤ 16 MiB): %@", sizeLabel(largest),
                            peak / 1024, peak <= 16 * 1024 ? "met" : "**missed**"))
    }
    if let bytes = mine[100_000]?["bytes_per_object"] {
        let realmCore = 5.0 * 1_048_576 / 100_000
        lines.append(String(format: "- file bytes per object at 100k: %.1f (bar ≤ realm-core's %.1f = 5.0 MiB / 100k): %@", bytes,
                            realmCore, bytes <= realmCore ? "met" : "**missed**"))
    }
    return lines.joined(separator: "\n")
}
