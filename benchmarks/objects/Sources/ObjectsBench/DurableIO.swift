import BenchModels
import IOCount

/// What durable one-object transactions cost an engine: their rate, and
/// per transaction the bytes handed to write calls on files, the write
/// calls, the flushes (IOCount: counted at the libc boundary, every engine
/// alike), and the bytes once a WAL checkpoint (TRUNCATE, GRDB and SQLite;
/// nothing for RealmLite) has followed them.
struct DurableIO {
    let perSecond, bytes, writes, flushes, bytesCheckpointed: Double

    /// Runs `engine.durableTransactions(first:updates:)` counted.
    init(_ engine: any Engine, name: String, first: Int, updates: [Int]) throws {
        iocount_enable(true)
        defer { iocount_enable(false) }
        let before = iocount_now()
        let (secs, _) = try timed { try engine.durableTransactions(first: first, updates: updates) }
        let after = iocount_now()
        _ = try engine.peopleFileSize() // GRDB, SQLite: checkpoints the WAL
        let checkpointed = iocount_now()
        // Every engine runs fully durable: a transaction that flushed nothing
        // means the counters missed the engine's I/O.
        if after.flushes - before.flushes < UInt64(updates.count) {
            fatalError("\(name): \(after.flushes - before.flushes) flushes counted for \(updates.count) durable transactions")
        }
        let txns = Double(updates.count)
        perSecond = txns / secs
        bytes = Double(after.bytes - before.bytes) / txns
        writes = Double(after.writes - before.writes) / txns
        flushes = Double(after.flushes - before.flushes) / txns
        bytesCheckpointed = Double(checkpointed.bytes - before.bytes) / txns
    }
}
