import CStorage

// freeze() and thaw() for Realm cores, objects and collections.
//
// A frozen core reads one pinned version (Confinement.swift: FrozenReaders)
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
        guard let info = object._info, !object._deleted,
              isIncarnation(info, key: object._key, bornAt: object._born),
              let found = self.object(info, key: object._key) else { return nil }
        return unsafeDowncast(found, to: T.self)
    }
}

extension QueryPlan {
    /// This plan as a key source (LIMIT followed by a filter).
    var keySource: KeySource {
        KeySource(read: { self.keys($0) }, moved: { core in self.moved(to: core)?.keySource })
    }

    /// The same query over the same collection read through `core`.
    func moved(to core: RealmCore) -> QueryPlan? {
        switch base {
        case .all:
            return QueryPlan(info: info, base: .all, predicate: predicate, compiled: compiled, orderings: orderings)
        case .keys(let source):
            guard let moved = source.moved(core) else { return nil }
            return QueryPlan(info: info, base: .keys(moved), predicate: predicate, compiled: compiled, orderings: orderings)
        }
    }
}

extension ResultsSource {
    func moved(to core: RealmCore) -> ResultsSource? {
        switch self {
        case .all: return self
        case .query(let plan): return plan.moved(to: core).map { .query($0) }
        }
    }
}

// MARK: - Objects

extension ObjectBase {
    /// True if this object was read through a frozen Realm.
    public var isFrozen: Bool { _realm?.isFrozen ?? false }

    /// The frozen object of the current version (self if already frozen).
    func _freeze() -> Self {
        let realm = _managingRealmForFreeze("freeze")
        if realm.isFrozen { return self }
        let frozen = orStop { try realm.freeze() }
        guard let object = frozen.counterpart(of: self) else { realmFatal(.invalidated(Self.className())) }
        return object
    }

    /// The live object on the calling thread's Realm; nil if it was deleted.
    func _thaw() -> Self? {
        let realm = _managingRealmForFreeze("thaw")
        guard realm.isFrozen else { return self }
        let live = orStop { try RealmCore.live(for: realm.configuration, atLeast: realm.version) }
        return live.counterpart(of: self)
    }

    private func _managingRealmForFreeze(_ verb: String) -> RealmCore {
        guard let realm = _realm else {
            realmFatal(.invalidValue, "Cannot \(verb) an unmanaged object of type '\(Self.className())': add it to a Realm first.")
        }
        return realm
    }
}

extension Object {
    /// An immutable snapshot of this object at the Realm's current version,
    /// readable from any thread. Stops for an unmanaged or deleted object.
    public func freeze() -> Self { _freeze() }

    /// The live object in the calling thread's Realm, nil if deleted since.
    public func thaw() -> Self? { _thaw() }
}

extension EmbeddedObject {
    public func freeze() -> Self { _freeze() }
    public func thaw() -> Self? { _thaw() }
}

// MARK: - Collections

extension CollectionField {
    var isFrozen: Bool { owner._realm?.isFrozen ?? false }

    func frozen() -> CollectionField {
        CollectionField(owner: owner._freeze(), column: column)
    }

    func thawed() -> CollectionField? {
        owner._thaw().map { CollectionField(owner: $0, column: column) }
    }
}

extension List {
    public var isFrozen: Bool { field?.isFrozen ?? false }

    /// The list as of the current version, immutable and readable anywhere.
    /// An unmanaged list cannot be frozen.
    public func freeze() -> List {
        guard let field else { realmFatal(.invalidValue, "Cannot freeze an unmanaged List: add its owner to a Realm first.") }
        return List(field: field.frozen())
    }

    /// The live list in the calling thread's Realm; nil if its owner was deleted.
    public func thaw() -> List? {
        guard let field else { return self }
        return field.thawed().map { List(field: $0) }
    }
}

extension MutableSet {
    public var isFrozen: Bool { field?.isFrozen ?? false }

    public func freeze() -> MutableSet {
        guard let field else { realmFatal(.invalidValue, "Cannot freeze an unmanaged MutableSet: add its owner to a Realm first.") }
        return MutableSet(field: field.frozen())
    }

    public func thaw() -> MutableSet? {
        guard let field else { return self }
        return field.thawed().map { MutableSet(field: $0) }
    }
}

extension Map {
    public var isFrozen: Bool { field?.isFrozen ?? false }

    public func freeze() -> Map {
        guard let field else { realmFatal(.invalidValue, "Cannot freeze an unmanaged Map: add its owner to a Realm first.") }
        return Map(field: field.frozen())
    }

    public func thaw() -> Map? {
        guard let field else { return self }
        return field.thawed().map { Map(field: $0) }
    }
}

extension LinkingObjects {
    public var isFrozen: Bool { owner?.isFrozen ?? false }

    public func freeze() -> LinkingObjects {
        guard let owner else { realmFatal(.invalidValue, "Cannot freeze LinkingObjects of an unmanaged object.") }
        return LinkingObjects(propertyName: propertyName, owner: owner._freeze(), column: column)
    }

    public func thaw() -> LinkingObjects? {
        guard let owner else { return self }
        return owner._thaw().map { LinkingObjects(propertyName: propertyName, owner: $0, column: column) }
    }
}

extension Results {
    public var isFrozen: Bool { core.isFrozen }

    /// These results as of the current version: the query is evaluated
    /// there, once, and the frozen Results can be read from any thread.
    public func freeze() -> Results {
        if core.isFrozen { return self }
        let frozen = orStop { try realmInstance.freeze() }
        guard let moved = source.moved(to: frozen) else { realmFatal(.invalidValue, "Cannot freeze Results whose collection was deleted.") }
        return Results(realm: frozen, source: moved)
    }

    /// The live Results in the calling thread's Realm (the query re-runs
    /// there); nil if the collection they came from was deleted.
    public func thaw() -> Results? {
        guard core.isFrozen else { return self }
        let live = orStop { try RealmCore.live(for: core.configuration, atLeast: core.version) }
        return source.moved(to: live).map { Results(realm: live, source: $0) }
    }
}
