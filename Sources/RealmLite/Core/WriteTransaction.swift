import CStorage

/// One write transaction of a live core, and the state that belongs to it.
/// It exists only between beginWrite and commit/cancel (RealmCore.write), so
/// nothing of one write can leak into the next.
///
/// Writes through it never throw: RealmSwift's mutators cannot. The first
/// failure is recorded (`error`), the operation that met it stops, and
/// commit cancels the transaction and throws it (Engine.swift's table).
/// Every change bumps the core's generation: accessors re-read their record.
final class WriteTransaction {
    /// The engine transaction and its cursors (closed by the engine at commit or abort).
    let context: ReadContext
    var txn: EngineTxn { context.txn }
    /// The first failure of this write.
    private(set) var error: Realm.Error?
    /// Next object key per class, loaded on first use (RealmCore+Schema.swift).
    var nextKeys: [ObjectKeyCounter] = []
    /// Classes registered by this write: forgotten if it is cancelled.
    var registeredClasses: [String] = []
    /// The update policy of the add/create in progress: unmanaged objects it
    /// links to are added with it.
    var updatePolicy: UpdatePolicy = .error
    /// Objects whose insert is in progress, so that cycles can link back to them.
    var inserting = Set<ObjectIdentifier>()
    /// Keyed classes (Incarnation.swift): this attempt's random number, and
    /// its deletes counted from 0.
    let attempt = UInt64.random(in: 1...UInt64.max)
    var deleteSerial: UInt64 = 0
    /// The core's hot state (the core owns it and outlives its writes).
    private let hot: UnsafeMutablePointer<HotState>

    init(txn: EngineTxn, hot: UnsafeMutablePointer<HotState>) {
        context = ReadContext(txn: txn)
        self.hot = hot
    }

    /// Records `error` if it is this write's first.
    func fail(_ error: Realm.Error) {
        if self.error == nil { self.error = error }
    }

    @inline(__always)
    private func changed() { hot.pointee.generation &+= 1 }

    /// Sets `key` to `value`; false after recording a failure.
    @discardableResult @inline(__always)
    func put(_ tree: cs_tree, _ key: cs_val, _ value: cs_val, _ what: @autoclosure () -> String) -> Bool {
        let rc = txn.put(tree, key, value)
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

/// The next object key of one class during a write transaction.
final class ObjectKeyCounter {
    let info: ClassInfo
    var next: UInt64

    init(info: ClassInfo, next: UInt64) {
        self.info = info
        self.next = next
    }
}
