import CStorage
import Dispatch
import Foundation
import Synchronization

// Thread confinement (docs/THREADING.md states the rules).
//
// A live Realm, and every Results, List, MutableSet, Map, LinkingObjects and
// managed Object read through it, belongs to one execution context: the
// thread that opened it, the serial queue given to Realm(configuration:queue:),
// or the actor given to Realm(actor:). Why: a Realm reads one snapshot
// through one engine transaction and caches pointers into it; a second
// thread moving that snapshot (refresh, commit) under the first would leave
// it reading pages the writer is reusing. Every accessor checks the context
// (one compare of the inline-read thread pointer, cs_thread_token(), on the
// fast path) and stops with
// "Realm accessed from incorrect thread."; throwing APIs throw it. Frozen
// cores have no context: their snapshot never moves.

/// Where a core may be used.
enum Confinement {
    case thread(pthread_t, isMain: Bool)
    case queue(DispatchQueue, QueueTag)
    case actor(any Actor)
    case frozen
}

/// Marks a serial queue that has Realms confined to it.
final class QueueTag: Sendable {}

let queueTagKey = DispatchSpecificKey<QueueTag>()

/// The Swift runtime's "is this executor running the current task?" (what
/// `Actor.preconditionIsolated()` asks, as a Bool). Looked up by name: the
/// runtime exports it but the standard library keeps it internal. It takes
/// the executor's two words and a flags word in registers, which the C
/// convention matches; flags 0 = answer, never assert.
private let isCurrentExecutorFunction: (@convention(c) (UnsafeRawPointer?, UnsafeRawPointer?, UInt) -> Bool)? = {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_isCurrentExecutorWithFlags") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (UnsafeRawPointer?, UnsafeRawPointer?, UInt) -> Bool).self)
}()

private func isCurrentExecutor(of actor: any Actor) -> Bool {
    let executor = actor.unownedExecutor
    guard let function = isCurrentExecutorFunction else {
        actor.preconditionIsolated("Realm accessed from incorrect thread.")
        return true
    }
    let words = unsafeBitCast(executor, to: (UnsafeRawPointer?, UnsafeRawPointer?).self)
    return function(words.0, words.1, 0)
}

/// Lets a value cross to the context it is confined to (scheduling work on
/// its own thread, queue or actor), which the compiler cannot see.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
}

extension Confinement {
    /// The context the caller runs on, for a live core opened there.
    static func current() -> Confinement {
        .thread(pthread_self(), isMain: Thread.isMainThread)
    }

    /// True if the caller runs in this context.
    var isCurrent: Bool {
        switch self {
        case .frozen: true
        case .thread(let thread, _): thread == pthread_self()
        case .queue(_, let tag): DispatchQueue.getSpecific(key: queueTagKey) === tag
        case .actor(let actor): isCurrentExecutor(of: actor)
        }
    }

    /// The key of the per-context instance cache.
    var cacheKey: ContextKey? {
        switch self {
        case .frozen: nil
        case .thread(let thread, _): .thread(UInt(bitPattern: Int(bitPattern: thread)))
        case .queue(_, let tag): .queue(ObjectIdentifier(tag))
        case .actor(let actor): .actor(ObjectIdentifier(actor))
        }
    }

    /// Runs `work` in this context later (the next turn of its run loop,
    /// queue or actor). False if the context cannot be scheduled on (a plain
    /// thread without a run loop, or frozen).
    func schedule(_ work: @escaping () -> Void) -> Bool {
        let box = UncheckedSendable(value: work)
        switch self {
        case .thread(_, let isMain):
            guard isMain else { return false }
            DispatchQueue.main.async { box.value() }
        case .queue(let queue, _):
            queue.async { box.value() }
        case .actor(let actor):
            let target = UncheckedSendable(value: actor)
            Task { await runIsolated(target.value, box) }
        case .frozen:
            return false
        }
        return true
    }
}

private func runIsolated(_ actor: isolated any Actor, _ work: UncheckedSendable<() -> Void>) {
    work.value()
}

enum ContextKey: Hashable {
    case thread(UInt)
    case queue(ObjectIdentifier)
    case actor(ObjectIdentifier)
}

extension Realm.Error {
    static var incorrectThread: Realm.Error {
        Realm.Error(.incorrectThread,
                    "Realm accessed from incorrect thread. Live Realms, objects and collections are confined to the thread, queue or actor that opened them: pass a ThreadSafeReference, use @ThreadSafe, or freeze() them to use them elsewhere.")
    }
}

/// The state each property read consults, in memory the core owns and its
/// objects point to (valid while they hold the core): reading it involves no
/// reference counting, which matters at tens of millions of reads a second.
@usableFromInline
struct HotState {
    /// Bumped whenever cached record pointers may be stale.
    @usableFromInline var generation: UInt64
    /// The confining thread's cs_thread_token() (0 if confined to a
    /// queue/actor, frozen, or unknown: then every read takes the full check).
    @usableFromInline let confinedToken: UInt
    @usableFromInline let isFrozen: Bool

    /// True if the caller may read through this core without further checks.
    @inlinable @inline(__always)
    var isCurrentThreadOrFrozen: Bool {
        (confinedToken != 0 && confinedToken == cs_thread_token()) || isFrozen
    }
}

let nextCoreSerial = Atomic<UInt64>(0)

extension RealmCore {
    /// Stops unless the caller runs in this core's context (non-throwing APIs).
    @inline(__always)
    func verifyThread() {
        if _fastPath(hot.pointee.isCurrentThreadOrFrozen) { return }
        verifyThreadSlow()
    }

    @usableFromInline @inline(never)
    func verifyThreadSlow() {
        if !confinement.isCurrent { realmFatal(.incorrectThread) }
    }

    /// Throws unless the caller runs in this core's context.
    func checkThread() throws {
        if hot.pointee.isCurrentThreadOrFrozen { return }
        if !confinement.isCurrent { throw Realm.Error.incorrectThread }
    }
}

// MARK: - Instance cache

/// `Realm()` twice in one context gives the same core. The table does not
/// keep cores alive (a Realm nobody holds closes) and holds no weak
/// references either: a weakly referenced object pays a slower reference
/// count on every retain, and objects retain their core on every read path.
/// A core removes itself in deinit. (Its last release happens in its own
/// context, where lookups for its key happen too; releasing a confined
/// Realm's last reference on another thread is the one misuse this cannot
/// defend against.)
final class CoreCache: @unchecked Sendable {
    static let shared = CoreCache()

    private struct Key: Hashable {
        let configuration: String
        let context: ContextKey
    }

    private let lock = NSLock()
    private var table: [Key: Unmanaged<RealmCore>] = [:]
    private var keys: [UInt64: Key] = [:]

    func core(for configuration: Realm.Configuration, in confinement: Confinement) throws -> RealmCore {
        guard let context = confinement.cacheKey else {
            return try RealmCore(configuration: configuration, confinement: confinement)
        }
        let key = Key(configuration: configuration.instanceKey, context: context)
        lock.lock()
        let cached = table[key]?.takeUnretainedValue()
        lock.unlock()
        if let cached { return cached }
        // Opened outside the lock: opening may wait on the file.
        let core = try RealmCore(configuration: configuration, confinement: confinement)
        lock.lock()
        defer { lock.unlock() }
        if let raced = table[key]?.takeUnretainedValue() { return raced }
        table[key] = Unmanaged.passUnretained(core)
        keys[core.serial] = key
        return core
    }

    func remove(_ core: RealmCore) {
        lock.lock()
        defer { lock.unlock() }
        guard let key = keys.removeValue(forKey: core.serial) else { return }
        if table[key]?.toOpaque() == Unmanaged.passUnretained(core).toOpaque() { table[key] = nil }
    }
}

extension RealmCore {
    /// The core for `configuration` in `confinement`, shared with every
    /// other Realm value opened there.
    static func cached(_ configuration: Realm.Configuration, _ confinement: Confinement) throws -> RealmCore {
        try CoreCache.shared.core(for: configuration, in: confinement)
    }
}

extension Realm.Configuration {
    /// Configurations that open the same instance in one context.
    var instanceKey: String {
        let types = objectTypes.map { $0.map { String(reflecting: $0) }.sorted().joined(separator: ",") } ?? "*"
        return SharedEnv.key(for: self) + "|v\(schemaVersion)|\(types)|\(maximumNumberOfActiveVersions.map(String.init) ?? "-")"
    }
}

// MARK: - Frozen cores

/// The pinned snapshot of a frozen core, and each thread's own read
/// transaction on it (an engine transaction is used by one thread at a
/// time; cs_txn_clone gives every thread its own on the same version).
final class FrozenReaders: @unchecked Sendable {
    let base: OpaquePointer
    private let lock = NSLock()
    private var contexts: [UInt: ReadContext] = [:]

    init(base: OpaquePointer) { self.base = base }

    deinit {
        for context in contexts.values { context.close() }
        cs_txn_abort(base)
    }

    /// The calling thread's transaction and cursors.
    func context() -> ReadContext {
        let thread = UInt(bitPattern: Int(bitPattern: pthread_self()))
        lock.lock()
        defer { lock.unlock() }
        if let context = contexts[thread] { return context }
        var txn: OpaquePointer?
        mustSucceed(cs_txn_clone(base, &txn), "Reading a frozen Realm on a new thread")
        let context = ReadContext(txn: txn!)
        contexts[thread] = context
        return context
    }
}

/// One thread's read transaction on a frozen snapshot, with its cursors.
final class ReadContext {
    let txn: OpaquePointer
    private var cursors: [cs_tree: OpaquePointer] = [:]
    private(set) var claims: UInt64 = 0

    init(txn: OpaquePointer) { self.txn = txn }

    func cursor(_ tree: cs_tree) -> OpaquePointer? {
        claims &+= 1
        if let cursor = cursors[tree] { return cursor }
        var cursor: OpaquePointer?
        let rc = cs_cursor_open(txn, tree, &cursor)
        if rc == csNotFound { return nil }
        mustSucceed(rc, "Opening a cursor")
        cursors[tree] = cursor
        return cursor
    }

    func close() {
        for cursor in cursors.values { cs_cursor_close(cursor) }
        cursors = [:]
        cs_txn_abort(txn)
    }
}

// MARK: - Autorefresh

extension RealmCore {
    /// Another Realm committed: advance at the start of this context's next
    /// turn (main thread, serial queue, actor), if autorefresh is on.
    /// Called from the committing thread; touches only immutable state here.
    /// Called by the committing thread with the env's registry locked (so
    /// this core's memory stays valid even if its deinit has begun); it
    /// must not retain the core: the scheduled work finds it again by serial.
    func scheduleAutorefresh() {
        guard !refreshScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let env = self.env, serial = self.serial
        let scheduled = confinement.schedule {
            guard let core = env.liveCore(serial) else { return }
            core.refreshScheduled.store(false, ordering: .releasing)
            if !core.autorefresh {
                core.notifyRefreshRequired()
            } else if core.writeTxn == nil, core.readState == .active {
                core.refresh() // delivers notifications
            }
        }
        if !scheduled { refreshScheduled.store(false, ordering: .releasing) }
    }
}
