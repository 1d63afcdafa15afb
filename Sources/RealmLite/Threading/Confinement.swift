import CStorage
import Dispatch
import Foundation
import Synchronization

// Thread confinement (docs/THREADING.md states the rules).
//
// A live Realm, and every Results, List, MutableSet, Map, LinkingObjects and
// managed Object read through it, belongs to one execution context: the
// thread that opened it, the main actor (the main queue, whichever thread
// drains it), the serial queue given to Realm(configuration:queue:), the
// actor given to Realm(actor:), or the task that awaited Realm() outside any
// actor. Why: a Realm reads one snapshot
// through one engine transaction and caches pointers into it; a second
// thread moving that snapshot (refresh, commit) under the first would leave
// it reading pages the writer is reusing. Every accessor checks the context
// (one compare of the inline-read thread pointer, cs_thread_token(), on the
// fast path) and stops with
// "Realm accessed from incorrect thread."; throwing APIs throw it. Frozen
// cores have no context: their snapshot never moves.

/// Where a core may be used.
enum Confinement {
    /// A thread other than the main thread, outside the main queue.
    case thread(pthread_t)
    /// The main actor: the main thread, and any thread while it drains the
    /// main queue (on Linux, once `dispatchMain()` runs, as it does under
    /// `@main` async entry points and top-level `await`, worker threads drain
    /// it; the queue is serial, so they never run two blocks at once). The
    /// main actor's executor is the main queue, so this is also every job
    /// isolated to the main actor.
    case main
    /// One task (its address while it lives; a task never runs concurrently
    /// with itself, whichever threads resume it).
    case task(UInt)
    case queue(DispatchQueue, QueueTag)
    case actor(any Actor)
    case frozen
}

/// Marks a serial queue that has Realms confined to it.
final class QueueTag: Sendable {}

let queueTagKey = DispatchSpecificKey<QueueTag>()

/// Marks the main queue, so that a block running on it is recognised on any
/// thread: `DispatchQueue.getSpecific` answers for the queue being drained,
/// not the thread. (The runtime's current-executor test answers false in a
/// plain `DispatchQueue.main.async` block drained by a worker thread, and
/// our own deliveries are such blocks.) Set on first use.
private let mainQueueKey = DispatchSpecificKey<QueueTag>()
private let mainQueueTag: QueueTag = {
    let tag = QueueTag()
    DispatchQueue.main.setSpecific(key: mainQueueKey, value: tag)
    return tag
}()

/// True for `DispatchQueue.main` (whose Swift wrapper is not one object).
func isMainQueue(_ queue: DispatchQueue) -> Bool {
    let tag = mainQueueTag
    return queue.getSpecific(key: mainQueueKey) === tag
}

/// True on the main thread, and on any thread while it runs a main-queue
/// block or a main-actor job.
func isMainContext() -> Bool {
    if Thread.isMainThread { return true }
    let tag = mainQueueTag // set on the main queue before asking it
    return DispatchQueue.getSpecific(key: mainQueueKey) === tag
}

/// The running task's address, or nil outside a task.
func currentTaskID() -> UInt? {
    withUnsafeCurrentTask { task in
        task.map { UInt(bitPattern: unsafeBitCast($0, to: Int.self)) }
    }
}

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
    /// The context a synchronous `Realm()` opens in: the main actor on the
    /// main thread or the main queue, otherwise the calling thread.
    static func current() -> Confinement {
        isMainContext() ? .main : .thread(pthread_self())
    }

    /// True if the caller runs in this context.
    var isCurrent: Bool {
        switch self {
        case .frozen: true
        case .thread(let thread): pthread_equal(thread, pthread_self()) != 0
        case .main: isMainContext() || isCurrentExecutor(of: MainActor.shared)
        case .task(let task): currentTaskID() == task
        case .queue(_, let tag): DispatchQueue.getSpecific(key: queueTagKey) === tag
        case .actor(let actor): isCurrentExecutor(of: actor)
        }
    }

    /// The key of the per-context instance cache.
    var cacheKey: ContextKey? {
        switch self {
        case .frozen: nil
        case .thread(let thread): .thread(UInt(bitPattern: Int(bitPattern: thread)))
        case .main: .main
        case .task(let task): .task(task)
        case .queue(_, let tag): .queue(ObjectIdentifier(tag))
        case .actor(let actor): .actor(ObjectIdentifier(actor))
        }
    }

    /// Runs `work` in this context later (the next turn of its run loop,
    /// queue or actor). False if the context cannot be scheduled on (a plain
    /// thread without a run loop, a task, or frozen).
    func schedule(_ work: @escaping () -> Void) -> Bool {
        let box = UncheckedSendable(value: work)
        switch self {
        case .thread, .task:
            return false
        case .main:
            // A main-queue block is on the main actor (MainActor.assumeIsolated
            // holds in it), whichever thread drains the queue.
            DispatchQueue.main.async { box.value() }
        case .queue(let queue, _):
            queue.async { box.value() }
        case .actor(let actor):
            scheduleOnActor(actor, box)
        case .frozen:
            return false
        }
        return true
    }
}

/// Out of line: a `Task` inlined into `schedule` had every caller (the
/// open's watcher scheduling among them) build `TaskPriority?`'s metadata,
/// whichever context it scheduled on.
@inline(never)
private func scheduleOnActor(_ actor: any Actor, _ work: UncheckedSendable<() -> Void>) {
    let target = UncheckedSendable(value: actor)
    Task { await runIsolated(target.value, work) }
}

private func runIsolated(_ actor: isolated any Actor, _ work: UncheckedSendable<() -> Void>) {
    work.value()
}

enum ContextKey: Hashable {
    case thread(UInt)
    case main
    case task(UInt)
    case queue(ObjectIdentifier)
    case actor(ObjectIdentifier)

    /// A distinct suffix per context, after the last "#" of a cache key
    /// (an instance key has no "#" after its path).
    var spelling: String {
        switch self {
        case .thread(let id): "#t" + String(id, radix: 16)
        case .main: "#m"
        case .task(let id): "#k" + String(id, radix: 16)
        case .queue(let id): "#q" + String(UInt(bitPattern: id), radix: 16)
        case .actor(let id): "#a" + String(UInt(bitPattern: id), radix: 16)
        }
    }
}

extension Realm.Error {
    static var incorrectThread: Realm.Error {
        Realm.Error(.incorrectThread,
                    "Realm accessed from incorrect thread. Live Realms, objects and collections are confined to the thread, main actor, queue, actor or task that opened them (a child task is another task): pass a ThreadSafeReference, use @ThreadSafe, or freeze() them to use them elsewhere.")
    }
}

/// The state each property read consults, in memory the core owns and its
/// objects point to (valid while they hold the core): reading it involves no
/// reference counting, which matters on a path taken by every property read.
@usableFromInline
struct HotState {
    /// Bumped whenever cached record pointers may be stale.
    @usableFromInline var generation: UInt64
    /// The confining thread's cs_thread_token() (the main thread's for the
    /// main actor when opened there; 0 if confined to a task, queue or
    /// actor, frozen, or unknown: then every read takes the full check).
    @usableFromInline let confinedToken: UInt
    @usableFromInline let isFrozen: Bool
    /// A run of appends has not written its list's marker yet
    /// (Storage/ListAppend.swift): the write transaction writes it before
    /// anything else reaches the engine.
    var listAppendPending = false

    /// True if the caller may read through this core without further checks.
    @inlinable @inline(__always)
    var isCurrentThreadOrFrozen: Bool {
        // The token compare first and alone on the confined path (one load,
        // one compare); a 0 token (unknown platform) matches nothing.
        if _fastPath(confinedToken == cs_thread_token()) { return confinedToken != 0 || isFrozen }
        return isFrozen
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
