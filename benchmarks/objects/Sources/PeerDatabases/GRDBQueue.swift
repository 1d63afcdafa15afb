import GRDB

/// A GRDB 7 DatabaseQueue as the objects package's benchmarks open it: WAL,
/// synchronous = FULL, SQLite's defaults otherwise. `path` nil: a database
/// in memory (its journal stays in memory).
public func openGRDBQueue(_ path: String?) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.prepareDatabase { db in
        try db.execute(sql: "PRAGMA synchronous = FULL")
    }
    let queue = try path.map { try DatabaseQueue(path: $0, configuration: configuration) }
        ?? DatabaseQueue(configuration: configuration)
    try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
    return queue
}
