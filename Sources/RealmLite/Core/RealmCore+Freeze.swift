import CStorage

// Freezing a core, and finding an object's counterpart in another version
// (what freeze()/thaw() of objects and collections, next to each type, and
// notifications use).
//
// A frozen core reads one pinned version (ReadContext.swift: FrozenReaders)
// and is never refreshed, so everything read through it is immutable and may
// be shared by threads. Its version stays pinned while any frozen Realm,
// object or collection of it is alive (they hold the core), then its pages
// become reusable. Writing to, or observing, a frozen instance is an error.

extension RealmCore {
    /// The frozen core of the current version (one per version while held).
    func freeze() throws -> RealmCore {
        if isFrozen { return self }
        try checkThread()
        if write != nil {
            throw Realm.Error(.wrongTransactionState,
                              "Cannot freeze inside a write transaction: commit it first, then freeze the committed version.")
        }
        if readState == .released { _ = refresh() }
        if let frozen = frozenCache, frozen.version == version { return frozen }
        let frozen = try RealmCore(freezing: self)
        frozenCache = frozen
        return frozen
    }

    /// A frozen core of the last committed version, also inside a write
    /// transaction (then the version the write started from, without what
    /// it changed): what a ThreadSafeReference hands over.
    func freezeCommitted() throws -> RealmCore {
        if write == nil { return try freeze() }
        try checkThread()
        return try RealmCore(freezing: self)
    }

    /// The live core for this configuration in the calling context, at least
    /// at `version` (a frozen object may be newer than this thread's Realm).
    static func live(for configuration: Realm.Configuration, atLeast version: UInt64) throws -> RealmCore {
        let core = try RealmCore.cached(configuration, .current())
        if core.write == nil && core.version < version { core.refresh() }
        return core
    }

    /// The object with `object`'s class and key as read through this core;
    /// nil if it does not exist in this core's version.
    func counterpart<T: ObjectBase>(of object: T) -> T? {
        guard !object._deleted, let identity = ObjectIdentity(object), let found = counterpart(identity) else { return nil }
        return unsafeDowncast(found, to: T.self)
    }

    /// The object `identity` names as read through this core; nil if it
    /// does not exist in this core's version.
    func counterpart(_ identity: ObjectIdentity) -> ObjectBase? {
        guard isIncarnation(identity.info, key: identity.key, bornAt: identity.born) else { return nil }
        return object(identity.info, key: identity.key)
    }
}

/// A managed object's class, key and incarnation, taken on its own thread:
/// finds the object again in another version without touching the
/// accessor, whose fields its thread may change meanwhile (the notifier
/// reads versions on its own thread).
struct ObjectIdentity: @unchecked Sendable {
    // @unchecked: ClassInfo lives as long as its file (SharedEnv.retiredClasses).
    unowned(unsafe) let info: ClassInfo
    let key: UInt64
    let born: Incarnation

    init?(_ object: ObjectBase) {
        guard let info = object._info else { return nil }
        self.info = info
        key = object._key
        born = object._born
    }
}
