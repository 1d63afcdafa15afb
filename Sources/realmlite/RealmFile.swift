import CStorage
import Foundation

/// A failure that ends a command: printed as one line on stderr, exit 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

/// A RealmLite file opened read-only: an engine environment and one read
/// transaction on its newest snapshot. Read-only opens take a reader slot
/// only, so writers in other processes are never blocked, and the snapshot
/// stays consistent while they commit.
final class RealmFile {
    let path: String
    let env: OpaquePointer
    private(set) var txn: OpaquePointer?
    /// cs_env_compact closed env.
    private var closed = false
    /// False leaves the env to process exit: closing a writable env waits
    /// for the write lock (to flush other processes' deferred commits), so
    /// a command refused because another process is writing must not close.
    var closeOnDeinit = true

    /// Opens `path` read-only (read-write if `writable`: import, and
    /// compaction in place; write transactions are then the caller's).
    /// Throws a one-line CLIError for a missing, foreign, truncated or
    /// damaged file.
    init(path: String, writable: Bool = false) throws {
        self.path = path
        // Checked first: the engine would create a lock file beside a
        // missing path before finding that the data file is absent.
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw CLIError("\(path): \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw CLIError("\(path): not a regular file") }
        var options = cs_options()
        options.flags = writable ? 0 : UInt32(CS_ENV_RDONLY)
        var env: OpaquePointer?
        // The engine makes the lock file before it reads the data file: on
        // a file it then refuses, remove the lock file if this open made it.
        let lockPath = path + ".lock"
        let hadLock = FileManager.default.fileExists(atPath: lockPath)
        let rc = cs_env_open(path, &options, &env)
        guard rc == 0, let env else {
            let error = RealmFile.error(rc, path: path, opening: true)
            if !hadLock, [CS_ENOTDB.rawValue, CS_EFORMAT.rawValue, CS_ECORRUPT.rawValue].contains(UInt32(rc)) {
                try? FileManager.default.removeItem(atPath: lockPath)
            }
            throw error
        }
        self.env = env
    }

    deinit {
        if let txn { cs_txn_abort(txn) }
        if !closed && closeOnDeinit { cs_env_close(env) }
    }

    /// Compacts the file in place (cs_env_compact: a compact copy renamed
    /// over it); the file must be open read-write, and in no other process.
    /// The RealmFile is closed afterwards.
    func compactInPlace() throws {
        endTxn()
        let rc = cs_env_compact(env, 0)
        if rc == Int32(CS_EBUSY.rawValue) {
            throw CLIError("\(path): open in another process; close it there to compact in place, or write a compact copy with --to OUT")
        }
        try check(rc)
        closed = true
    }

    /// One line for an engine error code, with the engine's detail.
    static func error(_ rc: Int32, path: String, opening: Bool = false) -> CLIError {
        let detail = String(cString: cs_last_error_detail())
        switch rc {
        case Int32(CS_ENOTDB.rawValue):
            return CLIError("\(path): not a RealmLite file (\(detail))")
        case Int32(CS_EFORMAT.rawValue):
            return CLIError("\(path): written in another format version (\(detail)); open it with the RealmLite version that wrote it")
        case Int32(CS_ECORRUPT.rawValue), Int32(CS_ETOODEEP.rawValue):
            return CLIError("\(path): damaged file (\(detail)); run realmlite check")
        case Int32(CS_ELOCK.rawValue):
            return CLIError("\(path): cannot use the lock file (\(detail))")
        case Int32(CS_EBUSY.rawValue):
            return CLIError("\(path): another process is writing to it (the write lock is held); try again when it is done")
        case Int32(CS_NOTFOUND.rawValue) where opening:
            return CLIError("\(path): no such file")
        default:
            return CLIError("\(path): \(String(cString: cs_strerror(rc))) (\(detail))")
        }
    }

    func check(_ rc: Int32) throws {
        if rc != 0 { throw RealmFile.error(rc, path: path) }
    }

    /// The read transaction (begun on first use).
    func readTxn() throws -> OpaquePointer {
        if let txn { return txn }
        var t: OpaquePointer?
        try check(cs_txn_begin(env, UInt32(CS_TXN_RDONLY), &t))
        txn = t
        return t!
    }

    /// Ends the read transaction (info reads the reader table without it).
    func endTxn() {
        if let txn { cs_txn_abort(txn) }
        txn = nil
    }

    /// Every tree name in the snapshot, in name order.
    func treeNames() throws -> [String] {
        final class Box { var names: [String] = [] }
        let box = Box()
        let rc = cs_tree_list(try readTxn(), { ctx, name, len in
            let box = Unmanaged<Box>.fromOpaque(ctx!).takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: name, count: len)
            box.names.append(String(decoding: bytes, as: UTF8.self))
            return 0
        }, Unmanaged.passUnretained(box).toOpaque())
        try check(rc)
        return box.names
    }

    /// The handle of tree `name`, or nil if the snapshot has no such tree.
    func tree(_ name: String) throws -> cs_tree? {
        var handle: cs_tree = 0
        let rc = cs_tree_open(try readTxn(), name, 0, &handle)
        if rc == Int32(CS_NOTFOUND.rawValue) { return nil }
        try check(rc)
        return handle
    }

    func treeStat(_ tree: cs_tree) throws -> cs_tree_stat {
        var st = cs_tree_stat()
        try check(cs_tree_get_stat(try readTxn(), tree, &st))
        return st
    }

    /// A copy of the value of `key` in `tree`, or nil.
    func get(_ tree: cs_tree, _ key: [UInt8]) throws -> [UInt8]? {
        var value = cs_val()
        let txn = try readTxn()
        let rc = key.withUnsafeBytes { raw in
            cs_get(txn, tree, cs_val(data: raw.baseAddress, size: raw.count), &value)
        }
        if rc == Int32(CS_NOTFOUND.rawValue) { return nil }
        try check(rc)
        return Array(UnsafeRawBufferPointer(start: value.data, count: value.size))
    }

    /// The stored schema (realm:meta, key "schema").
    func schema() throws -> FileSchema {
        guard let meta = try tree("realm:meta") else {
            throw CLIError("\(path): no RealmLite schema (a CStorage file without the realm:meta tree)")
        }
        guard let bytes = try get(meta, Array("schema".utf8)) else {
            throw CLIError("\(path): no RealmLite schema (realm:meta has no schema entry)")
        }
        return try FileSchema.decode(bytes, path: path)
    }

    /// Calls body with each entry of `tree` in key order, batch by batch
    /// (one leaf at a time): constant memory however large the tree.
    func forEach(_ tree: cs_tree, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) throws {
        var cursor: OpaquePointer?
        try check(cs_cursor_open(try readTxn(), tree, &cursor))
        defer { cs_cursor_close(cursor) }
        let cap = 256
        var keys = [cs_val](repeating: cs_val(), count: cap)
        var vals = [cs_val](repeating: cs_val(), count: cap)
        while true {
            var n = 0
            let rc = cs_cursor_next_batch(cursor, &keys, &vals, cap, &n)
            if rc == Int32(CS_NOTFOUND.rawValue) { return }
            try check(rc)
            for i in 0..<n {
                try body(UnsafeRawBufferPointer(start: keys[i].data, count: keys[i].size),
                         UnsafeRawBufferPointer(start: vals[i].data, count: vals[i].size))
            }
        }
    }
}
