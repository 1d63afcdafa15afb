import BenchModels
import Foundation
import GRDBSQLite
import RealmLite

// migration-bench: what a schema change costs as the data grows, RealmLite
// beside SQLite (benchmarks/README.md, "Migrations").
//
//   migration-bench [--quick] [--sizes 100000,300000,1000000] [--dir DIR]
//
// For each size N, on a file of N MPerson objects (SQLite: a table of N
// rows with the same columns), times:
//   add property   open with a schema that adds one property (RealmLite: a
//                  migration to schemaVersion 1 without a block; SQLite:
//                  ALTER TABLE ADD COLUMN ... DEFAULT)
//   rename         a migration whose block renames a property (SQLite:
//                  ALTER TABLE RENAME COLUMN)
//   rewrite        a migration whose block sets one property of every object
//                  from its old value (SQLite: UPDATE of every row), as
//                  objects per second
//   compact        SQLite's VACUUM (RealmLite: Realm.writeCopy, when present)
// Every migration's result is checked (a fast wrong answer stops the run);
// timings are printed, never checked.

final class MPersonV0: Object {
    override class func className() -> String { "MPerson" }
    @Persisted var name = ""
    @Persisted var age = 0
}

final class MPersonV1: Object {
    override class func className() -> String { "MPerson" }
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var score = 5
}

final class MPersonV2: Object {
    override class func className() -> String { "MPerson" }
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var score = 5
    @Persisted var years = 0
}

final class MPersonV3: Object {
    override class func className() -> String { "MPerson" }
    @Persisted var fullName = ""
    @Persisted var age = 0
    @Persisted var score = 5
    @Persisted var years = 0
}


func ms(_ seconds: Double) -> String { String(format: "%8.1f ms", seconds * 1000) }

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("migration-bench: \(message)\n".utf8))
    exit(1)
}

var quick = false
var sizes = [100_000, 300_000, 1_000_000]
var dir = FileManager.default.temporaryDirectory.appendingPathComponent("migration-bench-\(getpid())")
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--quick": quick = true; sizes = [20_000]
    case "--sizes": sizes = (arguments.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }
    case "--dir": dir = URL(fileURLWithPath: arguments.popFirst() ?? ".").appendingPathComponent("migration-bench-\(getpid())")
    default: fail("unknown argument \(argument)")
    }
}
try? FileManager.default.removeItem(at: dir)
try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: dir) }

// MARK: - RealmLite

struct RealmLiteFigures {
    var addProperty = 0.0
    var rewrite = 0.0
    var rename = 0.0
    /// A filtered count over the objects stored before the added property
    /// (older-generation records), and the same count once rewritten.
    var countOld = 0.0
    var countRewritten = 0.0
    var fileBytes = 0
}

func realmLite(_ n: Int, in dir: URL) throws -> RealmLiteFigures {
    let url = dir.appendingPathComponent("people-\(n).realm")
    _ = try? Realm.deleteFiles(for: Realm.Configuration(fileURL: url))
    do {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [MPersonV0.self]))
        try realm.write {
            for i in 0..<n { realm.create(MPersonV0.self, value: ["name": "person \(i)", "age": i % 100]) }
        }
    }
    var figures = RealmLiteFigures()
    // Add one property: a migration without a block.
    var start = now()
    do {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [MPersonV1.self]))
        figures.addProperty = now() - start
        let people = realm.objects(MPersonV1.self)
        let counting = now()
        guard people.filter("score == 5 AND age < 50").count == n / 2 else { fail("add property: wrong result") }
        figures.countOld = now() - counting
        guard people.count == n else { fail("add property: wrong count") }
    }
    // Rewrite one property of every object in a migration block.
    start = now()
    do {
        let config = Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: { migration, _ in
            migration.enumerateObjects(ofType: "MPerson") { old, new in
                new!["years"] = (old!["age"] as! Int) * 12
            }
        }, objectTypes: [MPersonV2.self])
        let realm = try Realm(configuration: config)
        figures.rewrite = now() - start
        let people = realm.objects(MPersonV2.self)
        let counting = now()
        guard people.filter("score == 5 AND age < 50").count == n / 2 else { fail("rewrite: wrong count") }
        figures.countRewritten = now() - counting
        guard people.filter("years == 12").count == people.filter("age == 1").count, people.filter("age == 1").count > 0 else {
            fail("rewrite: wrong result")
        }
    }
    // Rename a property (renameProperty first in the block).
    start = now()
    do {
        let config = Realm.Configuration(fileURL: url, schemaVersion: 3, migrationBlock: { migration, _ in
            migration.renameProperty(onType: "MPerson", from: "name", to: "fullName")
        }, objectTypes: [MPersonV3.self])
        let realm = try Realm(configuration: config)
        figures.rename = now() - start
        guard realm.objects(MPersonV3.self).filter("fullName == 'person 7'").count == 1 else { fail("rename: wrong result") }
    }
    figures.fileBytes = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
    return figures
}

// MARK: - SQLite

struct SQLiteFigures {
    var addColumn = 0.0
    var update = 0.0
    var vacuum = 0.0
    var rename = 0.0
}

func sqliteExec(_ db: OpaquePointer, _ sql: String) {
    if sqlite3_exec(db, sql, nil, nil, nil) != SQLITE_OK { fail("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
}

func sqliteCount(_ db: OpaquePointer, _ sql: String) -> Int {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { fail(sql) }
    defer { sqlite3_finalize(statement) }
    guard sqlite3_step(statement) == SQLITE_ROW else { fail(sql) }
    return Int(sqlite3_column_int64(statement, 0))
}

func sqlite(_ n: Int, in dir: URL) -> SQLiteFigures {
    let path = dir.appendingPathComponent("people-\(n).sqlite").path
    var handle: OpaquePointer?
    guard sqlite3_open(path, &handle) == SQLITE_OK, let db = handle else { fail("open \(path)") }
    defer { sqlite3_close(db) }
    sqliteExec(db, "PRAGMA journal_mode = WAL")
    sqliteExec(db, "PRAGMA synchronous = FULL")
    sqliteExec(db, "CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL)")
    sqliteExec(db, "BEGIN")
    var insert: OpaquePointer?
    sqlite3_prepare_v2(db, "INSERT INTO person (name, age) VALUES (?, ?)", -1, &insert, nil)
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    for i in 0..<n {
        sqlite3_reset(insert)
        sqlite3_bind_text(insert, 1, "person \(i)", -1, transient)
        sqlite3_bind_int64(insert, 2, Int64(i % 100))
        if sqlite3_step(insert) != SQLITE_DONE { fail("insert") }
    }
    sqlite3_finalize(insert)
    sqliteExec(db, "COMMIT")
    var figures = SQLiteFigures()
    var start = now()
    sqliteExec(db, "ALTER TABLE person ADD COLUMN score INTEGER NOT NULL DEFAULT 5")
    figures.addColumn = now() - start
    guard sqliteCount(db, "SELECT count(*) FROM person WHERE score = 5") == n else { fail("sqlite add column: wrong result") }
    start = now()
    sqliteExec(db, "BEGIN")
    sqliteExec(db, "ALTER TABLE person ADD COLUMN years INTEGER NOT NULL DEFAULT 0")
    sqliteExec(db, "UPDATE person SET years = age * 12")
    sqliteExec(db, "COMMIT")
    figures.update = now() - start
    guard sqliteCount(db, "SELECT count(*) FROM person WHERE years = 12") == sqliteCount(db, "SELECT count(*) FROM person WHERE age = 1") else {
        fail("sqlite update: wrong result")
    }
    start = now()
    sqliteExec(db, "ALTER TABLE person RENAME COLUMN name TO fullName")
    figures.rename = now() - start
    start = now()
    sqliteExec(db, "VACUUM")
    figures.vacuum = now() - start
    return figures
}

// MARK: - Report

print("migration-bench: \(ProcessInfo.processInfo.activeProcessorCount) cores, sizes \(sizes.map(String.init).joined(separator: ", "))\(quick ? " (quick)" : "")")
print("  objects | RealmLite add property | SQLite ADD COLUMN | RealmLite rename | SQLite RENAME COLUMN | RealmLite rewrite (obj/s)   | SQLite UPDATE (rows/s)      | SQLite VACUUM | count, old records | count, rewritten")
for n in sizes {
    let r = try realmLite(n, in: dir)
    let s = sqlite(n, in: dir)
    let rRate = Double(n) / r.rewrite, sRate = Double(n) / s.update
    print(String(format: "%9d | %@           | %@       | %@      | %@          | %@ (%9.0f/s) | %@ (%9.0f/s) | %@   | %@        | %@",
                 n, ms(r.addProperty), ms(s.addColumn), ms(r.rename), ms(s.rename), ms(r.rewrite), rRate, ms(s.update), sRate, ms(s.vacuum),
                 ms(r.countOld), ms(r.countRewritten)))
}
