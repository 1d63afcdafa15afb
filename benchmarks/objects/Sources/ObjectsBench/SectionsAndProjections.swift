import BenchModels
import Foundation
import GRDB
import GRDBSQLite
import PeerDatabases
import RealmLite

// Sectioned results and projections (`make bench-shapes`), RealmLite beside
// the nearest GRDB and SQLite equivalent, in the same run, on the objects
// tier's Person data (built by each engine's own insertPeople):
//
//   objects-bench --shapes [--quick] [--reps N] [--dir DIR]
//   objects-bench --shapes-child ENGINE DIR N CHANGES   (internal: one repetition)
//
// Each repetition of each engine runs in a process of its own (rotated
// order), runs every workload once untimed, then reports the median of
// three timed runs. Every result is checked against the data's definition.

/// What a list row shows of a Person: its name and age, renamed.
final class PersonSummary: Projection<Person> {
    @Projected(\Person.name) var title: String
    @Projected(\Person.age) var years: Int
}

/// GRDB's nearest equivalent of the projection: a record of the two columns.
private struct PersonSummaryRecord: FetchableRecord, Decodable, TableRecord {
    static let databaseTableName = "person"
    static var databaseSelection: [any SQLSelectable] { [Column("name"), Column("age")] }
    var name: String
    var age: Int
}

let shapeSpecs: [WorkloadSpec] = [
    .init(name: "sectioned_keys", unit: .milliseconds,
          what: "`sectioned(by: \\.age)` over every Person, reading each section's key and count (100 sections); "
              + "peers: `SELECT age, COUNT(*) … GROUP BY age ORDER BY age`"),
    .init(name: "sectioned_rows", unit: .opsPerSecond,
          what: "the same sections built afresh, reading `id` and `name` of every row of every section (objects/s); "
              + "peers: `SELECT age, id, name … ORDER BY age`, cut into sections while reading"),
    .init(name: "sectioned_change", unit: .milliseconds,
          what: "one durable write moving one Person to another section, from the start of the write to the observer's "
              + "SectionedResultsChange (median); GRDB: to a ValueObservation of the GROUP BY query; SQLite "
              + "(no notifications): running the GROUP BY query again"),
    .init(name: "projection_enumerate", unit: .opsPerSecond,
          what: "`realm.objects(PersonSummary.self)` (a Projection of `name` and `age`), enumerating every one and "
              + "reading both; peers: `SELECT name, age FROM person` (GRDB: a record of the two columns)"),
    .init(name: "objects_enumerate_two", unit: .opsPerSecond,
          what: "RealmLite: the same Persons as objects, reading `name` and `age` (what the projection costs over them)"),
]

/// The expected checksums: sections, rows, projected fields.
private enum ShapeExpected {
    static func rows(_ n: Int) -> Int { (0..<n).reduce(0) { $0 &+ $1 &+ PersonValues($1).name.utf8.count } }
    static func projected(_ n: Int) -> Int { (0..<n).reduce(0) { $0 &+ PersonValues($1).name.utf8.count &+ PersonValues($1).age } }
}

/// Cuts rows that arrive in key order into sections; checks the keys ascend.
private struct SectionCutter {
    private(set) var sections = 0
    private var key: Int?
    mutating func add(_ next: Int) {
        guard next != key else { return }
        precondition(key.map { next > $0 } ?? true, "sections out of order")
        key = next
        sections += 1
    }
}

func shapesMain(_ mode: String, _ arguments: [String]) -> Never {
    do {
        if mode == "--shapes-child" { try shapesChild(arguments) } else { try shapesRun(arguments) }
    } catch {
        fatalError("shapes: \(error)")
    }
    exit(0)
}

private func shapesRun(_ arguments: [String]) throws {
    var n = 100_000, changes = 50, reps = 5
    var directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("tmp")
    var i = 0
    while i < arguments.count {
        switch arguments[i] {
        case "--quick": n = 5_000; changes = 5; reps = 1
        case "--reps": i += 1; reps = Int(arguments[i]) ?? reps
        case "--dir": i += 1; directory = URL(fileURLWithPath: arguments[i])
        default: fatalError("unknown option \(arguments[i]); see the comment at the top of SectionsAndProjections.swift")
        }
        i += 1
    }
    let types = allEngines
    let report = Report(specs: shapeSpecs, engines: types.map { ($0.name, $0.settings) })
    let runDirectory = directory.appendingPathComponent("shapes-\(getpid())")
    defer { try? FileManager.default.removeItem(at: runDirectory) }
    let loadBefore = Machine.loadAverage
    print("sectioned results and projections: \(n) Person, \(changes) changes, \(reps) repetition(s)")
    for rep in 0..<reps {
        for k in 0..<types.count {
            let type = types[(k + rep) % types.count]
            let values = try runProcess(["--shapes-child", type.name, runDirectory.appendingPathComponent(type.name).path,
                                         String(n), String(changes)])
            for spec in shapeSpecs { if let v = values[spec.name] as? Double { report.record(spec.name, type.name, v) } }
        }
    }
    print()
    print(report.table())
    print()
    print("- Date: \(ISO8601DateFormatter().string(from: Date())); CPU: \(Machine.cpu); kernel \(Machine.kernel)")
    print("- Load average before: \(loadBefore); after: \(Machine.loadAverage)")
    for spec in shapeSpecs { print("- `\(spec.name)`: \(spec.what)") }
}

/// Median seconds of three timed runs after an untimed one; checks each result.
private func timedRuns<T: Equatable>(_ what: String, expect: T, _ body: () throws -> T) rethrows -> Double {
    var runs: [Double] = []
    for run in 0..<4 {
        let (secs, got) = try timed(body)
        if got != expect { fatalError("\(what) gave \(got), expected \(expect)") }
        if run > 0 { runs.append(secs) }
    }
    return median(runs)
}

private func shapesChild(_ arguments: [String]) throws {
    guard arguments.count == 4, let type = engineType(arguments[0]), let n = Int(arguments[2]), let changes = Int(arguments[3])
    else { fatalError("usage: --shapes-child ENGINE DIR N CHANGES") }
    let directory = URL(fileURLWithPath: arguments[1])
    try? FileManager.default.removeItem(at: directory)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let engine = try type.init(directory: directory)
    try engine.insertPeople(n)
    var values: [String: Double] = [:]
    let sectionsWant = [100, n], rowsWant = ShapeExpected.rows(n), projectedWant = ShapeExpected.projected(n)
    switch type.name {
    case RealmLiteEngine.name:
        let realm = try Realm(configuration: Person.peopleConfiguration(directory))
        let people = realm.objects(Person.self)
        values["sectioned_keys"] = 1000 * timedRuns("sectioned_keys", expect: sectionsWant) {
            let sections = people.sectioned(by: \.age)
            var rows = 0, previous = -1
            for section in sections {
                precondition(section.key > previous, "sections out of order")
                previous = section.key
                rows += section.count
            }
            return [sections.count, rows]
        }
        values["sectioned_rows"] = Double(n) / timedRuns("sectioned_rows", expect: rowsWant) {
            var sum = 0
            for section in people.sectioned(by: \.age) {
                for person in section { sum = sum &+ person.id &+ person.name.utf8.count }
            }
            return sum
        }
        values["projection_enumerate"] = Double(n) / timedRuns("projection_enumerate", expect: projectedWant) {
            var sum = 0
            for summary in realm.objects(PersonSummary.self) { sum = sum &+ summary.title.utf8.count &+ summary.years }
            return sum
        }
        values["objects_enumerate_two"] = Double(n) / timedRuns("objects_enumerate_two", expect: projectedWant) {
            var sum = 0
            for person in people { sum = sum &+ person.name.utf8.count &+ person.age }
            return sum
        }
        values["sectioned_change"] = try MainActor.assumeIsolated { try realmSectionChange(realm, n: n, changes: changes) }
    case GRDBEngine.name:
        let queue = try GRDBEngine.open(directory.appendingPathComponent("people.sqlite").path)
        let groupBy = PersonRecord.select(Column("age"), count(Column("id"))).group(Column("age")).order(Column("age"))
        values["sectioned_keys"] = try 1000 * timedRuns("sectioned_keys", expect: sectionsWant) {
            try queue.read { db in
                var cutter = SectionCutter(), rows = 0
                for row in try Row.fetchAll(db, groupBy) { cutter.add(row[0]); rows += row[1] as Int }
                return [cutter.sections, rows]
            }
        }
        values["sectioned_rows"] = try Double(n) / timedRuns("sectioned_rows", expect: rowsWant) {
            try queue.read { db in
                var cutter = SectionCutter(), sum = 0
                let cursor = try PersonRecord.order(Column("age")).fetchCursor(db)
                while let p = try cursor.next() { cutter.add(p.age); sum = sum &+ p.id &+ p.name.utf8.count }
                precondition(cutter.sections == 100)
                return sum
            }
        }
        values["projection_enumerate"] = try Double(n) / timedRuns("projection_enumerate", expect: projectedWant) {
            try queue.read { db in
                var sum = 0
                let cursor = try PersonSummaryRecord.fetchCursor(db)
                while let p = try cursor.next() { sum = sum &+ p.name.utf8.count &+ p.age }
                return sum
            }
        }
        values["sectioned_change"] = try MainActor.assumeIsolated {
            try grdbGroupChange(queue, observed: groupBy, n: n, changes: changes)
        }
        try queue.close()
    case SQLiteEngine.name:
        let db = try SQLiteDB(path: directory.appendingPathComponent("people.sqlite").path)
        defer { db.close() }
        let groupBy = "SELECT age, COUNT(*) FROM person GROUP BY age ORDER BY age"
        func sections() throws -> [Int] {
            let s = try db.statement(groupBy)
            var cutter = SectionCutter(), rows = 0
            while sqlite3_step(s) == SQLITE_ROW { cutter.add(Int(sqlite3_column_int64(s, 0))); rows += Int(sqlite3_column_int64(s, 1)) }
            return [cutter.sections, rows]
        }
        values["sectioned_keys"] = 1000 * (try timedRuns("sectioned_keys", expect: sectionsWant, sections))
        values["sectioned_rows"] = Double(n) / (try timedRuns("sectioned_rows", expect: rowsWant) {
            let s = try db.statement("SELECT age, id, name FROM person ORDER BY age")
            var cutter = SectionCutter(), sum = 0
            while sqlite3_step(s) == SQLITE_ROW {
                cutter.add(Int(sqlite3_column_int64(s, 0)))
                sum = sum &+ Int(sqlite3_column_int64(s, 1)) &+ String(cString: sqlite3_column_text(s, 2)).utf8.count
            }
            precondition(cutter.sections == 100)
            return sum
        })
        values["projection_enumerate"] = Double(n) / (try timedRuns("projection_enumerate", expect: projectedWant) {
            let s = try db.statement("SELECT name, age FROM person")
            var sum = 0
            while sqlite3_step(s) == SQLITE_ROW {
                sum = sum &+ String(cString: sqlite3_column_text(s, 0)).utf8.count &+ Int(sqlite3_column_int64(s, 1))
            }
            return sum
        })
        var requery: [Double] = []
        for k in 0..<changes {
            let start = now()
            try db.transaction {
                let s = try db.statement("UPDATE person SET age = (age + 1) % 100 WHERE id = ?")
                sqlite3_bind_int64(s, 1, Int64(scaleLookupID(k, below: n)))
                try db.run(s)
            }
            let got = try sections()
            precondition(got == sectionsWant)
            requery.append((now() - start) * 1000)
        }
        values["sectioned_change"] = median(requery)
    default: fatalError("no shapes for \(type.name)")
    }
    try engine.close()
    FileHandle.standardOutput.write(try JSONSerialization.data(withJSONObject: values))
}

/// RealmLite: per change, milliseconds from the start of the (durable)
/// write to the SectionedResults observer's update (one write at a time,
/// so none fold).
@MainActor
private func realmSectionChange(_ realm: Realm, n: Int, changes: Int) throws -> Double {
    let sections = realm.objects(Person.self).sectioned(by: \.age)
    var updates = 0, initial = false, moved = 0
    let token = sections.observe { change in
        switch change {
        case .initial: initial = true
        case let .update(_, deletions, insertions, _, _, _):
            updates += 1
            moved += min(deletions.count, insertions.count)
        }
    }
    defer { token.invalidate() }
    while !initial { _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.001)) }
    var latencies: [Double] = []
    for k in 0..<changes {
        let person = realm.object(ofType: Person.self, forPrimaryKey: scaleLookupID(k, below: n))!
        let start = now()
        try realm.write { person.age = (person.age + 1) % 100 }
        while updates <= k { _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.001)) }
        latencies.append((now() - start) * 1000)
    }
    precondition(moved == changes, "expected \(changes) moves between sections, saw \(moved)")
    return median(latencies)
}

/// GRDB: the same writes, to a ValueObservation of the GROUP BY query.
@MainActor
private func grdbGroupChange(_ queue: DatabaseQueue, observed: QueryInterfaceRequest<PersonRecord>, n: Int, changes: Int) throws -> Double {
    let seen = ChangeCounter()
    let observation = ValueObservation.tracking { db in try Row.fetchAll(db, observed).map { $0[1] as Int } }
    let cancellable = observation.start(in: queue, scheduling: .async(onQueue: .main),
                                        onError: { fatalError("observation: \($0)") }, onChange: { _ in seen.add() })
    defer { cancellable.cancel() }
    while seen.value == 0 { _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.001)) }
    var latencies: [Double] = []
    for k in 0..<changes {
        let start = now()
        try queue.write { db in
            try db.execute(sql: "UPDATE person SET age = (age + 1) % 100 WHERE id = ?", arguments: [scaleLookupID(k, below: n)])
        }
        while seen.value <= k + 1 { _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.001)) }
        latencies.append((now() - start) * 1000)
    }
    return median(latencies)
}

/// How many changes GRDB delivered (its onChange is typed as concurrent).
private final class ChangeCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
