import CStorage
import Foundation
import Synchronization

/// The state behind `Realm` values: one open database seen through one
/// snapshot at a time, confined to one thread, serial queue or actor (or
/// frozen: one pinned snapshot readable anywhere). `Realm()` on the same
/// thread with the same configuration returns a `Realm` wrapping the same
/// core (Confinement.swift caches them).
///
/// Each core owns a read transaction (its current snapshot); a write
/// transaction replaces it while writing. Managed objects cache pointers into
/// the current snapshot tagged with `generation`, which is bumped whenever
/// those pointers may go stale (any change, refresh, commit, cancel).
/// Public only because the `_Persistable` requirements name it; it has no
/// public members: use `Realm`.
public final class RealmCore {
    let configuration: Realm.Configuration
    let env: SharedEnv
    /// Where this core may be used; `verifyThread()` enforces it.
    let confinement: Confinement
    /// `confinement`'s thread for `.thread` (0 otherwise): the fast check.
    let confinedThread: pthread_t
    var readTxn: OpaquePointer?
    var writeTxn: OpaquePointer?
    /// .active: readTxn holds a snapshot; .released: invalidate() let it go
    /// (the next read takes the newest); .frozen: per-thread clones.
    var readState: ReadState = .active
    /// Frozen cores: the pinned snapshot and each thread's clone of it.
    let frozenReaders: FrozenReaders?
    /// What every property read checks, reachable from objects without
    /// reference counting (see HotState).
    let hot: UnsafeMutablePointer<HotState>
    var generation: UInt64 {
        @inline(__always) get { hot.pointee.generation }
        @inline(__always) set { hot.pointee.generation = newValue }
    }
    var schemaState: SchemaState
    /// The first error of the current write; it cancels the write at commit.
    var pendingError: Realm.Error?
    /// One cursor per tree for the current transaction (live cores).
    var cursors: [cs_tree: OpaquePointer] = [:]
    var ownCursorClaims: UInt64 = 0
    /// Accessor stamps of keyed classes (ObjectLifetime.swift).
    var stamp = Incarnation.never
    var stampGeneration: UInt64 = 0
    var deleteSerial: UInt64 = 0
    var writeAttempt: UInt64 = 0
    /// Next object key per class, loaded lazily in each write transaction.
    var nextKeys: [ObjectKeyCounter] = []
    /// A record buffer reused by inserts (taken while in use, so nested
    /// inserts of linked objects get their own).
    var recordScratch: [UInt8] = []
    /// Classes registered by the current write (forgotten if it is cancelled).
    var registeredInWrite: [String] = []
    var metaTree: cs_tree = absentTree
    /// The policy of the add/create in progress (applies to linked objects).
    var currentUpdatePolicy: UpdatePolicy = .error
    /// Objects whose insert is in progress (so cycles can link back to them).
    var inserting = Set<ObjectIdentifier>()
    /// Advance to the newest version when another Realm commits (scheduled
    /// on this core's thread/queue/actor; see Confinement.swift).
    var autorefresh = true
    /// The frozen core of the current version, while someone holds it.
    weak var frozenCache: RealmCore?
    /// Set while an autorefresh is scheduled (coalesces commit signals).
    let refreshScheduled = Atomic<Bool>(false)
    /// Notification blocks (Notifications.swift).
    var observers: [Observer] = []
    var notificationScheduled = false
    var delivering = false
    /// Async writes (AsyncWrite.swift).
    var asyncWrites = AsyncWriteQueue()
    /// The class classInfo(for:) found last, and in which schema (live
    /// cores only): loops of lookups by type skip the dictionary.
    private var lastClass: (type: ObjectIdentifier, state: SchemaState, info: ClassInfo)?

    enum ReadState { case active, released, frozen }

    /// A monotonic id (never reused, unlike addresses) for registries.
    let serial = nextCoreSerial.add(1, ordering: .relaxed).newValue

    /// The current transaction: the write transaction while writing. Every
    /// engine access goes through here, so this is where confinement is
    /// checked for reads.
    @inline(__always)
    var txn: OpaquePointer {
        verifyThread()
        if let writeTxn { return writeTxn }
        if _fastPath(readState == .active) { return readTxn.unsafelyUnwrapped }
        return currentReadTxnSlow()
    }

    @inline(never)
    func currentReadTxnSlow() -> OpaquePointer {
        if let frozenReaders { return frozenReaders.context().txn }
        renewReadTransaction() // after invalidate(): the newest snapshot
        readState = .active
        return readTxn.unsafelyUnwrapped
    }

    /// Bumped by every cursor hand-out: iterators re-seek when it moved.
    var cursorClaims: UInt64 {
        if let frozenReaders { return frozenReaders.context().claims }
        return ownCursorClaims
    }

    /// A live core confined to `confinement`.
    init(configuration: Realm.Configuration, confinement: Confinement) throws {
        self.configuration = configuration
        self.confinement = confinement
        if case .thread(let thread, _) = confinement { confinedThread = thread } else { confinedThread = 0 }
        hot = .allocate(capacity: 1)
        // The token is read on the confining thread, or not at all.
        let token = confinedThread != 0 && pthread_equal(confinedThread, pthread_self()) != 0 ? cs_thread_token() : 0
        hot.initialize(to: HotState(generation: 1, confinedToken: token, isFrozen: false))
        frozenReaders = nil
        env = try SharedEnv.open(configuration)
        schemaState = env.schema.withLock { $0 }
        var handle: OpaquePointer?
        try check(cs_txn_begin(env.handle, UInt32(CS_TXN_RDONLY), &handle), "Beginning a read transaction")
        readTxn = handle
        try openSchema()
        env.register(self)
    }

    /// A frozen core on `live`'s current snapshot.
    init(freezing live: RealmCore) throws {
        configuration = live.configuration
        confinement = .frozen
        confinedThread = 0
        hot = .allocate(capacity: 1)
        hot.initialize(to: HotState(generation: 1, confinedToken: 0, isFrozen: true))
        env = live.env
        schemaState = live.schemaState
        metaTree = live.metaTree
        var handle: OpaquePointer?
        try check(cs_txn_clone(live.readTxn, &handle), "Pinning the version to freeze")
        frozenReaders = FrozenReaders(base: handle!)
        readState = .frozen
        autorefresh = false
    }

    deinit {
        hot.deallocate()
        if frozenReaders != nil { return } // FrozenReaders ends its transactions
        env.unregister(self)
        CoreCache.shared.remove(self)
        for cursor in cursors.values { cs_cursor_close(cursor) }
        if let writeTxn { cs_txn_abort(writeTxn) }
        if let readTxn { cs_txn_abort(readTxn) }
    }

    var isFrozen: Bool { frozenReaders != nil }

    /// The classes stored in this Realm.
    var schema: Schema { schemaState.publicSchema }

    /// True if no class has any object.
    var isEmpty: Bool {
        schemaState.classes.allSatisfy { count(of: $0) == 0 }
    }

    // MARK: - Transactions

    var isInWriteTransaction: Bool { writeTxn != nil }

    /// Begins the write transaction. `wait: false` returns false instead of
    /// waiting when another writer holds the lock (async writes).
    @discardableResult
    func beginWriteTransaction(wait: Bool = true, runningQueued: Bool = false) throws -> Bool {
        try checkThread()
        if isFrozen {
            throw Realm.Error(.frozen, "Cannot write to a frozen Realm: call thaw() to get a live Realm first.")
        }
        if writeTxn != nil {
            throw Realm.Error(.wrongTransactionState,
                              "The Realm is already in a write transaction: nested writes are not allowed; commit or cancel the current write first.")
        }
        if configuration.readOnly {
            throw Realm.Error(.readOnly, "Cannot write to a Realm opened with readOnly = true; open it without readOnly to modify it.")
        }
        // A synchronous write runs after the async writes queued before it.
        if wait && !runningQueued && asyncWrites.hasPending { try runAsyncWritesNow() }
        closeReadCursors()
        var handle: OpaquePointer?
        let rc = cs_txn_begin(env.handle, wait ? 0 : UInt32(CS_TXN_TRY), &handle)
        if UInt32(rc) == CS_EBUSY.rawValue {
            if !wait { return false }
            throw Realm.Error(.wrongTransactionState,
                              "This thread already has a write transaction open on '\(env.path)' through another Realm instance; commit or cancel it first.")
        }
        try check(rc, "Beginning a write transaction")
        writeTxn = handle
        if readState == .active { cs_txn_reset(readTxn) }
        readState = .active
        generation &+= 1
        pendingError = nil
        nextKeys = []
        registeredInWrite = []
        beginWriteAttempt()
        return true
    }

    /// Commits the write transaction. If an operation inside it failed, the
    /// transaction is cancelled instead and that error is thrown.
    /// `deferFlush`: visible at once, durable with the next flush (grouped
    /// async commits, AsyncWrite.swift).
    func commitWriteTransaction(deferFlush: Bool = false, withoutNotifying tokens: [NotificationToken] = []) throws {
        try checkThread()
        guard let handle = writeTxn else {
            throw Realm.Error(.wrongTransactionState, "Cannot commit: the Realm is not in a write transaction.")
        }
        if let error = pendingError {
            cancelWriteTransaction()
            throw error
        }
        do {
            try checkActiveVersions()
            try saveNextKeys()
        } catch {
            cancelWriteTransaction()
            throw error
        }
        cursors = [:] // the engine closes a write transaction's cursors
        writeTxn = nil
        let rc = deferFlush ? cs_txn_commit_deferred(handle) : cs_txn_commit(handle)
        renewReadTransaction()
        registeredInWrite = []
        if rc != csOK {
            retireUncommittedKeys()
            forgetClassesRegisteredInWrite()
            throw storageError(rc, "Committing the write transaction")
        }
        env.didCommit(from: self)
        if !observers.isEmpty {
            skipNotifications(for: tokens)
            scheduleNotifications()
        }
    }

    /// Discards every change of the write transaction. Objects added in it
    /// become invalidated.
    func cancelWriteTransaction() {
        guard let handle = writeTxn else {
            realmFatal(.wrongTransactionState, "Cannot cancel: the Realm is not in a write transaction.")
        }
        cursors = [:]
        writeTxn = nil
        cs_txn_abort(handle)
        pendingError = nil
        retireUncommittedKeys()
        forgetClassesRegisteredInWrite()
        renewReadTransaction()
    }

    /// Configuration.maximumNumberOfActiveVersions: the commit would add a
    /// version while readers pin that many already.
    private func checkActiveVersions() throws {
        guard let limit = configuration.maximumNumberOfActiveVersions else { return }
        var pinned: UInt32 = 0
        try check(cs_env_active_versions(env.handle, &pinned), "Counting active versions")
        if UInt(pinned) + 1 > limit {
            throw Realm.Error(.tooManyActiveVersions,
                              "Number of active versions (\(pinned + 1)) in the Realm exceeded the limit of \(limit) (Configuration.maximumNumberOfActiveVersions): release frozen objects, ThreadSafeReferences and Realms on idle threads (or call invalidate() on them) so that old versions can be reclaimed.")
        }
    }

    /// Keys handed out by a write that did not commit are never used again.
    private func retireUncommittedKeys() {
        let counters = nextKeys.map { ($0.info.name, $0.next) }
        env.cancelledKeyFloor.withLock { floor in
            for (name, next) in counters { floor[name] = max(floor[name] ?? 0, next) }
        }
    }

    /// Moves to the newest committed version. Returns true if it changed.
    @discardableResult
    func refresh() -> Bool {
        verifyThread()
        guard writeTxn == nil, !isFrozen else { return false }
        let before = readState == .active ? cs_txn_id(readTxn) : 0
        closeReadCursors()
        if readState == .active { cs_txn_reset(readTxn) }
        renewReadTransaction()
        readState = .active
        let advanced = cs_txn_id(readTxn) != before
        if advanced && !observers.isEmpty { deliverNotifications() }
        return advanced
    }

    /// Releases the snapshot (its pages become reusable once no one else
    /// needs them); the next read takes the newest version. Cancels a write
    /// in progress and finishes pending async writes first.
    func invalidate() {
        verifyThread()
        guard !isFrozen else { return }
        if asyncWrites.hasPending { try? runAsyncWritesNow() }
        if writeTxn != nil { cancelWriteTransaction() }
        guard readState == .active else { return }
        closeReadCursors()
        cs_txn_reset(readTxn)
        readState = .released
        generation &+= 1
    }

    func renewReadTransaction() {
        closeReadCursors()
        mustSucceed(cs_txn_renew(readTxn), "Renewing the read transaction")
        generation &+= 1
    }

    func closeReadCursors() {
        guard writeTxn == nil, frozenReaders == nil else { return }
        for cursor in cursors.values { cs_cursor_close(cursor) }
        cursors = [:]
    }

    /// Records the first error of a write; it surfaces from write/commitWrite.
    func fail(_ error: Realm.Error) {
        if pendingError == nil { pendingError = error }
    }

    /// Stops unless in a write transaction (RealmSwift raises here too).
    @inline(__always)
    func requireWrite(_ what: @autoclosure () -> String) {
        if _slowPath(writeTxn == nil) {
            verifyThread()
            if isFrozen { realmFatal(.frozen, "Cannot \(what()) of a frozen object or collection: call thaw() and write to the live one inside realm.write { }.") }
            realmFatal(.outsideWrite(what()))
        }
        verifyThread()
    }

    // MARK: - Classes

    /// The ClassInfo of a model class, registering it on first use when the
    /// configuration has no objectTypes list.
    func classInfo(for type: ObjectBase.Type) throws -> ClassInfo {
        if let last = lastClass, last.type == ObjectIdentifier(type), last.state === schemaState { return last.info }
        if let info = schemaState.byType[ObjectIdentifier(type)] {
            // Frozen cores are shared by threads: no cache there.
            if !isFrozen { lastClass = (ObjectIdentifier(type), schemaState, info) }
            return info
        }
        let latest = env.schema.withLock { $0 }
        // A frozen core is shared by threads: it never replaces its state
        // (classes added later simply have no trees in its snapshot).
        if isFrozen { if let info = latest.byType[ObjectIdentifier(type)] { return info } } else { schemaState = latest }
        if let info = schemaState.byType[ObjectIdentifier(type)] { return info }
        if isFrozen {
            throw Realm.Error(.objectTypeNotInSchema, "Object type '\(type.className())' is not in this frozen Realm's schema.")
        }
        if configuration.objectTypes != nil {
            throw Realm.Error(.objectTypeNotInSchema,
                              "Object type '\(type.className())' is not managed by this Realm: add \(type.className()).self to Realm.Configuration.objectTypes.")
        }
        try register([type])
        guard let info = schemaState.byType[ObjectIdentifier(type)] else {
            throw Realm.Error(.objectTypeNotInSchema, "Object type '\(type.className())' could not be added to the Realm's schema.")
        }
        return info
    }

    func classInfoOrStop(_ type: ObjectBase.Type) -> ClassInfo {
        do { return try classInfo(for: type) } catch let error as Realm.Error { realmFatal(error) } catch { realmFatal(.fail, "\(error)") }
    }

    // MARK: - Reading

    /// The record of `key`, or nil if there is none in the current snapshot.
    func loadRecord(_ info: ClassInfo, _ key: UInt64) -> cs_val? {
        guard info.objectsTree != absentTree else { return nil }
        var value = cs_val()
        let rc = withKey(key) { cs_get(txn, info.objectsTree, $0, &value) }
        if rc == csNotFound { return nil }
        mustSucceed(rc, "Reading a '\(info.name)' object")
        return value
    }

    /// A managed accessor for an existing row.
    func materialize(_ info: ClassInfo, key: UInt64, record: cs_val?) -> ObjectBase {
        let object = info.type.init()
        object._attach(to: self, info, key: key)
        if let record {
            object._record = UnsafeRawPointer(record.data)
            object._recordSize = record.size
            object._recordGeneration = generation
        }
        info.bindColumns(object)
        return object
    }

    /// An accessor for `key` if the row exists.
    func object(_ info: ClassInfo, key: UInt64) -> ObjectBase? {
        guard let record = loadRecord(info, key) else { return nil }
        return materialize(info, key: key, record: record)
    }

    func count(of info: ClassInfo) -> Int {
        guard info.objectsTree != absentTree else { return 0 }
        var n: UInt64 = 0
        let rc = cs_count(txn, info.objectsTree, &n)
        if rc == csNotFound { return 0 }
        mustSucceed(rc, "Counting '\(info.name)' objects")
        return Int(n)
    }

    /// The current transaction's cursor on `tree` (nil if the tree is absent).
    /// Every caller may move it: `cursorClaims` tells iterators it moved.
    func cursor(_ tree: cs_tree) -> OpaquePointer? {
        guard tree != absentTree else { return nil }
        if let frozenReaders { return frozenReaders.context().cursor(tree) }
        let txn = self.txn
        ownCursorClaims &+= 1
        if let cursor = cursors[tree] { return cursor }
        var cursor: OpaquePointer?
        let rc = cs_cursor_open(txn, tree, &cursor)
        if rc == csNotFound { return nil }
        mustSucceed(rc, "Opening a cursor")
        cursors[tree] = cursor
        return cursor
    }

    /// All objects of a class (live; querying comes with Results' query).
    func objects<Element: Object>(_ type: Element.Type) -> Results<Element> {
        Results(realm: self, info: classInfoOrStop(type))
    }

    /// The object with this primary key, or nil.
    func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        let info = classInfoOrStop(type)
        guard let column = info.primaryKeyColumn else {
            realmFatal(.invalidValue, "'\(info.name)' does not have a primary key; declare one with @Persisted(primaryKey: true).")
        }
        let rowKey: UInt64?
        if info.keyedByPrimaryKey, KeyType.self == Int.self {
            // The key is the object key: one lookup (of the record, below).
            rowKey = objectKey(primaryKey: Int64(unsafeBitCast(key, to: Int.self)))
        } else if KeyType.self == info.primaryKeyValueType, let found = directPrimaryKeyLookup(info, key) {
            rowKey = found
        } else {
            let entry: [UInt8]?
            do {
                entry = try info.accessors[column].indexKey(for: key)
            } catch let error as Realm.Error {
                realmFatal(error)
            } catch {
                realmFatal(.invalidValue, "\(error)")
            }
            rowKey = entry.flatMap { primaryKeyLookup(info, entry: $0) }
        }
        // No Optional.map here: in this generic function it copies through value witnesses.
        guard let rowKey, let record = loadRecord(info, rowKey) else { return nil }
        return unsafeDowncast(materialize(info, key: rowKey, record: record), to: Element.self)
    }

    /// Keys of the common primary-key types (Int, String, ObjectId, UUID),
    /// when `K` is the property's type: encoded on the stack, no
    /// conversion. nil for other types (the caller converts); .some(nil)
    /// when there is no such object.
    @inline(__always)
    private func directPrimaryKeyLookup<K>(_ info: ClassInfo, _ key: K) -> UInt64?? {
        func lookup<T: _RealmPrimitive>(_ value: T) -> UInt64?? {
            .some(value._rlmWithBytes { raw in withIndexKey(T._rlmType, isNull: false, raw) { primaryKeyLookup(info, entry: $0) } })
        }
        if K.self == Int.self {
            // Int directly: its _rlmWithBytes is reached through a witness table from here.
            let value = Int64(unsafeBitCast(key, to: Int.self))
            return .some(withInt64Bytes(value) { raw in withIndexKey(.int, isNull: false, raw) { primaryKeyLookup(info, entry: $0) } })
        }
        if K.self == String.self { return lookup(unsafeBitCast(key, to: String.self)) }
        if K.self == ObjectId.self { return lookup(unsafeBitCast(key, to: ObjectId.self)) }
        if K.self == UUID.self { return lookup(unsafeBitCast(key, to: UUID.self)) }
        return nil
    }

    /// The object key of an encoded primary key (KeyEncoding.swift): looked
    /// up in the `pk:` tree, or, for a keyed class, computed without a
    /// lookup. Either way the caller reads the record next, which says
    /// whether the object exists.
    func primaryKeyLookup(_ info: ClassInfo, entry: [UInt8]) -> UInt64? {
        entry.withUnsafeBytes { primaryKeyLookup(info, entry: $0) }
    }

    func primaryKeyLookup(_ info: ClassInfo, entry: UnsafeRawBufferPointer) -> UInt64? {
        if info.keyedByPrimaryKey {
            // The entry is 0x01 then the key, big-endian (KeyEncoding.swift).
            guard entry.count == 9, entry[0] == 1 else { return nil }
            return UInt64(bigEndian: entry.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
        }
        guard info.primaryKeyTree != absentTree else { return nil }
        var value = cs_val()
        let rc = cs_get(txn, info.primaryKeyTree, cs_val(data: entry.baseAddress, size: entry.count), &value)
        if rc == csNotFound { return nil }
        mustSucceed(rc, "Looking up a primary key of '\(info.name)'")
        return keyValue(value)
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
