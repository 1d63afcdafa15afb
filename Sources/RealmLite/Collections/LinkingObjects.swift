import Dispatch

/// The objects linking to this one through a property:
/// `@Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>`.
/// Computed from the backlink tree of the origin property; always current.
public struct LinkingObjects<Element: ObjectBase>: RandomAccessCollection, CustomStringConvertible {
    /// The origin class's property that links here.
    public let propertyName: String
    let owner: ObjectBase?
    let column: Int

    /// Declares the inverse of `property`, a to-one link or List of `Element`
    /// pointing at the enclosing class; usually written through
    /// ``Persisted/init(originProperty:)``. Read-only: it changes as links to
    /// this object are added and removed.
    public init(fromType _: Element.Type, property propertyName: String) {
        self.propertyName = propertyName
        owner = nil
        column = -1
    }

    init(propertyName: String, owner: ObjectBase, column: Int) {
        self.propertyName = propertyName
        self.owner = owner
        self.column = column
    }

    /// The Realm managing the target object, nil while the linking objects is
    /// unmanaged.
    public var realm: Realm? { owner?.realm }
    /// True once the target object was deleted or its Realm invalidated;
    /// reading the linking objects then stops with
    /// ``Realm/Error/Code/invalidatedObject``.
    public var isInvalidated: Bool { owner?.isInvalidated ?? false }

    /// Keys of the linking objects, in key order, each once per link (as in Realm).
    private var sources: (RealmCore, ClassInfo, [UInt64])? {
        guard let owner, let realm = owner._realm, let info = owner._info else { return nil }
        let linking = info.columns[column]
        guard let origin = linking.target, linking.originColumn >= 0 else { return nil }
        _ = owner._currentRecord() // stops with a clear message if the owner was deleted
        return (realm, origin, realm.backlinkSourcesPerLink(origin.columns[linking.originColumn], target: owner._key))
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    /// The number of objects linking here through the origin property, in the
    /// current version: an object linking here twice (a List holding this
    /// object twice) counts twice, as in Realm.
    public var count: Int { sources?.2.count ?? 0 }

    /// The linking object at `position` (in object-key order). An index outside
    /// `0..<count` stops with ``Realm/Error/Code/invalidValue``.
    public subscript(position: Int) -> Element {
        guard let (realm, origin, keys) = sources, keys.indices.contains(position),
              let object = realm.object(origin, key: keys[position]) else {
            realmFatal(.invalidValue, "Index \(position) is out of bounds for linking objects '\(propertyName)'.")
        }
        return unsafeDowncast(object, to: Element.self)
    }

    public var description: String { elementsDescription("LinkingObjects<\(Element.self)>", Array(self)) }
}

protocol LinkingObjectsProtocol {
    var originPropertyName: String { get }
}

extension LinkingObjects: LinkingObjectsProtocol {
    var originPropertyName: String { propertyName }
}

extension LinkingObjects: _RealmValue, _Persistable {
    public static var _rlmShape: _PropertyShape { _PropertyShape(type: .linkingObjects, objectType: Element.self) }

    public static func _rlmDefaultValue() -> LinkingObjects {
        realmFatal(.invalidSchema, "LinkingObjects<\(Element.self)> needs its origin: declare it as @Persisted(originProperty: \"property\").")
    }

    public static func _rlmGet(_ object: ObjectBase, _ column: Int) -> LinkingObjects {
        let info = object._info.unsafelyUnwrapped
        return LinkingObjects(propertyName: info.columns[column].property.originProperty ?? "", owner: object, column: column)
    }

    public static func _rlmSet(_ object: ObjectBase, _ column: Int, _ value: LinkingObjects) {
        realmFatal(.invalidValue, "LinkingObjects properties are read-only.")
    }

    public static func _rlmEncode(_ value: LinkingObjects, _ column: Int, _ writer: inout _RecordWriter) throws {}
    public static func _rlmIndexKey(_ value: LinkingObjects) -> [UInt8]? { nil }
    public static func _rlmConvert(_ value: Any, _ realm: RealmCore?) throws -> LinkingObjects? { nil }
}

extension LinkingObjects {
    /// Calls `block` with `.initial` at the next turn of this collection's
    /// Realm (its main actor, serial queue or actor), then after each commit
    /// that changes the collection, with the indexes deleted and modified (in
    /// the previous version) and inserted (in the new one). `keyPaths` limits
    /// which properties of element objects count as modifications. With
    /// `queue`, the collection is handed over and notifications run on that
    /// serial queue instead. Keep the returned token: releasing or invalidating
    /// it stops them.
    ///
    /// Call it outside a write transaction
    /// (``Realm/Error/Code/wrongTransactionState``), on a managed, live
    /// collection (observing a frozen one stops with
    /// ``Realm/Error/Code/frozen``), from a Realm that has turns to deliver in:
    /// a plain thread has none (``Realm/Error/Code/incorrectThread``).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<LinkingObjects<Element>>) -> Void) -> NotificationToken {
        if let queue { return RealmLite.observe(self, on: queue) { $0.observe(keyPaths: keyPaths, block) } }
        guard let owner, let realm = owner._realm, let info = owner._info else {
            realmFatal(.invalidValue, "Only the LinkingObjects of a managed object can be observed.")
        }
        let linking = info.columns[column]
        guard let origin = linking.target, linking.originColumn >= 0 else {
            realmFatal(.invalidSchema, "LinkingObjects '\(propertyName)' has no origin property in the schema.")
        }
        let originColumn = origin.columns[linking.originColumn]
        orStop { try checkCollectionKeyPaths(keyPaths, elements: origin, kind: "LinkingObjects<\(origin.name)>") }
        guard let identity = ObjectIdentity(owner) else { realmFatal(.invalidValue, "Only the LinkingObjects of a managed object can be observed.") }
        return realm.observeCollection("LinkingObjects", keyPaths: keyPaths, read: { core in
            guard let owner = core.counterpart(identity) else { return nil }
            return ObservedElements(ids: core.backlinkSourcesPerLink(originColumn, target: owner._key).map(keyIdentity), objectClass: origin)
        }, value: self, block)
    }
}

extension LinkingObjects {
    /// True if the linking objects was read through a frozen Realm: immutable,
    /// and readable from any thread.
    public var isFrozen: Bool { owner?.isFrozen ?? false }

    /// The linking objects as of its Realm's current version: immutable and
    /// readable from any thread. An unmanaged linking objects cannot be frozen
    /// (stops with ``Realm/Error/Code/invalidValue``).
    public func freeze() -> LinkingObjects {
        guard let owner else { realmFatal(.invalidValue, "Cannot freeze LinkingObjects of an unmanaged object.") }
        return LinkingObjects(propertyName: propertyName, owner: owner._freeze(), column: column)
    }

    /// The live linking objects in the calling thread's Realm (the target
    /// object found again there); nil if the target object was deleted since. A
    /// live linking objects returns itself.
    public func thaw() -> LinkingObjects? {
        guard let owner else { return self }
        return owner._thaw().map { LinkingObjects(propertyName: propertyName, owner: $0, column: column) }
    }
}
