import CStorage

/// One write transaction of a live core, and the state that belongs to it.
/// It exists only between beginWrite and commit/cancel (RealmCore.write), so
/// nothing of one write can leak into the next.
///
/// Writes through it never throw: RealmSwift's mutators cannot. The first
/// failure is recorded (`error`), the operation that met it stops, and
/// commit cancels the transaction and throws it (Engine.swift's table; the
/// writes themselves are there, next to the raw calls they wrap).
/// Every change bumps the core's generation: accessors re-read their record.
final class WriteTransaction {
    /// The engine transaction and its cursors (closed by the engine at
    /// commit or abort). Every read and write reaches the engine through
    /// here, so a run of appends' pending marker is written first.
    var context: ReadContext {
        @inline(__always) get {
            if _slowPath(hot.pointee.listAppendPending) { flushListAppend() }
            return engineContext
        }
    }
    var txn: EngineTxn { context.txn }
    /// `context` without writing a pending marker: only for the puts of
    /// the run that leaves it pending (ListAppend.swift).
    let engineContext: ReadContext
    /// The first failure of this write.
    private(set) var error: Realm.Error?
    /// Next object key per class, loaded on first use (RealmCore+Schema.swift).
    var nextKeys: [ObjectKeyCounter] = []
    /// Classes registered by this write: forgotten if it is cancelled.
    var registeredClasses: [String] = []
    /// When it began (DispatchTime nanoseconds), if debug logging was on.
    var startedAt: UInt64 = 0
    /// A migration's classes that become embedded: a link replaced in its
    /// block does not delete the object (it may have other parents until
    /// the block ends); the migration checks them after it (Migration.swift).
    var becomingEmbedded = Set<ObjectIdentifier>()
    /// The update policy of the add/create in progress: unmanaged objects it
    /// links to are added with it. Outside add/create (a property setter,
    /// a collection append) it is .error, as in RealmSwift.
    private(set) var updatePolicy: UpdatePolicy = .error
    /// Objects whose insert is in progress, so that cycles can link back to them.
    var inserting = Set<ObjectIdentifier>()
    /// The copies the create() in progress made of other Realms' objects
    /// (CreateValueCopies.swift): one copy per object, so a cycle ends.
    var copies: [CopiedObject: ObjectBase] = [:]
    /// The collection edits of this write, filed with its commit (CollectionChangeLog.swift).
    var collectionEdits = CollectionEditsOfWrite()
    /// The last append to a List in the lists tree (ListAppend.swift).
    var listAppend = ListAppendState()
    /// Keyed classes (Incarnation.swift): this attempt's random number, and
    /// its deletes counted from 0.
    let attempt = UInt64.random(in: 1...UInt64.max)
    var deleteSerial: UInt64 = 0
    /// The core's hot state (the core owns it and outlives its writes).
    let hot: UnsafeMutablePointer<HotState>

    init(txn: EngineTxn, hot: UnsafeMutablePointer<HotState>) {
        engineContext = ReadContext(txn: txn)
        self.hot = hot
    }

    /// Runs an add/create: objects it links to are added with `policy`.
    @discardableResult @inline(__always)
    func withUpdatePolicy<R>(_ policy: UpdatePolicy, _ body: () -> R) -> R {
        let outer = updatePolicy
        updatePolicy = policy
        defer { updatePolicy = outer }
        return body()
    }

    /// Records `error` if it is this write's first.
    func fail(_ error: Realm.Error) {
        if self.error == nil { self.error = error }
    }

    /// Every change bumps the core's generation (Engine.swift's writes).
    @inline(__always)
    func changed() { hot.pointee.generation &+= 1 }
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
