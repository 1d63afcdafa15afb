
// `changes`: an observable's notifications as an AsyncSequence.
//
// Back-pressure by pulling, not queueing: a change is computed only when the
// consumer asks for one, in its own turn. Deliveries just mark the stream
// dirty (waking a waiting consumer) and the observer keeps the version it
// last handed out (one pinned version); `next()` computes a single change
// from that version to the current one, which is the version the consumer
// then reads. So a slow consumer gets the newest state as one
// `.update` covering every commit since its last change, with indexes (or
// keys) valid against the collection it last saw, and memory stays bounded
// whatever the commit rate.
//
// The stream is confined like the value it observes: it is created, iterated
// and delivered to in the Realm's isolation (the iterator implements
// `next(isolation:)`, so a `for await` loop in that actor never leaves it).

/// The changes of an observed Realm value, as an `AsyncSequence`:
/// `for await change in results.changes { }` (also on `List`, `MutableSet`,
/// `Map`, `LinkingObjects`, objects and ``Realm``) yields the same values
/// `observe` passes its block: `.initial` first (collections), then one
/// change per turn of the Realm that saw a relevant commit.
///
/// A consumer slower than the commits never falls behind a queue: the change
/// it gets next covers everything since the one before (one `.update` from
/// the version it last saw to the newest). The sequence ends when the
/// consuming task is cancelled, after an object's `.deleted`, or when the
/// loop is left (each ends the observation). Iterate it where the Realm is
/// confined (its actor, or the main actor); `makeAsyncIterator()` starts
/// observing, so each loop is an observer of its own.
public struct ChangeSequence<Change>: AsyncSequence {
    /// The change values (`RealmCollectionChange`, `RealmMapChange` or `ObjectChange`).
    public typealias Element = Change
    /// Never fails: misuse stops when the sequence is iterated.
    public typealias Failure = Never

    let register: (@escaping (Change) -> Void) -> (NotificationToken, RealmCore)
    let isLast: (Change) -> Bool

    /// A new observation of the value; changes start at the first `next()`.
    public func makeAsyncIterator() -> Iterator { Iterator(stream: ChangeStream(register: register, isLast: isLast)) }

    /// Iterates a ``ChangeSequence`` in the Realm's isolation.
    public struct Iterator: AsyncIteratorProtocol {
        let stream: ChangeStream<Change>

        /// The next change: at once if there is one not yet seen, else when
        /// the next relevant commit is delivered; nil once the task is
        /// cancelled (or after an object's `.deleted`).
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Change? {
            await stream.next(isolation: actor)
        }

        /// ``next(isolation:)`` for callers without an isolation (Swift 5
        /// iterators): call it in the Realm's context.
        public mutating func next() async -> Change? {
            await stream.next(isolation: nil)
        }
    }
}

/// The part of a stream that cancellation touches from any thread.
private final class Wakeup: Sendable {
    private struct State {
        var waiting: CheckedContinuation<Void, Never>?
        var cancelled = false
    }
    private let state = Protected(State())

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Parks `continuation` unless cancelled already (then resumes it).
    func park(_ continuation: CheckedContinuation<Void, Never>) {
        let cancelled = state.withLock { state in
            if !state.cancelled { state.waiting = continuation }
            return state.cancelled
        }
        if cancelled { continuation.resume() }
    }

    func wake(cancelling: Bool = false) {
        let waiting = state.withLock { state in
            if cancelling { state.cancelled = true }
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }
}

/// One iteration's observer: confined to the observed value's Realm.
final class ChangeStream<Change> {
    private let register: (@escaping (Change) -> Void) -> (NotificationToken, RealmCore)
    private let isLast: (Change) -> Bool
    private var token: NotificationToken?
    private var core: RealmCore?
    private var observer: Observer?
    /// The change the notifier computed last, and between which versions.
    private var ready: (base: RealmCore?, now: RealmCore, delivery: Delivery)?
    /// Set by the observer's block while a delivery is applied.
    private var computed: Change?
    /// A delivery came while the consumer was busy: compute at its next call.
    private var dirty = true
    private var finished = false
    private let wakeup = Wakeup()

    init(register: @escaping (@escaping (Change) -> Void) -> (NotificationToken, RealmCore), isLast: @escaping (Change) -> Bool) {
        self.register = register
        self.isLast = isLast
    }

    deinit { token?.invalidate() }

    private func start() -> RealmCore {
        let (token, core) = register { [unowned self] change in computed = change }
        guard let observer = token.observer else { realmFatal(.fail, "Cannot observe changes: no observer was registered.") }
        self.token = token
        self.core = core
        self.observer = observer
        // Computed changes only mark the stream (and wake a waiting
        // consumer): the observer stays at the version last handed out, and
        // the consumer takes the change when it runs, at the version it then
        // reads (the Realm may advance between a delivery and the consumer's
        // turn: then the change is computed again, from the version last
        // handed out, so one change covers every commit since).
        observer.handoff = { [weak self] base, now, delivery in
            guard let self else { return }
            ready = (base, now, delivery)
            dirty = true
            wakeup.wake()
        }
        return core
    }

    /// The change from the observer's version to the current one.
    private func pull(_ observer: Observer, _ core: RealmCore) -> Change? {
        dirty = false
        computed = nil
        defer { computed = nil }
        guard let now = core.snapshotForObservers() else { return nil }
        let base = observer.reported
        let delivery: Delivery
        if let ready, ready.base === base, ready.now.version == now.version {
            delivery = ready.delivery
        } else {
            delivery = observer.compute(base, now)
        }
        ready = nil
        observer.reported = now
        if delivery.isLast { observer.cancelled.store(true, ordering: .releasing) }
        delivery.advance()
        delivery.notify?(core)
        return computed
    }

    private func end() -> Change? {
        finished = true
        token?.invalidate()
        return nil
    }

    func next(isolation: isolated (any Actor)?) async -> Change? {
        if finished { return nil }
        let core = self.core ?? start()
        core.verifyThread()
        while true {
            if Task.isCancelled || wakeup.isCancelled { return end() }
            if let change = pullIfPossible(core) {
                if isLast(change) { _ = end() }
                return change
            }
            let wakeup = self.wakeup
            await withTaskCancellationHandler {
                await withCheckedContinuation(isolation: isolation) { wakeup.park($0) }
            } onCancel: {
                wakeup.wake(cancelling: true)
            }
        }
    }

    /// The change since the last one handed out, if one is due and the Realm
    /// is between writes (a delivery follows every commit otherwise).
    private func pullIfPossible(_ core: RealmCore) -> Change? {
        guard dirty, let observer, core.write == nil, core.readState == .active, !core.delivering,
              !observer.cancelled.load(ordering: .acquiring) else { return nil }
        core.delivering = true
        defer { core.delivering = false }
        return pull(observer, core)
    }
}

extension Results {
    /// This collection's changes as an `AsyncSequence`
    /// (`for await change in results.changes { }`): see ``ChangeSequence``.
    public var changes: ChangeSequence<RealmCollectionChange<Results<Element>>> { changes(keyPaths: nil) }

    /// ``changes`` counting only changes to `keyPaths` of the objects as modifications.
    public func changes(keyPaths: [String]?) -> ChangeSequence<RealmCollectionChange<Results<Element>>> {
        ChangeSequence(register: { (self.observe(keyPaths: keyPaths, $0), self.realmInstance) }, isLast: { _ in false })
    }
}

extension List {
    /// This list's changes as an `AsyncSequence`
    /// (`for await change in list.changes { }`): see ``ChangeSequence``.
    public var changes: ChangeSequence<RealmCollectionChange<List<Element>>> { changes(keyPaths: nil) }

    /// ``changes`` counting only changes to `keyPaths` of the objects as modifications.
    public func changes(keyPaths: [String]?) -> ChangeSequence<RealmCollectionChange<List<Element>>> {
        ChangeSequence(register: { (self.observe(keyPaths: keyPaths, $0), managedCore(self.field)) }, isLast: { _ in false })
    }
}

extension MutableSet {
    /// This set's changes as an `AsyncSequence`
    /// (`for await change in set.changes { }`): see ``ChangeSequence``.
    public var changes: ChangeSequence<RealmCollectionChange<MutableSet<Element>>> { changes(keyPaths: nil) }

    /// ``changes`` counting only changes to `keyPaths` of the objects as modifications.
    public func changes(keyPaths: [String]?) -> ChangeSequence<RealmCollectionChange<MutableSet<Element>>> {
        ChangeSequence(register: { (self.observe(keyPaths: keyPaths, $0), managedCore(self.field)) }, isLast: { _ in false })
    }
}

extension Map {
    /// This map's changes as an `AsyncSequence`
    /// (`for await change in map.changes { }`): see ``ChangeSequence``.
    public var changes: ChangeSequence<RealmMapChange<Map>> { changes(keyPaths: nil) }

    /// ``changes`` counting only changes to `keyPaths` of the objects as modifications.
    public func changes(keyPaths: [String]?) -> ChangeSequence<RealmMapChange<Map>> {
        ChangeSequence(register: { (self.observe(keyPaths: keyPaths, $0), managedCore(self.field)) }, isLast: { _ in false })
    }
}

extension LinkingObjects {
    /// These linking objects' changes as an `AsyncSequence`
    /// (`for await change in dog.owners.changes { }`): see ``ChangeSequence``.
    public var changes: ChangeSequence<RealmCollectionChange<LinkingObjects<Element>>> { changes(keyPaths: nil) }

    /// ``changes`` counting only changes to `keyPaths` of the objects as modifications.
    public func changes(keyPaths: [String]?) -> ChangeSequence<RealmCollectionChange<LinkingObjects<Element>>> {
        ChangeSequence(register: { block in
            let token = self.observe(keyPaths: keyPaths, block) // stops for an unmanaged owner
            return (token, self.owner.unsafelyUnwrapped._realm.unsafelyUnwrapped)
        }, isLast: { _ in false })
    }
}

extension ThreadConfined where Self: Object {
    /// This object's changes as an `AsyncSequence`
    /// (`for await change in dog.changes { }`): each `.change` with the
    /// changed properties, ending after `.deleted`. No initial value, as with
    /// `observe`. See ``ChangeSequence``.
    public var changes: ChangeSequence<ObjectChange<Self>> { changes(keyPaths: nil) }

    /// `changes` limited to changes of `keyPaths`.
    public func changes(keyPaths: [String]?) -> ChangeSequence<ObjectChange<Self>> {
        ChangeSequence(register: { block in
            let token = self.observe(keyPaths: keyPaths, block) // stops for an unmanaged object
            return (token, self._realm.unsafelyUnwrapped)
        }, isLast: { change in
            if case .deleted = change { return true }
            return false
        })
    }
}

/// The Realm of a managed collection field (observe has stopped for an unmanaged one).
private func managedCore(_ field: CollectionField?) -> RealmCore {
    field.unsafelyUnwrapped.realm
}

extension Realm {
    /// This Realm's advances as an `AsyncSequence`: `.didChange` each time it
    /// moves to a newer version (a commit here, autorefresh after another
    /// thread's commit, `refresh()`), several advances while the consumer is
    /// busy giving one. Iterate it where the Realm is confined; see
    /// ``ChangeSequence``.
    public var changes: ChangeSequence<Realm.Notification> {
        ChangeSequence(register: { block in
            (self.observe { notification, _ in block(notification) }, self.core)
        }, isLast: { _ in false })
    }
}

extension RealmCollection {
    /// The collection's changes as an `AsyncSequence`, for generic code and
    /// ``AnyRealmCollection`` (each concrete collection has its own
    /// `changes`): see ``ChangeSequence``.
    public var changes: ChangeSequence<RealmCollectionChange<Self>> { changes(keyPaths: nil) }

    /// ``changes`` counting only changes to `keyPaths` of the objects as modifications.
    public func changes(keyPaths: [String]?) -> ChangeSequence<RealmCollectionChange<Self>> {
        ChangeSequence(register: { block in
            let token = self.observe(keyPaths: keyPaths, on: nil, block) // stops for an unmanaged collection
            return (token, self.realm.unsafelyUnwrapped.core)
        }, isLast: { _ in false })
    }
}
