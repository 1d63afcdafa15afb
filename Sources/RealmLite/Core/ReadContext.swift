import CStorage
import Foundation

/// One engine transaction and the cursors opened on it: what a core reads
/// through. A live core has one on its read snapshot, its WriteTransaction
/// one on the write transaction, and a frozen core one per thread on its
/// pinned version (FrozenReaders).
///
/// Confined to one thread at a time, like the engine transaction under it.
final class ReadContext {
    let txn: EngineTxn
    private var cursors: [cs_tree: EngineCursor] = [:]
    /// The tree of the last cursor handed out, and that cursor: a loop of
    /// reads of one tree (list index access) skips the dictionary's hashing.
    private var lastCursor: (tree: cs_tree, cursor: EngineCursor?) = (absentTree, nil)
    /// Bumped by every cursor hand-out: an iterator that saw another value
    /// re-seeks, since someone else may have moved the shared cursor.
    private(set) var claims: UInt64 = 0

    /// Upgraded copies of records of older generations (RecordGenerations.swift,
    /// G3), by objects tree and key, for the core generation they were made
    /// in: accessors reload their record when the generation moves, so the
    /// copies of an older one are freed at the next upgrade.
    private var upgraded: [UpgradedRecordKey: UnsafeMutableRawBufferPointer] = [:]
    private var upgradedGeneration: UInt64 = 0

    init(txn: EngineTxn) { self.txn = txn }

    deinit { releaseUpgraded() }

    /// `value` (record `key` of `info`) in the current layout.
    @inline(never)
    func upgradedRecord(_ info: ClassInfo, _ generations: RecordGenerations, _ key: UInt64, _ value: cs_val,
                        generation: UInt64) -> cs_val {
        if generation != upgradedGeneration {
            releaseUpgraded()
            upgradedGeneration = generation
        }
        let id = UpgradedRecordKey(tree: info.objectsTree, key: key)
        if !upgraded.isEmpty, let copy = upgraded[id] { return cs_val(data: UnsafeRawPointer(copy.baseAddress), size: copy.count) }
        let record = UnsafeRawBufferPointer(start: value.data, count: value.size)
        var copy: UnsafeMutableRawBufferPointer?
        let upgraded = orStop {
            try generations.upgrade(record) { size in
                let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, 1), alignment: 8)
                precondition(generations.write(record, into: memory) == size)
                copy = UnsafeMutableRawBufferPointer(rebasing: memory[0..<size])
                return true
            }
        }
        guard upgraded, let copy else { return value }
        self.upgraded[id] = copy
        return cs_val(data: UnsafeRawPointer(copy.baseAddress), size: copy.count)
    }

    /// Records upgraded and kept for the current generation (tests).
    var upgradedRecordCount: Int { upgraded.count }

    private func releaseUpgraded() {
        guard !upgraded.isEmpty else { return }
        for copy in upgraded.values { copy.deallocate() }
        upgraded.removeAll(keepingCapacity: upgraded.count < 1024)
    }

    /// This transaction's cursor on `tree` (nil if the tree is absent). One
    /// per tree, shared by every caller: each may move it.
    func cursor(_ tree: cs_tree) -> EngineCursor? {
        guard tree != absentTree else { return nil }
        claims &+= 1
        if lastCursor.tree == tree, let cursor = lastCursor.cursor { return cursor }
        if let cursor = cursors[tree] {
            lastCursor = (tree, cursor)
            return cursor
        }
        guard let cursor = txn.openCursor(tree) else { return nil }
        cursors[tree] = cursor
        lastCursor = (tree, cursor)
        return cursor
    }

    /// Closes the cursors: the snapshot is about to move (reset, renew).
    func closeCursors() {
        for cursor in cursors.values { cursor.close() }
        cursors = [:]
        lastCursor = (absentTree, nil)
    }

    /// Drops the cursors without closing them: the engine closed them with
    /// their write transaction.
    func forgetCursors() {
        cursors = [:]
        lastCursor = (absentTree, nil)
    }

    /// Closes the cursors and ends the transaction.
    func close() {
        closeCursors()
        txn.abort()
    }
}

struct UpgradedRecordKey: Hashable {
    let tree: cs_tree
    let key: UInt64
}

/// The pinned snapshot of a frozen core, and each thread's own read
/// transaction on it (an engine transaction is used by one thread at a
/// time; a clone gives every thread its own on the same version).
final class FrozenReaders: @unchecked Sendable {
    // @unchecked: `contexts` is guarded by `lock`; each context is then used
    // only by the thread it was made for.
    let base: EngineTxn
    private let lock = NSLock()
    private var contexts: [UInt: ReadContext] = [:]

    init(base: EngineTxn) { self.base = base }

    deinit {
        for context in contexts.values { context.close() }
        base.abort()
    }

    /// The calling thread's transaction and cursors.
    func context() -> ReadContext {
        let thread = UInt(bitPattern: Int(bitPattern: pthread_self()))
        lock.lock()
        defer { lock.unlock() }
        if let context = contexts[thread] { return context }
        let context = ReadContext(txn: orStop { try base.clone("Reading a frozen Realm on a new thread") })
        contexts[thread] = context
        return context
    }
}
