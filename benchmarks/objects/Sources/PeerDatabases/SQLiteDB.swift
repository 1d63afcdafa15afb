import GRDBSQLite

// Raw SQLite through its C API, as the objects package's benchmarks drive it:
// one connection, prepared statements made once and reset, WAL,
// synchronous = FULL.

public struct SQLiteError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// SQLITE_TRANSIENT: SQLite copies a bound text before the call returns.
public let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One connection with its prepared statements.
public final class SQLiteDB {
    public let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    /// Opens `path` (":memory:" for a database in memory, where the journal
    /// stays in memory whatever the pragma asks).
    public init(path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw SQLiteError(description: "open \(path)") }
        handle = db
        try exec("PRAGMA journal_mode = WAL")
        try exec("PRAGMA synchronous = FULL")
    }

    public func exec(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw failure(sql) }
    }

    public func failure(_ what: String) -> SQLiteError {
        SQLiteError(description: "\(what): \(String(cString: sqlite3_errmsg(handle)))")
    }

    /// The statement for `sql`, prepared on first use, reset and unbound.
    public func statement(_ sql: String) throws -> OpaquePointer {
        if let s = statements[sql] {
            sqlite3_reset(s)
            sqlite3_clear_bindings(s)
            return s
        }
        var s: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &s, nil) == SQLITE_OK, let s else { throw failure(sql) }
        statements[sql] = s
        return s
    }

    /// Resets every prepared statement: a lookup leaves its statement on
    /// its row, and a checkpoint refuses to run beside an active statement.
    public func resetStatements() {
        for s in statements.values { sqlite3_reset(s) }
    }

    /// Steps a statement that returns no rows.
    public func run(_ s: OpaquePointer) throws {
        guard sqlite3_step(s) == SQLITE_DONE else { throw failure("step") }
    }

    public func transaction(_ body: () throws -> Void) throws {
        try exec("BEGIN IMMEDIATE")
        do { try body() } catch { try? exec("ROLLBACK"); throw error }
        try exec("COMMIT")
    }

    public func close() {
        for s in statements.values { sqlite3_finalize(s) }
        statements = [:]
        sqlite3_close(handle)
    }
}
