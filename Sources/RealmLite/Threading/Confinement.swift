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
/// reference counting, which matters on a path taken by every property read.
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
