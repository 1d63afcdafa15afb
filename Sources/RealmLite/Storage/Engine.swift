import CStorage
import Foundation

// The object layer's one seam over the storage engine (CStorage). Every
// engine call RealmLite makes goes through the types below, and each kind of
// call fails in one way, decided here rather than at each call site:
//
//   kind of call                         on failure
//   -----------------------------------  -----------------------------------
//   lifecycle: open, begin, commit,      throws Realm.Error: the caller can
//   sync, clone, open a tree, reads      report it or try again (a damaged
//   while opening (`lookup`), writes     file must not stop the program)
//   whose caller throws (`store`:
//   schema, key counters at commit)
//   reads: get, count, cursors, diffs;   stops with the Realm.Error's message:
//   renew (it has no caller to throw     a read fails only on a damaged file
//   to)                                  or a RealmLite bug, and RealmSwift's
//                                        reads cannot throw
//   filtered counts and record filters   nil: the caller's general path
//   (`countMatching`, `filterRecords`)   reads the records and decides
//   writes inside a write transaction    recorded on the WriteTransaction
//   (WriteTransaction.put/claim/         (its first error): write {} and
//   delete/clear, below)                 commitWrite() cancel and throw it,
//                                        since RealmSwift's mutators cannot
//                                        throw either
//
// CS_NOTFOUND is never a failure: reads return nil, deletes ignore it.
// The absent tree (`absentTree`, FileLayout.swift) reads as empty. Raw
// writes are private to this file, so no caller can drop a write's error.

let csOK: Int32 = 0
let csNotFound = Int32(CS_NOTFOUND.rawValue)
let csExists = Int32(CS_EXISTS.rawValue)

/// Turns an engine return code into a Realm.Error.
func storageError(_ rc: Int32, _ what: String) -> Realm.Error {
    let name = String(cString: cs_strerror(rc))
    let detail = String(cString: cs_last_error_detail())
    let code: Realm.Error.Code
    switch UInt32(rc) {
    case CS_EREADONLY.rawValue: code = .readOnly
    case CS_EIO.rawValue: code = .fileAccess
    case CS_ELOCK.rawValue: code = .incompatibleLockFile
    case CS_EFORMAT.rawValue: code = .fileFormatUpgradeRequired
    case CS_ENOTDB.rawValue: code = .invalidDatabase
    case CS_EKEYSIZE.rawValue, CS_EVALSIZE.rawValue: code = .invalidValue
    default: code = .storage
    }
    let suffix = detail.isEmpty ? "" : " (\(detail))"
    return Realm.Error(code, "\(what) failed: \(name)\(suffix)")
}

/// Lifecycle calls: throw.
@inline(__always)
func check(_ rc: Int32, _ what: @autoclosure () -> String) throws {
    if rc != csOK { throw storageError(rc, what()) }
}

/// Reads: stop.
@inline(__always)
func mustSucceed(_ rc: Int32, _ what: @autoclosure () -> String) {
    if rc != csOK { realmFatal(storageError(rc, what())) }
}

// MARK: - Keys and values

/// Object keys and other integers inside tree keys are big-endian so that
/// memcmp order is numeric order.
@inline(__always)
func withKey<R>(_ key: UInt64, _ body: (cs_val) throws -> R) rethrows -> R {
    var be = key.bigEndian
    return try withUnsafeBytes(of: &be) { try body(cs_val(data: $0.baseAddress, size: 8)) }
}

@inline(__always)
func withBytesKey<R>(_ bytes: [UInt8], _ body: (cs_val) throws -> R) rethrows -> R {
    try bytes.withUnsafeBytes { try body(cs_val(data: $0.baseAddress, size: $0.count)) }
}

@inline(__always)
func withBytesKey<R>(_ bytes: UnsafeRawBufferPointer, _ body: (cs_val) throws -> R) rethrows -> R {
    try body(cs_val(data: bytes.baseAddress, size: bytes.count))
}

/// The big-endian u64 at `offset` of a key or value.
@inline(__always)
func keyValue(_ val: cs_val, at offset: Int = 0) -> UInt64 {
    UInt64(bigEndian: UnsafeRawPointer(val.data!).loadUnaligned(fromByteOffset: offset, as: UInt64.self))
}

func bytes(of val: cs_val) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: val.data, count: val.size)
}

/// Byte-for-byte equality in one `memcmp`: `elementsEqual` on raw buffers
/// walks them a byte at a time through two iterators, several instructions
/// per byte, which showed up on every write transaction's schema check.
@inline(__always)
func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
}

@inline(__always)
func sameBytes(_ a: UnsafeRawBufferPointer, _ b: [UInt8]) -> Bool {
    b.withUnsafeBytes { sameBytes(a, $0) }
}

// MARK: - Environments

extension SharedEnv {
    /// A read transaction on the newest version.
    func beginRead() throws -> EngineTxn {
        var handle: OpaquePointer?
        try check(cs_txn_begin(self.handle, UInt32(CS_TXN_RDONLY), &handle), "Beginning a read transaction")
        return EngineTxn(handle: handle!)
    }

    /// The write transaction; nil when `wait` is false and another writer
    /// holds the lock. Throws if this thread already writes through another
    /// Realm instance (the engine's lock is per thread).
    func beginWrite(wait: Bool) throws -> EngineTxn? {
        var handle: OpaquePointer?
        let rc = cs_txn_begin(self.handle, wait ? 0 : UInt32(CS_TXN_TRY), &handle)
        if UInt32(rc) == CS_EBUSY.rawValue {
            if !wait { return nil }
            throw Realm.Error(.wrongTransactionState,
                              "This thread already has a write transaction open on '\(path)' through another Realm instance; commit or cancel it first.")
        }
        try check(rc, "Beginning a write transaction")
        return EngineTxn(handle: handle!)
    }

    /// Makes every commit so far durable (deferred commits included).
    func sync(_ what: String) throws {
        try check(cs_env_sync(handle), what)
    }

    /// sync(), for callers that hand the error on (completion callbacks).
    func syncError(_ what: String) -> Realm.Error? {
        let rc = cs_env_sync(handle)
        return rc == csOK ? nil : storageError(rc, what)
    }

    /// True if the file is open through another environment now: another
    /// process, or another configuration of this process (read-only and
    /// read-write ones open the file separately).
    func isOpenElsewhere() throws -> Bool {
        var others: Int32 = 0
        try check(cs_env_shared(handle, &others), "Asking whether another process has '\(path)' open")
        return others != 0
    }

    /// Distinct versions pinned by readers.
    func activeVersions() throws -> UInt32 {
        var pinned: UInt32 = 0
        try check(cs_env_active_versions(handle, &pinned), "Counting active versions")
        return pinned
    }

    /// Blocks until no writer holds the lock (takes and drops it). A failure
    /// to take it is left to the caller's next begin, which reports it.
    func waitForWriteLock() {
        var txn: OpaquePointer?
        if cs_txn_begin(handle, 0, &txn) == csOK { cs_txn_abort(txn) }
    }
}

// MARK: - Copies and compaction

extension SharedEnv {
    /// A compact, checked copy of the newest version as the new file `copy`.
    func writeCopy(to copy: String) throws {
        let rc = cs_env_copy(handle, copy, 0)
        switch UInt32(rc) {
        case CS_EXISTS.rawValue:
            throw Realm.Error(.fileExists, "Cannot write a copy of '\(path)' to '\(copy)': a file exists there. writeCopy writes a new file: remove it or choose another path.")
        case CS_NOTFOUND.rawValue:
            throw Realm.Error(.fileNotFound, "Cannot write a copy of '\(path)' to '\(copy)': its directory does not exist.")
        default:
            try check(rc, "Writing a copy of '\(path)' to '\(copy)'")
        }
    }
}

/// Removes the files of the database at `path` and the shared memory a
/// killed process may have left for it (cs_env_remove). Throws `.fileAccess`
/// while a process has it open.
func removeDatabaseFiles(_ path: String) throws {
    let rc = cs_env_remove(path)
    if UInt32(rc) == CS_EBUSY.rawValue {
        throw Realm.Error(.fileAccess, "Cannot delete the files of '\(path)': another process has it open. Close it there first.")
    }
    guard rc == csOK else { throw Realm.Error(.fileAccess, storageError(rc, "Deleting '\(path)'").message) }
}

/// shouldCompactOnLaunch on a file just opened (`handle`, the only env of
/// it in this process): when no other process has it open, asks
/// `shouldCompact(fileBytes, usedBytes)` and compacts in place if it says
/// so. Returns the env to use: `handle`, or after a compaction a new one
/// from `reopen`. Takes `handle`: it is closed if this throws.
func compactOnLaunch(_ handle: OpaquePointer, path: String, shouldCompact: (Int, Int) -> Bool,
                     reopen: () throws -> OpaquePointer) throws -> OpaquePointer {
    var others: Int32 = 1
    // Another process has it open: as in Realm, only the first opener compacts.
    guard cs_env_shared(handle, &others) == csOK, others == 0 else { return handle }
    var info = cs_env_info()
    let rc = cs_env_get_info(handle, &info)
    guard rc == csOK else {
        cs_env_close(handle)
        throw storageError(rc, "Reading the size of '\(path)'")
    }
    let used = (info.next_pgno - info.free_pages - info.pending_pages) * UInt64(info.page_size)
    guard shouldCompact(Int(info.file_size), Int(used)) else {
        realmLog(.detail, Category.Storage.all, "shouldCompactOnLaunch declined to compact '\(path)' (\(info.file_size) bytes, \(used) used)")
        return handle
    }
    let compacted = cs_env_compact(handle, 0)
    // Opened by another process meanwhile: left as it is, like above.
    if UInt32(compacted) == CS_EBUSY.rawValue {
        realmLog(.info, Category.Storage.all, "Not compacting '\(path)' on launch: another process opened it")
        return handle
    }
    guard compacted == csOK else {
        cs_env_close(handle)
        throw storageError(compacted, "Compacting '\(path)' on launch")
    }
    return try reopen() // cs_env_compact closed handle
}

// MARK: - Transactions

/// One engine transaction: a read snapshot or the write transaction. A
/// value: whoever began it ends it (commit/abort); the object layer's
/// owners are ReadContext (snapshots) and WriteTransaction.
struct EngineTxn {
    let handle: OpaquePointer

    /// The version read (for a write: the version it will commit as).
    var id: UInt64 { cs_txn_id(handle) }

    /// The value of `key`, or nil.
    @inline(__always)
    func get(_ tree: cs_tree, _ key: cs_val, _ what: @autoclosure () -> String) -> cs_val? {
        guard tree != absentTree else { return nil }
        var value = cs_val()
        let rc = cs_get(handle, tree, key, &value)
        if _fastPath(rc == csOK) { return value }
        if rc == csNotFound { return nil }
        realmFatal(storageError(rc, what()))
    }

    /// The value of the entry at rank `index` of `tree` (no cursor moves),
    /// or nil past the end; stops on a storage failure.
    func value(_ tree: cs_tree, atIndex index: Int, _ what: @autoclosure () -> String) -> cs_val? {
        guard tree != absentTree, index >= 0 else { return nil }
        var value = cs_val()
        let rc = cs_get_index(handle, tree, UInt64(index), &value)
        if _fastPath(rc == csOK) { return value }
        if rc == csNotFound { return nil }
        realmFatal(storageError(rc, what()))
    }

    /// The value of `key`, or nil; throws on failure (reads while opening).
    func lookup(_ tree: cs_tree, _ key: cs_val, _ what: @autoclosure () -> String) throws -> cs_val? {
        guard tree != absentTree else { return nil }
        var value = cs_val()
        let rc = cs_get(handle, tree, key, &value)
        if rc == csNotFound { return nil }
        try check(rc, what())
        return value
    }

    @inline(__always)
    func get(_ tree: cs_tree, key: UInt64, _ what: @autoclosure () -> String) -> cs_val? {
        withKey(key) { get(tree, $0, what()) }
    }

    /// Entries in the tree (O(1)); 0 for an absent tree.
    func count(_ tree: cs_tree, _ what: @autoclosure () -> String) -> Int {
        guard tree != absentTree else { return 0 }
        var n: UInt64 = 0
        let rc = cs_count(handle, tree, &n)
        if rc == csNotFound { return 0 }
        mustSucceed(rc, what())
        return Int(n)
    }

    /// A new cursor on `tree` (nil if the tree is absent); the caller closes
    /// it, or lets the transaction's end close it.
    func openCursor(_ tree: cs_tree) -> EngineCursor? {
        guard tree != absentTree else { return nil }
        var cursor: OpaquePointer?
        let rc = cs_cursor_open(handle, tree, &cursor)
        if rc == csNotFound { return nil }
        mustSucceed(rc, "Opening a cursor")
        return EngineCursor(handle: cursor!)
    }

    /// Runs `body` with a cursor of its own on `tree`, closed afterwards.
    func withCursor<R>(_ tree: cs_tree, _ body: (EngineCursor) throws -> R) rethrows -> R? {
        guard let cursor = openCursor(tree) else { return nil }
        defer { cursor.close() }
        return try body(cursor)
    }

    /// Records of `tree` passing `filter`, counted in the engine; nil if a
    /// record is one the filter cannot read (the caller's general path decides).
    func countMatching(_ tree: cs_tree, _ filter: UnsafePointer<cs_filter>) -> Int? {
        guard tree != absentTree else { return 0 }
        var n: UInt64 = 0
        return cs_count_matching(handle, tree, filter, &n) == csOK ? Int(n) : nil
    }

    /// Calls `body(kind, key, old value, new value)` for each entry of
    /// `tree` that differs between `old` and this snapshot (cost
    /// proportional to the change).
    func changes(from old: EngineTxn, in tree: cs_tree, _ what: @autoclosure () -> String,
                 _ body: (cs_diff_kind, cs_val, cs_val, cs_val) -> Void) {
        guard tree != absentTree else { return }
        withoutActuallyEscaping(body) { body in
            final class Box {
                let body: (cs_diff_kind, cs_val, cs_val, cs_val) -> Void
                init(_ body: @escaping (cs_diff_kind, cs_val, cs_val, cs_val) -> Void) { self.body = body }
            }
            let box = Box(body)
            let rc = cs_tree_diff(old.handle, handle, tree, { ctx, kind, key, oldValue, newValue in
                Unmanaged<Box>.fromOpaque(ctx!).takeUnretainedValue().body(kind, key, oldValue, newValue)
                return 0
            }, Unmanaged.passUnretained(box).toOpaque())
            mustSucceed(rc, what())
        }
    }

    /// The tree named `name`: `absentTree` if it does not exist and
    /// `create` is false (a read-only Realm on a file that lacks a class).
    func openTree(_ name: String, create: Bool) throws -> cs_tree {
        var tree: cs_tree = 0
        let rc = cs_tree_open(handle, name, create ? UInt32(CS_CREATE) : 0, &tree)
        if rc == csNotFound && !create { return absentTree }
        try check(rc, "Opening tree '\(name)'")
        return tree
    }

    // Lifecycle.

    func commit(deferFlush: Bool) throws {
        try check(deferFlush ? cs_txn_commit_deferred(handle) : cs_txn_commit(handle), "Committing the write transaction")
    }

    func abort() { cs_txn_abort(handle) }

    /// A read transaction lets its snapshot go, keeping its slot for renew().
    func reset() { cs_txn_reset(handle) }

    /// A reset read transaction takes the newest snapshot.
    func renew() { mustSucceed(cs_txn_renew(handle), "Renewing the read transaction") }

    /// Another read transaction on the same snapshot (for another thread).
    func clone(_ what: String) throws -> EngineTxn {
        var copy: OpaquePointer?
        try check(cs_txn_clone(handle, &copy), what)
        return EngineTxn(handle: copy!)
    }

    // Raw writes: for WriteTransaction (below), which records their failures.

    @inline(__always)
    fileprivate func put(_ tree: cs_tree, _ key: cs_val, _ value: cs_val, flags: UInt32 = 0) -> Int32 {
        cs_put(handle, tree, key, value, flags)
    }

    @inline(__always)
    fileprivate func delete(_ tree: cs_tree, _ key: cs_val) -> Int32 { cs_del(handle, tree, key) }

    fileprivate func clear(_ tree: cs_tree) -> Int32 { cs_tree_clear(handle, tree) }

    /// Sets `key` to `value`, throwing: for schema changes and the object key
    /// counters saved at commit, whose callers throw rather than record.
    func store(_ tree: cs_tree, _ key: [UInt8], _ value: UnsafeRawBufferPointer, _ what: @autoclosure () -> String) throws {
        let rc = withBytesKey(key) { k in cs_put(handle, tree, k, cs_val(data: value.baseAddress, size: value.count), 0) }
        try check(rc, what())
    }

    /// Empties a tree, throwing (schema changes: migrations, resets).
    func clearThrowing(_ tree: cs_tree, _ what: @autoclosure () -> String) throws {
        try check(clear(tree), what())
    }
}

/// Runs a compiled record filter over `count` records; the indexes of those
/// that pass go to `matches` (room for `count`). Returns how many passed, or
/// nil if a record is one the filter cannot read (the caller's general path
/// decides).
@inline(__always)
func filterRecords(_ filter: UnsafePointer<cs_filter>, _ values: UnsafePointer<cs_val>, _ count: Int,
                   _ matches: UnsafeMutablePointer<UInt32>) -> Int? {
    var matched = 0
    return cs_filter_values(filter, values, count, matches, &matched) == csOK ? matched : nil
}

// MARK: - Writes

/// The writes of a write transaction: each records its failure on the
/// transaction and bumps the core's generation.
extension WriteTransaction {
    /// Sets `key` to `value`; false after recording a failure.
    @discardableResult @inline(__always)
    func put(_ tree: cs_tree, _ key: cs_val, _ value: cs_val, _ what: @autoclosure () -> String) -> Bool {
        let rc = txn.put(tree, key, value)
        changed()
        if _slowPath(rc != csOK) { fail(storageError(rc, what())); return false }
        return true
    }

    /// put() that leaves a run of appends' marker pending: only for that
    /// run's own elements (ListAppend.swift).
    @discardableResult @inline(__always)
    func putInAppendRun(_ tree: cs_tree, _ key: cs_val, _ value: cs_val, _ what: @autoclosure () -> String) -> Bool {
        let rc = engineContext.txn.put(tree, key, value)
        changed()
        if _slowPath(rc != csOK) { fail(storageError(rc, what())); return false }
        return true
    }

    @discardableResult
    func put(_ tree: cs_tree, _ key: [UInt8], _ value: [UInt8], _ what: @autoclosure () -> String) -> Bool {
        withBytesKey(key) { k in withBytesKey(value) { put(tree, k, $0, what()) } }
    }

    enum Claim { case claimed, exists, failed }

    /// Sets `key` only if it is absent (one descent both checks and inserts).
    func claim(_ tree: cs_tree, _ key: cs_val, _ value: cs_val, _ what: @autoclosure () -> String) -> Claim {
        let rc = txn.put(tree, key, value, flags: UInt32(CS_NOOVERWRITE))
        changed()
        if rc == csOK { return .claimed }
        if rc == csExists { return .exists }
        fail(storageError(rc, what()))
        return .failed
    }

    /// Removes `key` (absent is fine).
    func delete(_ tree: cs_tree, _ key: cs_val, _ what: @autoclosure () -> String) {
        let rc = txn.delete(tree, key)
        changed()
        if rc != csOK && rc != csNotFound { fail(storageError(rc, what())) }
    }

    func delete(_ tree: cs_tree, _ key: [UInt8], _ what: @autoclosure () -> String) {
        withBytesKey(key) { delete(tree, $0, what()) }
    }

    /// Removes every entry of `tree` (absent is fine).
    func clear(_ tree: cs_tree, _ what: @autoclosure () -> String) {
        let rc = txn.clear(tree)
        changed()
        if rc != csOK && rc != csNotFound { fail(storageError(rc, what())) }
    }
}

// MARK: - Cursors

/// A position in one tree of one transaction. Moves return the entry they
/// land on, or nil past the end (or when the key or index does not exist).
struct EngineCursor {
    typealias Entry = (key: cs_val, value: cs_val)
    let handle: OpaquePointer

    @inline(__always)
    private func move(_ op: cs_cursor_op, from start: cs_val = cs_val()) -> Entry? {
        var key = start, value = cs_val()
        let rc = cs_cursor_get(handle, &key, &value, op)
        if _fastPath(rc == csOK) { return (key, value) }
        if rc == csNotFound { return nil }
        realmFatal(storageError(rc, "Reading through a cursor"))
    }

    /// A move that reads the key only (a value stored out of line is not
    /// touched).
    @inline(__always)
    private func moveKey(_ op: cs_cursor_op, from start: cs_val = cs_val()) -> cs_val? {
        var key = start
        let rc = cs_cursor_get(handle, &key, nil, op)
        if _fastPath(rc == csOK) { return key }
        if rc == csNotFound { return nil }
        realmFatal(storageError(rc, "Reading through a cursor"))
    }

    @inline(__always) func first() -> Entry? { move(CS_FIRST) }
    @inline(__always) func last() -> Entry? { move(CS_LAST) }
    @inline(__always) func next() -> Entry? { move(CS_NEXT) }
    @inline(__always) func prev() -> Entry? { move(CS_PREV) }
    @inline(__always) func firstKey() -> cs_val? { moveKey(CS_FIRST) }
    @inline(__always) func lastKey() -> cs_val? { moveKey(CS_LAST) }
    @inline(__always) func nextKey() -> cs_val? { moveKey(CS_NEXT) }
    /// The first entry at or after `key`.
    @inline(__always) func seek(_ key: cs_val) -> Entry? { move(CS_SEEK, from: key) }
    /// The entry of exactly `key`.
    @inline(__always) func seekExact(_ key: cs_val) -> Entry? { move(CS_SEEK_EXACT, from: key) }

    /// The entry at rank `index` (O(log n)).
    func seek(toIndex index: Int) -> Entry? {
        guard index >= 0 else { return nil }
        var key = cs_val(), value = cs_val()
        let rc = cs_cursor_seek_index(handle, UInt64(index), &key, &value)
        if rc == csOK { return (key, value) }
        if rc == csNotFound { return nil }
        realmFatal(storageError(rc, "Reading by position"))
    }

    /// The rank of the current entry.
    func index() -> Int {
        var position: UInt64 = 0
        mustSucceed(cs_cursor_index(handle, &position), "Reading a position")
        return Int(position)
    }

    /// The next entries up to the end of the current leaf (at most
    /// `capacity`; keys only if `keys` is given); 0 at the end.
    @inline(__always)
    func nextBatch(keys: UnsafeMutablePointer<cs_val>?, values: UnsafeMutablePointer<cs_val>, capacity: Int) -> Int {
        var count = 0
        let rc = cs_cursor_next_batch(handle, keys, values, capacity, &count)
        if _fastPath(rc == csOK) { return count }
        if rc == csNotFound { return 0 }
        realmFatal(storageError(rc, "Reading a batch of records"))
    }

    /// `nextBatch` for object trees: each key's id (its last 8 bytes,
    /// big-endian) into `ids`, with no key assembled; 0 at the end.
    @inline(__always)
    func nextIDs(_ ids: UnsafeMutablePointer<UInt64>, values: UnsafeMutablePointer<cs_val>, capacity: Int) -> Int {
        var count = 0
        let rc = cs_cursor_next_ids(handle, ids, values, capacity, &count)
        if _fastPath(rc == csOK) { return count }
        if rc == csNotFound { return 0 }
        realmFatal(storageError(rc, "Reading a batch of records"))
    }

    /// A filtered scan of an object tree: the next entries after the
    /// cursor whose records pass `filter`, evaluated by the engine where
    /// the records lie (at most `capacity`: ids and values as `nextIDs`);
    /// 0 at the end. nil when the engine cannot read a record with the
    /// filter (too short, of another layout): the caller's general filter
    /// decides then, as after `filterRecords`.
    @inline(__always)
    func nextMatching(_ filter: UnsafePointer<cs_filter>, ids: UnsafeMutablePointer<UInt64>,
                      values: UnsafeMutablePointer<cs_val>, capacity: Int) -> Int? {
        var count = 0
        let rc = cs_cursor_next_matching(handle, filter, ids, values, capacity, &count)
        if _fastPath(rc == csOK) { return count }
        if rc == csNotFound { return 0 }
        if rc == Int32(CS_ECORRUPT.rawValue) || rc == Int32(CS_EFORMAT.rawValue) || rc == Int32(CS_EINVAL.rawValue) { return nil }
        realmFatal(storageError(rc, "Reading the records a query matches"))
    }

    /// Calls `body(key, value)` for each entry whose key starts with
    /// `prefix`, in key order, until it returns false. `values: false`
    /// reads keys only (the value passed is empty).
    func forEach(prefix: UnsafeRawBufferPointer, values: Bool = true, _ body: (cs_val, cs_val) -> Bool) {
        let start = cs_val(data: prefix.baseAddress, size: prefix.count)
        var entry = values ? seek(start) : moveKey(CS_SEEK, from: start).map { ($0, cs_val()) }
        while let (key, value) = entry, key.size >= prefix.count,
              prefix.isEmpty || memcmp(key.data, prefix.baseAddress!, prefix.count) == 0 {
            if !body(key, value) { return }
            entry = values ? next() : nextKey().map { ($0, cs_val()) }
        }
    }

    func close() { cs_cursor_close(handle) }
}

// MARK: - Full-text search (CStorage fts.c)

/// The engine's message for a malformed full-text query, nil if `query` is valid.
func fullTextQueryProblem(_ query: String) -> String? {
    var match: Int32 = 0
    var query = query
    let rc = query.withUTF8 { q in cs_fts_match(q.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, q.count, nil, 0, &match) }
    return rc == csOK ? nil : String(cString: cs_last_error_detail())
}

/// Whether `text` (UTF-8) satisfies the (valid) full-text query.
func fullTextMatches(_ query: String, _ text: UnsafeRawBufferPointer) -> Bool {
    var match: Int32 = 0
    var query = query
    let rc = query.withUTF8 { q in
        cs_fts_match(q.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, q.count,
                     text.baseAddress?.assumingMemoryBound(to: UInt8.self), text.count, &match)
    }
    mustSucceed(rc, "Matching a full-text query")
    return match != 0
}

extension EngineTxn {
    /// The keys of the objects (`objects`: their tree) whose full-text index
    /// `index` satisfies the (valid) query, ascending.
    func fullTextSearch(_ index: cs_tree, objects: cs_tree, _ query: String) -> [UInt64] {
        var keys: UnsafeMutablePointer<UInt64>?
        var count = 0
        var query = query
        let rc = query.withUTF8 { q in
            cs_fts_search(handle, index, objects, q.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                          q.count, &keys, &count)
        }
        mustSucceed(rc, "Searching a full-text index")
        defer { free(keys) }
        return keys.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    }
}

extension WriteTransaction {
    /// Moves object `key`'s entries in the full-text index `tree` from the
    /// words of `old` to those of `new` (nil: no text).
    func updateFullText(_ tree: cs_tree, key: UInt64, old: UnsafeRawBufferPointer?, new: UnsafeRawBufferPointer?,
                        _ what: @autoclosure () -> String) {
        let o = old?.baseAddress?.assumingMemoryBound(to: UInt8.self), n = new?.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let rc = cs_fts_index_update(txn.handle, tree, key, o, o == nil ? 0 : old!.count, n, n == nil ? 0 : new!.count)
        changed()
        if rc != csOK { fail(storageError(rc, what())) }
    }
}

/// The stored byte of a Bool (1 or 0), as a buffer valid for the process:
/// what `RecordView.field` returns for a Bool held in its null bit.
@inlinable @inline(__always)
func boolByte(_ value: Bool) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: UnsafeRawPointer(cs_bool_bytes_ptr()) + (value ? 1 : 0), count: 1)
}
