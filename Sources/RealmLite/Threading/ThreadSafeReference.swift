import Foundation

// Passing confined things to another thread: ThreadConfined,
// ThreadSafeReference and @ThreadSafe.
//
// A reference freezes what it refers to: the frozen value pins its version
// (so the rows it names cannot be reclaimed) and is readable from the
// resolving thread. Resolving finds the same row or collection through the
// resolving Realm (advanced to at least the reference's version); a Results
// re-runs its query there. The pin is dropped when the reference is
// resolved or released.

/// What Realm confines to a thread and can hand over: Object, Results,
/// List, MutableSet, Map, LinkingObjects.
public protocol ThreadConfined {
    /// The Realm managing this value, nil if unmanaged.
    var realm: Realm? { get }
    /// True once the value can no longer be read (deleted, invalidated).
    var isInvalidated: Bool { get }
    /// True if read through a frozen Realm (readable on any thread).
    var isFrozen: Bool { get }
    /// An immutable snapshot at the current version.
    func freeze() -> Self
    /// The live counterpart on the calling thread, nil if deleted.
    func thaw() -> Self?
    /// The same value read through `core` (nil if gone there).
    func _rlmMoved(to core: RealmCore) -> Self?
}

extension Object: ThreadConfined {
    public func _rlmMoved(to core: RealmCore) -> Self? { core.counterpart(of: self) }
}

extension Results: ThreadConfined {
    public func _rlmMoved(to core: RealmCore) -> Results? {
        source.moved(to: core).map { Results(realm: core, source: $0) }
    }
}

extension List: ThreadConfined {
    public func _rlmMoved(to core: RealmCore) -> List? {
        guard let field else { return nil }
        return core.counterpart(of: field.owner).map { List(field: field.moved(to: $0)) }
    }
}

extension MutableSet: ThreadConfined {
    public func _rlmMoved(to core: RealmCore) -> MutableSet? {
        guard let field else { return nil }
        return core.counterpart(of: field.owner).map { MutableSet(field: field.moved(to: $0)) }
    }
}

extension Map: ThreadConfined {
    public func _rlmMoved(to core: RealmCore) -> Map? {
        guard let field else { return nil }
        return core.counterpart(of: field.owner).map { Map(field: field.moved(to: $0)) }
    }
}

extension LinkingObjects: ThreadConfined {
    public func _rlmMoved(to core: RealmCore) -> LinkingObjects? {
        guard let owner else { return nil }
        return core.counterpart(of: owner).map { LinkingObjects(propertyName: propertyName, owner: $0, column: column) }
    }
}

/// A handle to a confined value that can cross threads; resolve it once,
/// with `realm.resolve(_:)`, on the thread that needs the value.
/// Sendable: it holds only a frozen snapshot, which any thread may read.
public struct ThreadSafeReference<Confined: ThreadConfined>: @unchecked Sendable {
    private let box: Box

    private final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var frozen: Confined?
        let configuration: Realm.Configuration
        let version: UInt64

        init(frozen: Confined, configuration: Realm.Configuration, version: UInt64) {
            self.frozen = frozen
            self.configuration = configuration
            self.version = version
        }

        /// The frozen value, once; nil afterwards (and the pin goes with it).
        func take() -> Confined? {
            lock.lock()
            defer { lock.unlock() }
            let value = frozen
            frozen = nil
            return value
        }

        /// The frozen value, left in place (for @ThreadSafe inside a write).
        func peek() -> Confined? {
            lock.lock()
            defer { lock.unlock() }
            return frozen
        }

        var isResolved: Bool {
            lock.lock()
            defer { lock.unlock() }
            return frozen == nil
        }
    }

    /// A reference to a managed object or collection. Stops for an
    /// unmanaged one (there is nothing to hand over: pass it directly).
    public init(to threadConfined: Confined) {
        guard let realm = threadConfined.realm else {
            realmFatal(.invalidValue, "Cannot create a ThreadSafeReference to an unmanaged \(Confined.self): it is not confined; pass it directly.")
        }
        if threadConfined.isInvalidated {
            realmFatal(.invalidatedObject, "Cannot create a ThreadSafeReference to a deleted or invalidated \(Confined.self).")
        }
        guard realm.core.isInWriteTransaction else {
            let frozen = threadConfined.freeze()
            box = Box(frozen: frozen, configuration: realm.configuration, version: frozen.realm?.core.version ?? 0)
            return
        }
        // Inside a write (allowed, as in RealmSwift): the value as of the
        // last committed version, which the other thread can see.
        let core = realm.core
        let committed = orStop { try core.freezeCommitted() }
        if let moved = threadConfined._rlmMoved(to: committed) {
            box = Box(frozen: moved, configuration: realm.configuration, version: committed.version)
            return
        }
        // An object created in this write: found by its key once the write
        // commits (the resolving Realm advances to that version), nil if
        // the write is cancelled.
        guard let object = threadConfined as? ObjectBase, let info = object._info,
              let pending = committed.materialize(info, key: object._key, record: nil) as? Confined else {
            realmFatal(.wrongTransactionState, "Cannot create a ThreadSafeReference inside a write transaction to a \(Confined.self) whose object was created in it: commit first, so that the other thread can see what it refers to.")
        }
        (pending as? ObjectBase)?._born = object._born
        box = Box(frozen: pending, configuration: realm.configuration, version: core.version)
    }

    /// True once resolved (a reference resolves exactly once).
    public var isInvalidated: Bool { box.isResolved }

    var configuration: Realm.Configuration { box.configuration }

    /// The value in `core` (nil if deleted since); throws if already resolved.
    /// With `keeping`, the reference stays unresolved (and its version
    /// pinned): @ThreadSafe reads inside a write transaction, where no new
    /// reference can be made.
    func resolve(in core: RealmCore, keeping: Bool = false) throws -> Confined? {
        try core.checkThread()
        guard let frozen = keeping ? box.peek() : box.take() else {
            throw Realm.Error(.referenceAlreadyResolved,
                              "This ThreadSafeReference was already resolved: a reference resolves exactly once; create a new one for each hand-over.")
        }
        if core.isFrozen {
            throw Realm.Error(.frozen, "Cannot resolve a ThreadSafeReference in a frozen Realm: resolve it in a live one.")
        }
        if core.write == nil && core.version < box.version { core.refresh() }
        return frozen._rlmMoved(to: core)
    }
}

extension Realm {
    /// The value a reference was made for, as seen by this Realm (which
    /// advances to the reference's version if it is older); nil if it was
    /// deleted since. Stops if the reference was already resolved.
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        orStop { try reference.resolve(in: core) }
    }

    /// `resolve(_:)` that throws instead of stopping (`.referenceAlreadyResolved`,
    /// `.incorrectThread`).
    public func checkedResolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) throws -> Confined? {
        try reference.resolve(in: core)
    }
}

/// A property or parameter holding a confined value that may be read on any
/// thread: `@ThreadSafe var person: Person?`. Each read resolves it in the
/// reading thread's Realm (nil once the object is deleted). It may be a
/// stored property of a struct, set through the memberwise initializer
/// (`struct Holder { @ThreadSafe var dog: Dog? }; Holder(dog: dog)`); the
/// wrapper is a class, as RealmSwift's, so copies of the struct share it.
@propertyWrapper
public final class ThreadSafe<T: ThreadConfined>: @unchecked Sendable {
    // @unchecked: the state is guarded by `lock`, and it holds only
    // ThreadSafeReferences (Sendable).
    private let lock = NSLock()
    private var reference: ThreadSafeReference<T>?

    /// Holds `wrappedValue` (nil: nothing) as a thread-safe reference. A value
    /// must be managed; an unmanaged one stops with
    /// ``Realm/Error/Code/invalidValue``.
    public init(wrappedValue: T?) {
        if let wrappedValue { reference = ThreadSafe.reference(to: wrappedValue) }
    }

    /// Reading resolves the value in the calling thread's Realm for the same
    /// configuration (opened if needed, and advanced to at least the stored
    /// version); nil if nothing is held or the value was deleted. Inside a
    /// write transaction the value is read through that transaction. Setting
    /// stores a new reference (nil clears it). Safe from any thread; reads and
    /// writes are serialized.
    public var wrappedValue: T? {
        get {
            lock.lock()
            defer { lock.unlock() }
            guard let current = reference else { return nil }
            let realm = orStop { try Realm(configuration: current.configuration) }
            if realm.isInWriteTransaction {
                // No reference can be made from inside a write (its changes
                // are not committed): read through the current one and keep
                // it for the next read.
                let value = orStop { try current.resolve(in: realm.core, keeping: true) }
                if value == nil { reference = nil }
                return value
            }
            let value = realm.resolve(current)
            // The next read (on whichever thread) needs a new reference, so
            // that the version this one pinned is released.
            reference = nil
            if let value { reference = ThreadSafe.reference(to: value) }
            return value
        }
        set {
            var newReference: ThreadSafeReference<T>?
            if let newValue { newReference = ThreadSafe.reference(to: newValue) }
            lock.lock()
            reference = newReference
            lock.unlock()
        }
    }

    private static func reference(to value: T) -> ThreadSafeReference<T> {
        if value.realm == nil {
            realmFatal(.invalidValue, "@ThreadSafe needs a managed \(T.self): add it to a Realm first.")
        }
        return ThreadSafeReference(to: value)
    }
}
