import Foundation
import GRDBSQLite
import PeerDatabases

// Raw SQLite through its C API: the join tables (JoinTables.swift), every
// statement prepared once (SQLiteDB) and stepped in a loop.

final class SQLiteCollections: CollectionEngine {
    static let name = "sqlite"
    static var settings: String {
        "SQLite \(String(cString: sqlite3_libversion())) C API, prepared statements; \":memory:\", or a file with WAL and synchronous=FULL"
    }

    private let db: SQLiteDB
    private let path: String?

    init(path: String?) throws {
        self.path = path
        db = try SQLiteDB(path: path ?? ":memory:")
        try db.exec(joinTableSchema)
    }

    private func step(_ s: OpaquePointer) throws -> Bool {
        switch sqlite3_step(s) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw db.failure("step")
        }
    }

    private func insert(_ sql: String, _ values: Int...) throws {
        let s = try db.statement(sql)
        for (k, v) in values.enumerated() { sqlite3_bind_int64(s, Int32(k + 1), Int64(v)) }
        try db.run(s)
    }

    func createOwner(_ id: Int, ints size: Int, scale: Int) throws {
        try db.transaction { try insert("INSERT INTO owner VALUES (?)", id) }
        try inBatches(size) { range in
            try db.transaction {
                for i in range { try insert("INSERT INTO list_int VALUES (?, ?, ?)", id, i, i &* scale) }
            }
        }
    }

    /// One append: the next position from the index, then the row; `next`
    /// and `insert` are the two statements, prepared once per loop.
    private func append(_ owner: Int, _ value: Int, _ next: OpaquePointer, _ insert: OpaquePointer) throws {
        sqlite3_reset(next)
        sqlite3_bind_int64(next, 1, Int64(owner))
        guard try step(next) else { throw db.failure("max") }
        let position = sqlite3_column_type(next, 0) == SQLITE_NULL ? 0 : Int(sqlite3_column_int64(next, 0)) + 1
        sqlite3_reset(next)
        sqlite3_reset(insert)
        sqlite3_bind_int64(insert, 1, Int64(owner))
        sqlite3_bind_int64(insert, 2, Int64(position))
        sqlite3_bind_int64(insert, 3, Int64(value))
        try db.run(insert)
    }

    private func appendStatements() throws -> (OpaquePointer, OpaquePointer) {
        (try db.statement(nextPositionSQL), try db.statement("INSERT INTO list_int VALUES (?, ?, ?)"))
    }

    func appendInOwnWrites(_ owner: Int, _ values: Range<Int>) throws {
        let (next, insert) = try appendStatements()
        for v in values { try db.transaction { try append(owner, v, next, insert) } }
    }

    func appendInOneWrite(_ owner: Int, _ values: Range<Int>) throws {
        let (next, insert) = try appendStatements()
        try db.transaction { for v in values { try append(owner, v, next, insert) } }
    }

    func intsCountAndLast(_ owner: Int) throws -> (count: Int, last: Int?) {
        let s = try db.statement("SELECT COUNT(*), (SELECT value FROM list_int WHERE owner = ?1 ORDER BY position DESC LIMIT 1) FROM list_int WHERE owner = ?1")
        sqlite3_bind_int64(s, 1, Int64(owner))
        guard try step(s) else { throw db.failure("count") }
        let last = sqlite3_column_type(s, 1) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(s, 1))
        return (Int(sqlite3_column_int64(s, 0)), last)
    }

    func sumInts(_ owner: Int, at positions: [Int]) throws -> Int {
        let s = try db.statement("SELECT value FROM list_int WHERE owner = ? AND position = ?")
        sqlite3_bind_int64(s, 1, Int64(owner))
        var sum = 0
        for p in positions {
            sqlite3_reset(s)
            sqlite3_bind_int64(s, 2, Int64(p))
            guard try step(s) else { throw db.failure("position \(p)") }
            sum &+= Int(sqlite3_column_int64(s, 0))
        }
        return sum
    }

    func iterateInts(_ owner: Int) throws -> (count: Int, sum: Int) {
        let s = try db.statement("SELECT value FROM list_int WHERE owner = ? ORDER BY position")
        sqlite3_bind_int64(s, 1, Int64(owner))
        var count = 0, sum = 0
        while try step(s) { count += 1; sum &+= Int(sqlite3_column_int64(s, 0)) }
        return (count, sum)
    }

    func addItems(_ owner: Int, count: Int) throws {
        try inBatches(count) { range in
            try db.transaction {
                let s = try db.statement("INSERT INTO item VALUES (?, ?, ?)")
                for i in range {
                    sqlite3_reset(s)
                    sqlite3_bind_int64(s, 1, Int64(i))
                    sqlite3_bind_int64(s, 2, Int64(i))
                    sqlite3_bind_text(s, 3, itemName(i), -1, transient)
                    try db.run(s)
                    try insert("INSERT INTO list_item VALUES (?, ?, ?)", owner, i, i)
                }
            }
        }
    }

    /// Reads `number` alone: the column the other engines read.
    func iterateItems(_ owner: Int) throws -> (count: Int, sum: Int) {
        let s = try db.statement(itemsInOrderSQL.replacingOccurrences(of: "item.*", with: "item.number"))
        sqlite3_bind_int64(s, 1, Int64(owner))
        var count = 0, sum = 0
        while try step(s) { count += 1; sum &+= Int(sqlite3_column_int64(s, 0)) }
        return (count, sum)
    }

    func fillSetAndMap(_ owner: Int, count: Int) throws {
        try inBatches(count) { range in
            try db.transaction {
                for i in range { try insert("INSERT INTO set_int VALUES (?, ?)", owner, i) }
                let s = try db.statement("INSERT INTO map_int VALUES (?, ?, ?)")
                for i in range {
                    sqlite3_reset(s)
                    sqlite3_bind_int64(s, 1, Int64(owner))
                    sqlite3_bind_text(s, 2, mapKey(i), -1, transient)
                    sqlite3_bind_int64(s, 3, Int64(i))
                    try db.run(s)
                }
            }
        }
    }

    func containsCount(_ owner: Int, _ probes: [Int]) throws -> Int {
        let s = try db.statement("SELECT 1 FROM set_int WHERE owner = ? AND value = ?")
        sqlite3_bind_int64(s, 1, Int64(owner))
        var found = 0
        for p in probes {
            sqlite3_reset(s)
            sqlite3_bind_int64(s, 2, Int64(p))
            if try step(s) { found += 1 }
        }
        return found
    }

    func lookupSum(_ owner: Int, _ keys: [String]) throws -> Int {
        let s = try db.statement("SELECT value FROM map_int WHERE owner = ? AND key = ?")
        sqlite3_bind_int64(s, 1, Int64(owner))
        var sum = 0
        for k in keys {
            sqlite3_reset(s)
            sqlite3_bind_text(s, 2, k, -1, transient)
            guard try step(s) else { throw db.failure("key \(k)") }
            sum &+= Int(sqlite3_column_int64(s, 0))
        }
        return sum
    }

    /// VACUUM, then a WAL checkpoint (TRUNCATE): the main file alone holds it all.
    func compactedFileBytes() throws -> Int {
        db.resetStatements()
        try db.exec("VACUUM")
        try db.exec("PRAGMA wal_checkpoint(TRUNCATE)")
        return try FileManager.default.attributesOfItem(atPath: path!)[.size] as! Int
    }

    func close() throws { db.close() }
}
