import CStorage
import Foundation
import Synchronization

/// The state behind `Realm` values: one open database seen through one
/// snapshot at a time, confined to one thread, serial queue or actor (or
/// frozen: one pinned snapshot readable anywhere). `Realm()` on the same
/// thread with the same configuration returns a `Realm` wrapping the same
/// core (CoreCache.swift).
///
/// A live core moves between these states (RealmCore+Transactions.swift):
///
///                   beginWrite                       commit / cancel
///     reading ───────────────────────► writing ─────────────────────► reading
///     (readState .active: the read      (`write` is set: reads and     (newest
///      snapshot, `readTxn`)              writes go through it)          snapshot)
///        │    ▲                             │
///  invalidate│    │ the next read takes       │ invalidate (cancels the write)
///        ▼    │ the newest snapshot         ▼
///     released (readState .released: no snapshot held)
///
/// A frozen core (init(freezing:)) is in none of these: readState .frozen,
/// one pinned snapshot and a clone of it per thread (FrozenReaders), never
/// written, never refreshed.
///
/// Managed objects cache pointers into the current snapshot tagged with
/// `generation`, which is bumped whenever those pointers may go stale (any
/// change, refresh, commit, cancel).
/// Public only because the `_Persistable` requirements name it; it has no
/// public members: use `Realm`.
public final class RealmCore {
    let configuration: Realm.Configuration
    let env: SharedEnv
    /// Where this core may be used; `verifyThread()` enforces it.
    let confinement: Confinement
    /// `confinement`'s thread for `.thread`, the main thread for `.main` opened
    /// there (0 otherwise): the fast check.
    let confinedThread: pthread_t
    /// Live cores: the read snapshot and its cursors. Frozen cores read
    /// through FrozenReaders instead.
    let reads: ReadContext?
    /// The read snapshot's transaction (for a frozen core, its pinned base,
    /// which only `version` reads): stored apart for the hot read path.
    let readTxn: EngineTxn
    /// The write transaction while writing (set and cleared only by
    /// RealmCore+Transactions.swift). While it is open, the thread's (or the
    /// main actor's) instance is kept alive by `WriteHolds` (CoreCache.swift),
    /// so that `Realm().beginWrite()` ... `Realm().commitWrite()` works.
    var write: WriteTransaction? {
        didSet {
            if (oldValue == nil) != (write == nil) { WriteHolds.update(self, holding: write != nil) }
        }
    }
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
    /// Accessor stamps of keyed classes (Incarnation.swift), cached per generation.
    var stamp = Incarnation.never
    /// How many times invalidate() released the snapshot: accessors made
    /// before the last one are invalidated for good (as RealmSwift's).
    var invalidations: UInt64 = 0
    var stampGeneration: UInt64 = 0
    /// A record buffer reused by inserts across writes (taken while in use,
    /// so nested inserts of linked objects get their own).
    var recordScratch: [UInt8] = []
    /// The buffer lookups encode their value into (withLookupBytes).
    var lookupScratch: [UInt8] = []
    var metaTree: cs_tree = absentTree
    /// The lists tree (ListTree.swift), once a snapshot had it.
    var listsTreeHandle: cs_tree = absentTree
    /// The rank of the last tree list read by index, for this generation.
    var listRankCache: (id: UInt64, generation: UInt64, base: Int) = (0, 0, 0)
    /// Advance to the newest version when another Realm commits (scheduled
    /// on this core's thread/queue/actor; see RealmCore+Transactions.swift).
    var autorefresh = true
    /// The frozen core of the current version, while someone holds it.
    weak var frozenCache: RealmCore?
    /// Set while an autorefresh is scheduled (coalesces commit signals).
    let refreshScheduled = Atomic<Bool>(false)
    /// Notification blocks (Observation/).
    var observers: [Observer] = []
    var notificationScheduled = false
    var delivering = false
    /// Async writes (RealmCore+AsyncWrites.swift).
    var asyncWrites = AsyncWriteQueue()
    /// The class classInfo(for:) found last, and in which schema (live
    /// cores only): loops of lookups by type skip the dictionary.
    var lastClass: (type: ObjectIdentifier, state: SchemaState, info: ClassInfo)?

    /// .active: `readTxn` holds a snapshot; .released: invalidate() let it
    /// go (the next read takes the newest); .frozen: per-thread clones.
    enum ReadState { case active, released, frozen }

    /// A monotonic id (never reused, unlike addresses) for registries.
    let serial = nextCoreSerial.add(1, ordering: .relaxed).newValue
    /// This core's key in CoreCache, if it is cached there (set and read
    /// with CoreCache's lock held).
    var cacheKey: String?

    /// A live core confined to `confinement`.
    init(configuration: Realm.Configuration, confinement: Confinement) throws {
        self.configuration = configuration
        self.confinement = confinement
        switch confinement {
        case .thread(let thread): confinedThread = thread
        case .main where Thread.isMainThread: confinedThread = pthread_self()
        default: confinedThread = 0
        }
        hot = .allocate(capacity: 1)
        // The token is read on the confining thread, or not at all. For the
        // main actor it is the main thread's (the main thread only ever runs
        // the main actor's work; other threads draining the main queue take
        // the full check; if the main thread exits in dispatchMain(), glibc
        // does not recycle its thread block, so no other thread gets its token).
        let token = confinedThread != 0 && pthread_equal(confinedThread, pthread_self()) != 0 ? cs_thread_token() : 0
        hot.initialize(to: HotState(generation: 1, confinedToken: token, isFrozen: false))
        frozenReaders = nil
        do {
            env = try SharedEnv.open(configuration)
            readTxn = try env.beginRead()
        } catch {
            hot.deallocate()
            throw error
        }
        reads = ReadContext(txn: readTxn)
        schemaState = env.schema.withLock { $0 }
        try openSchema()
        env.register(self)
        realmLog(.debug, Category.sdk, "Opened a Realm instance of '\(env.path)' (\(confinement))")
    }

    /// A frozen core on `live`'s current snapshot.
    init(freezing live: RealmCore) throws {
        configuration = live.configuration
        confinement = .frozen
        confinedThread = 0
        env = live.env
        schemaState = live.schemaState
        metaTree = live.metaTree
        listsTreeHandle = live.listsTreeHandle
        // In a write the read transaction is reset: pin the last committed
        // version, which is the one the write started from.
        readTxn = try live.write == nil ? live.readTxn.clone("Pinning the version to freeze") : live.env.beginRead()
        hot = .allocate(capacity: 1)
        hot.initialize(to: HotState(generation: 1, confinedToken: 0, isFrozen: true))
        reads = nil
        frozenReaders = FrozenReaders(base: readTxn)
        readState = .frozen
        autorefresh = false
    }

    deinit {
        hot.deallocate()
        if frozenReaders != nil { return } // FrozenReaders ends its transactions
        env.unregister(self)
        CoreCache.shared.remove(self)
        if let write {
            write.discardListAppend()
            write.txn.abort()
        }
        reads?.close()
        realmLog(.debug, Category.sdk, "Closed a Realm instance of '\(env.path)'")
    }

    var isFrozen: Bool { frozenReaders != nil }

    var isInWriteTransaction: Bool { write != nil }

    /// The classes stored in this Realm.
    var schema: Schema { schemaState.publicSchema }

    /// True if no class has any object.
    var isEmpty: Bool {
        schemaState.classes.allSatisfy { count(of: $0) == 0 }
    }

    /// The version read now (the snapshot's commit id).
    var version: UInt64 {
        if let frozenReaders { return frozenReaders.base.id }
        return (write?.txn ?? readTxn).id
    }

    // MARK: - The current transaction

    /// The current transaction: the write transaction while writing. Reads
    /// go through here or `cursor(_:)`, so this is where confinement is
    /// checked for reads.
    @inline(__always)
    var txn: EngineTxn {
        verifyThread()
        if let write { return write.txn }
        if _fastPath(readState == .active) { return readTxn }
        return currentContextSlow().txn
    }

    /// The transaction and cursors reads go through now.
    @inline(__always)
    var context: ReadContext {
        verifyThread()
        if let write { return write.context }
        if _fastPath(readState == .active), let reads { return reads }
        return currentContextSlow()
    }

    @inline(never)
    private func currentContextSlow() -> ReadContext {
        if let frozenReaders { return frozenReaders.context() }
        renewReadTransaction() // after invalidate(): the newest snapshot
        readState = .active
        return reads.unsafelyUnwrapped
    }

    /// The current transaction's cursor on `tree` (nil if the tree is
    /// absent). Every caller may move it: `cursorClaims` tells iterators.
    @inline(__always)
    func cursor(_ tree: cs_tree) -> EngineCursor? {
        guard tree != absentTree else { return nil }
        // Not through `context`: that would hand back (and retain) the context.
        verifyThread()
        if let write { return write.context.cursor(tree) }
        if _fastPath(readState == .active), let reads { return reads.cursor(tree) }
        return currentContextSlow().cursor(tree)
    }

    /// Bumped by every cursor hand-out: iterators re-seek when it moved.
    var cursorClaims: UInt64 { context.claims }

    /// The write transaction, stopping unless there is one (RealmSwift
    /// raises here too).
    @discardableResult @inline(__always)
    func requireWrite(_ what: @autoclosure () -> String) -> WriteTransaction {
        if _slowPath(write == nil) {
            verifyThread()
            if isFrozen { realmFatal(.frozen, "Cannot \(what()) of a frozen object or collection: call thaw() and write to the live one inside realm.write { }.") }
            realmFatal(.outsideWrite(what()))
        }
        verifyThread()
        return write.unsafelyUnwrapped
    }

    /// Records the first error of a write; it surfaces from write/commitWrite.
    func fail(_ error: Realm.Error) {
        write?.fail(error)
    }

    /// Runs a throwing step of a write inside a non-throwing RealmSwift API:
    /// its error is recorded on the write transaction (write {} and
    /// commitWrite() then cancel and throw it) and nil is returned.
    @inline(__always)
    func recording<R>(otherwise code: Realm.Error.Code = .fail, _ body: () throws -> R) -> R? {
        do { return try body() } catch {
            fail(Realm.Error(error, otherwise: code))
            return nil
        }
    }
}
