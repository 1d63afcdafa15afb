import Foundation
import GRDBSQLite
import PeerDatabases

// Raw SQLite through its C API (PeerDatabases' SQLiteDB: prepared statements
// made once and reset, WAL, synchronous = FULL). The same schema as the GRDB
// engine.

private func text(_ s: OpaquePointer, _ column: Int32) -> String {
    String(cString: sqlite3_column_text(s, column))
}

final class SQLiteEngine: Engine {
    static let name = "sqlite"
    static var settings: String {
        "SQLite \(String(cString: sqlite3_libversion())) C API, prepared statements, WAL, synchronous=FULL, defaults otherwise"
    }

    private let ints: SQLiteDB
    private let people: SQLiteDB
    private let peoplePath: String

    init(directory: URL) throws {
        ints = try SQLiteDB(path: directory.appendingPathComponent("ints.sqlite").path)
        peoplePath = directory.appendingPathComponent("people.sqlite").path
        people = try SQLiteDB(path: peoplePath)
        try ints.exec("CREATE TABLE items (" + (0..<10).map { "i\($0) INTEGER NOT NULL" }.joined(separator: ", ") + ")")
        try people.exec("""
            CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL,
                                 score REAL NOT NULL, active INTEGER NOT NULL);
            CREATE TABLE named (indexedName TEXT NOT NULL, plainName TEXT NOT NULL);
            CREATE INDEX named_indexedName ON named(indexedName);
            """)
    }

    func insertInts(_ range: Range<Int>) throws {
        try ints.transaction {
            let s = try ints.statement("INSERT INTO items VALUES (?,?,?,?,?,?,?,?,?,?)")
            for i in range {
                sqlite3_reset(s)
                for c in 0..<10 { sqlite3_bind_int64(s, Int32(c + 1), Int64(i + c)) }
                try ints.run(s)
            }
        }
    }

    func fetchInts() throws -> Int {
        let s = try ints.statement("SELECT i0, i1, i2, i3, i4, i5, i6, i7, i8, i9 FROM items")
        var sum = 0
        while sqlite3_step(s) == SQLITE_ROW {
            for c in 0..<Int32(10) { sum &+= Int(sqlite3_column_int64(s, c)) }
        }
        return sum
    }

    private static func bindPerson(_ s: OpaquePointer, _ i: Int) {
        let v = PersonValues(i)
        sqlite3_bind_int64(s, 1, Int64(v.id))
        sqlite3_bind_text(s, 2, v.name, -1, transient)
        sqlite3_bind_int64(s, 3, Int64(v.age))
        sqlite3_bind_double(s, 4, v.score)
        sqlite3_bind_int64(s, 5, v.active ? 1 : 0)
    }

    private static let insertPerson = "INSERT INTO person VALUES (?,?,?,?,?)"

    func insertPeople(_ range: Range<Int>) throws {
        try people.transaction {
            let s = try people.statement(Self.insertPerson)
            for i in range {
                sqlite3_reset(s)
                Self.bindPerson(s, i)
                try people.run(s)
            }
        }
    }

    func peopleFileSize() throws -> Int {
        people.resetStatements()
        try people.exec("PRAGMA wal_checkpoint(TRUNCATE)")
        return try FileManager.default.attributesOfItem(atPath: peoplePath)[.size] as? Int ?? 0
    }

    func countAgeOver50Active() throws -> Int {
        let s = try people.statement("SELECT COUNT(*) FROM person WHERE age > 50 AND active = 1")
        guard sqlite3_step(s) == SQLITE_ROW else { throw people.failure("count") }
        return Int(sqlite3_column_int64(s, 0))
    }

    func enumeratePeople() throws -> Int {
        let s = try people.statement("SELECT id, name, age, score, active FROM person")
        var sum = 0
        while sqlite3_step(s) == SQLITE_ROW {
            let name = text(s, 1)
            sum = sum &+ Int(sqlite3_column_int64(s, 0)) &+ name.utf8.count &+ Int(sqlite3_column_int64(s, 2))
                &+ Int(sqlite3_column_double(s, 3)) &+ Int(sqlite3_column_int64(s, 4))
        }
        return sum
    }

    func lookupNames(ids: [Int]) throws -> Int {
        var sum = 0
        for id in ids {
            let s = try people.statement("SELECT name FROM person WHERE id = ?")
            sqlite3_bind_int64(s, 1, Int64(id))
            guard sqlite3_step(s) == SQLITE_ROW else { throw people.failure("lookup \(id)") }
            sum &+= text(s, 0).utf8.count
        }
        return sum
    }

    func insertNamedItems(_ count: Int) throws {
        try people.transaction {
            let s = try people.statement("INSERT INTO named VALUES (?, ?)")
            for i in 0..<count {
                sqlite3_reset(s)
                sqlite3_bind_text(s, 1, "n\(i)", -1, transient)
                sqlite3_bind_text(s, 2, "n\(i)", -1, transient)
                try people.run(s)
            }
        }
    }

    func lookupNamed(_ names: [String], indexed: Bool) throws -> Int {
        let sql = "SELECT indexedName, plainName FROM named WHERE \(indexed ? "indexedName" : "plainName") = ? LIMIT 1"
        var found = 0
        for name in names {
            let s = try people.statement(sql)
            sqlite3_bind_text(s, 1, name, -1, transient)
            if sqlite3_step(s) == SQLITE_ROW { found += 1 }
        }
        return found
    }

    func sortByScore() throws -> Double {
        let s = try people.statement("SELECT id, name, age, score, active FROM person ORDER BY score")
        var scores = SortedScores()
        while sqlite3_step(s) == SQLITE_ROW { scores.add(sqlite3_column_double(s, 3)) }
        return scores.sum
    }

    func durableTransactions(first: Int, updates: [Int]) throws {
        for k in updates.indices {
            try people.transaction {
                if k % 2 == 0 {
                    let s = try people.statement(Self.insertPerson)
                    Self.bindPerson(s, first + k)
                    try people.run(s)
                } else {
                    let s = try people.statement("UPDATE person SET score = score + 1 WHERE id = ?")
                    sqlite3_bind_int64(s, 1, Int64(updates[k]))
                    try people.run(s)
                }
            }
        }
    }

    func deleteAllPeople() throws -> Int {
        var deleted = 0
        try people.transaction {
            try people.run(try people.statement("DELETE FROM person"))
            deleted = Int(sqlite3_changes(people.handle))
        }
        return deleted
    }

    func close() throws { ints.close(); people.close() }

    static func createBig(at directory: URL, count: Int, bioBytes: Int) throws {
        let db = try SQLiteDB(path: directory.appendingPathComponent("big.sqlite").path)
        defer { db.close() }
        try db.exec("""
            CREATE TABLE profile (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL,
                                  score REAL NOT NULL, active INTEGER NOT NULL, bio TEXT NOT NULL)
            """)
        for start in stride(from: 0, to: count, by: 100_000) {
            try db.transaction {
                let s = try db.statement("INSERT INTO profile VALUES (?,?,?,?,?,?)")
                for i in start..<min(count, start + 100_000) {
                    sqlite3_reset(s)
                    bindPerson(s, i)
                    sqlite3_bind_text(s, 6, bio(i, bytes: bioBytes), -1, transient)
                    try db.run(s)
                }
            }
        }
    }

    static func openBigAndLookup(at directory: URL, id: Int) throws -> String {
        let db = try SQLiteDB(path: directory.appendingPathComponent("big.sqlite").path)
        defer { db.close() }
        let s = try db.statement("SELECT name FROM profile WHERE id = ?")
        sqlite3_bind_int64(s, 1, Int64(id))
        guard sqlite3_step(s) == SQLITE_ROW else { return "<missing>" }
        return text(s, 0)
    }
}
