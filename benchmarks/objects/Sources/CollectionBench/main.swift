// What a List, MutableSet or Map change or read costs as the collection
// grows, in RealmLite and, in the same run, in GRDB and raw SQLite keeping
// each collection as join-table rows (JoinTables.swift): one append in its
// own write, many appends in one write, index access, iterating a List<Int>
// and a List of objects, set contains, map lookup, and the file bytes a
// List<Int> element costs. The timed rows run on databases in memory
// (RealmLite's in-memory Realm, SQLite's ":memory:", GRDB's in-memory
// queue), the bytes rows on files. Every result read is checked, never its
// time. Prints one table and issue 16's bars with their verdicts.
//
//   collection-bench [--quick] [--engines realmlite,grdb,sqlite]
//                    [--only single|many|read|keyed|file]
//
// The engines run one after another in this process, RealmLite first (on
// a fresh heap), every section of one before the next.

import BenchModels
import Foundation

nonisolated(unsafe) let allEngines: [any CollectionEngine.Type] = [RealmLiteCollections.self, GRDBCollections.self, SQLiteCollections.self]

struct Options {
    var quick = false
    var engines = allEngines.map { $0.name }
    /// One section alone (profiling).
    var only: String?

    init(_ arguments: [String]) {
        parseArguments(arguments) { flag, value in
            switch flag {
            case "--quick": quick = true
            case "--engines": engines = value().split(separator: ",").map(String.init)
            case "--only": only = value()
            default: return false
            }
            return true
        }
    }
}

let options = Options(CommandLine.arguments)
let quick = options.quick
let types = options.engines.map { name -> any CollectionEngine.Type in
    guard let type = allEngines.first(where: { $0.name == name }) else { fatalError("unknown engine \(name)") }
    return type
}
func runs(_ section: String) -> Bool { options.only == nil || options.only == section }

// QUICK (the smoke run of `make test`) is small enough for GRDB's ~100 µs
// per operation on a loaded machine: the whole run stays under ~20 s.
let big = quick ? 20_000 : 1_000_000
/// Random reads per row (index access, contains, lookups) for `type`:
/// GRDB's take ~70 µs each (its query interface builds every request), so
/// it does a tenth of the others' — its rate is per read all the same.
func reads(_ type: any CollectionEngine.Type) -> Int {
    quick ? 2_000 : type.name == GRDBCollections.name ? 20_000 : 200_000
}
/// One append in its own write: on a List of 10 and of this many.
let singleBig = quick ? big : 100_000
let ownWrites = quick ? 200 : 2_000
let manySizes = quick ? [1_000, big] : [1_000, 10_000, 30_000, 100_000, 1_000_000]
let keyedSizes = quick ? [1_000, big] : [10_000, 100_000, 1_000_000]
let results = Results(engines: types.map { $0.name })

func check<T: Equatable>(_ engine: String, _ what: String, _ got: T, _ want: T) {
    if got != want { fatalError("\(engine): \(what) gave \(got), expected \(want)") }
}

/// The read positions, probes and keys: spread over the collection (7919
/// is prime), the same for every engine.
func spread(_ count: Int, below bound: Int) -> [Int] { (0..<count).map { ($0 &* 7919) % bound } }

/// Every section on one engine, each on a database of its own.
@MainActor func run(_ type: any CollectionEngine.Type) throws {
    if runs("single") {
        let db = try type.init(path: nil)
        for (owner, size) in [10, singleBig].enumerated() {
            try db.createOwner(owner, ints: size, scale: 1)
            let appends = ownWrites
            let (t, _) = try seconds { try db.appendInOwnWrites(owner, size..<(size + appends)) }
            let (count, last) = try db.intsCountAndLast(owner)
            check(type.name, "count", count, size + appends)
            check(type.name, "last", last, size + appends - 1)
            results.perOperation(RowLabel.single(size), type.name, t, count: appends)
        }
        try db.close()
    }

    if runs("many") {
        let db = try type.init(path: nil)
        for (owner, size) in manySizes.enumerated() {
            try db.createOwner(owner, ints: 0, scale: 1)
            let (t, _) = try seconds { try db.appendInOneWrite(owner, 0..<size) }
            let (count, last) = try db.intsCountAndLast(owner)
            check(type.name, "count", count, size)
            check(type.name, "last", last, size - 1)
            results.rate(RowLabel.many(size), of: "elements", type.name, t, count: size)
        }
        // RealmLite alone: the lists above were each the last in its
        // collections tree (appends at its right edge); this one has
        // another list after it. A join table has no such case.
        if type.name == RealmLiteCollections.name {
            try db.createOwner(100, ints: 100, scale: 1)
            try db.createOwner(101, ints: 100, scale: 1)
            let (t, _) = try seconds { try db.appendInOneWrite(100, 0..<big) }
            let (count, last) = try db.intsCountAndLast(100)
            check(type.name, "count", count, big + 100)
            check(type.name, "last", last, big - 1)
            results.rate(RowLabel.notLast(big), of: "elements", type.name, t, count: big)
        }
        try db.close()
    }

    if runs("read") {
        let db = try type.init(path: nil)
        try db.createOwner(1, ints: big, scale: 1)
        let readCount = reads(type)
        let positions = spread(readCount, below: big)
        let (access, sum) = try seconds { try db.sumInts(1, at: positions) }
        check(type.name, "index access", sum, positions.reduce(0, +))
        results.perOperation(RowLabel.index(big), type.name, access, count: readCount)
        let (iterate, ints) = try seconds { try db.iterateInts(1) }
        check(type.name, "iterate List<Int>", ints.count, big)
        check(type.name, "iterate List<Int>", ints.sum, (big - 1) * big / 2)
        results.rate(RowLabel.iterateInts(big), of: "elements", type.name, iterate, count: big)
        try db.addItems(1, count: big)
        let (iterateItems, items) = try seconds { try db.iterateItems(1) }
        check(type.name, "iterate List of objects", items.count, big)
        check(type.name, "iterate List of objects", items.sum, (big - 1) * big / 2)
        results.rate(RowLabel.iterateObjects(big), of: "objects", type.name, iterateItems, count: big)
        try db.close()
    }

    if runs("keyed") {
        let db = try type.init(path: nil)
        let readCount = reads(type)
        for (k, size) in keyedSizes.enumerated() {
            let owner = 10 + k
            try db.createOwner(owner, ints: 0, scale: 1)
            try db.fillSetAndMap(owner, count: size)
            let probes = spread(readCount, below: 2 * size) // half of them absent
            let (contains, found) = try seconds { try db.containsCount(owner, probes) }
            check(type.name, "contains", found, probes.count { $0 < size })
            results.rate(RowLabel.contains(size), of: "", type.name, contains, count: readCount)
            let present = spread(readCount, below: size)
            let keys = present.map(mapKey)
            let (lookup, sum) = try seconds { try db.lookupSum(owner, keys) }
            check(type.name, "lookup", sum, present.reduce(0, +))
            results.rate(RowLabel.lookup(size), of: "", type.name, lookup, count: readCount)
        }
        try db.close()
    }

    if runs("file") {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("collection-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        /// A fresh file holding one owner with `size` elements, compacted.
        func fileBytes(_ size: Int, scale: Int = 1) throws -> Int {
            let db = try type.init(path: directory.appendingPathComponent("\(type.name)-\(size)-\(scale).db").path)
            defer { try? db.close() }
            try db.createOwner(1, ints: size, scale: scale)
            return try db.compactedFileBytes()
        }
        let empty = try fileBytes(0)
        results.bytes(RowLabel.bytes(big), type.name, Double(try fileBytes(big) - empty) / Double(big))
        // Values of large magnitude: 8-byte integers, or varints of 8 to 10 bytes.
        results.bytes(RowLabel.largeBytes(big), type.name, Double(try fileBytes(big, scale: (1 << 48) + 12_345) - empty) / Double(big))
    }
}

let loadBefore = Machine.loadAverage
print("collection-bench (\(quick ? "quick" : "full"), release): timed rows on databases in memory, bytes rows on files")
print("- Date: \(ISO8601DateFormatter().string(from: Date())); CPU: \(Machine.cpu); kernel \(Machine.kernel)")
for type in types { print("- \(type.name): \(type.settings)") }
let (whole, _) = try seconds { for type in types { try run(type) } }

print()
print(results.table())
print()
let names = types.map { $0.name }
if names.contains(RealmLiteCollections.name) && names.count > 1 {
    print("RL/GRDB, RL/SQLite: how many times better RealmLite is (by wall time; by CPU time in parentheses).")
}
if names.contains(GRDBCollections.name) || names.contains(SQLiteCollections.name) {
    print("Peers: a collection is join-table rows (owner, position, value or item id) with a unique index on")
    print("(owner, position); sets on (owner, value), maps on (owner, key). An append takes MAX(position) + 1")
    print("from that index in its write; these rows only append, so positions stay dense without renumbering.")
    if !quick { print("Random reads per row: 200k; GRDB's 20k (each takes ~70 µs).") }
}
print()
for line in verdicts(results, big: big, singleBig: singleBig, quick: quick) { print(line) }
print(String(format: "whole run %.1f s (cpu %.1f s); load average before: %@; after: %@", whole.wall, whole.cpu,
             loadBefore, Machine.loadAverage))
