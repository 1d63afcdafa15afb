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
    /// Bumped by every cursor hand-out: an iterator that saw another value
    /// re-seeks, since someone else may have moved the shared cursor.
    private(set) var claims: UInt64 = 0

    init(txn: EngineTxn) { self.txn = txn }

    /// This transaction's cursor on `tree` (nil if the tree is absent). One
    /// per tree, shared by every caller: each may move it.
    func cursor(_ tree: cs_tree) -> EngineCursor? {
        guard tree != absentTree else { return nil }
        claims &+= 1
        if let cursor = cursors[tree] { return cursor }
        guard let cursor = txn.openCursor(tree) else { return nil }
        cursors[tree] = cursor
        return cursor
    }

    /// Closes the cursors: the snapshot is about to move (reset, renew).
    func closeCursors() {
        for cursor in cursors.values { cursor.close() }
        cursors = [:]
    }

    /// Drops the cursors without closing them: the engine closed them with
    /// their write transaction.
    func forgetCursors() { cursors = [:] }

    /// Closes the cursors and ends the transaction.
    func close() {
        closeCursors()
        txn.abort()
    }
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
