import Dispatch

// ProjectedCollection: a List or MutableSet of objects seen as one property
// of each object (`\Person.friends.projectTo.firstName`). It holds the
// collection (type-erased: the projection's type names only the values)
// and the element key path; nothing is copied, so it is as live as the list.

/// A list or set of objects projected to one property of each object, the
/// type of a ``Projected`` property written with `projectTo`:
/// `@Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>`.
/// Reading an element reads that object's property; setting one sets it (in
/// a write transaction). A projected set can hold equal values.
public struct ProjectedCollection<Element>: RandomAccessCollection, CustomStringConvertible, ThreadConfined
where Element: RealmCollectionValue {
    /// Positions are indexes, from 0.
    public typealias Index = Int

    let backing: any ProjectedBacking
    let read: (ObjectBase) -> Element
    let write: (ObjectBase, Element) -> Void
    let elementKeyPath: AnyKeyPath
    let elementType: ObjectBase.Type

    private func with(_ backing: any ProjectedBacking) -> ProjectedCollection {
        ProjectedCollection(backing: backing, read: read, write: write, elementKeyPath: elementKeyPath, elementType: elementType)
    }

    /// The projected property of the object at `position` (get), or sets it
    /// (in a write transaction, for a managed collection).
    public subscript(position: Int) -> Element {
        get { read(backing.object(at: position)) }
        nonmutating set { write(backing.object(at: position), newValue) }
    }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of objects in the collection.
    public var endIndex: Int { backing.count }

    /// The Realm of the collection (nil if unmanaged).
    public var realm: Realm? { backing.realm }
    /// True once the collection's owner was deleted or its Realm invalidated.
    public var isInvalidated: Bool { backing.isInvalidated }
    /// True if the collection was read through a frozen Realm.
    public var isFrozen: Bool { backing.isFrozen }

    /// The projected values as of the current version, readable from any thread.
    public func freeze() -> ProjectedCollection { with(backing.frozen()) }
    /// The live projected collection in the calling thread's Realm; nil if
    /// its owner was deleted since.
    public func thaw() -> ProjectedCollection? { backing.thawed().map(with) }
    /// The projected collection read through `core` (nil if gone there).
    public func _rlmMoved(to core: RealmCore) -> ProjectedCollection? { backing.moved(to: core).map(with) }

    /// The position of the first object whose projected property equals `object`, or nil.
    public func index(of object: Element) -> Int? { firstIndex(of: object) }

    /// Each projected value, with its position.
    public var description: String {
        "ProjectedCollection<\(Element.self)> {\n" + enumerated().map { "\t[\($0.offset)] \($0.element)\n" }.joined() + "}"
    }

    /// Calls `block` with `.initial`, then after each commit that changes the
    /// collection or (`keyPaths` limiting which properties count) its
    /// objects, with the changed positions; on the collection's Realm or on
    /// `queue`. Keep the returned token.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<ProjectedCollection<Element>>) -> Void) -> NotificationToken {
        backing.observe(keyPaths: keyPaths, on: queue) { change in
            switch change {
            case .initial(let collection):
                block(.initial(with(collection)))
            case .update(let collection, let deletions, let insertions, let modifications):
                block(.update(with(collection), deletions: deletions, insertions: insertions, modifications: modifications))
            case .error(let error):
                block(.error(error))
            }
        }
    }

    /// ``observe(keyPaths:on:_:)`` with every property counting.
    public func observe(on queue: DispatchQueue?,
                        _ block: @escaping (RealmCollectionChange<ProjectedCollection<Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: nil, on: queue, block)
    }
}

/// Read by KeyPathRecorder: a key path ending in a projected collection goes
/// on through its elements' key path (`friends` + `firstName`).
protocol ProjectedKeyPathTail {
    func elementPropertyNames() throws -> [String]
}

extension ProjectedCollection: ProjectedKeyPathTail {
    func elementPropertyNames() throws -> [String] {
        try KeyPathRecorder.components(of: elementKeyPath, root: elementType)
    }
}

/// Maps a list or set of objects to one property of each object: the
/// `projectTo` of ``List`` and ``MutableSet``, used in a ``Projected`` key
/// path: `\Person.dogs.projectTo.name`.
@dynamicMemberLookup
public struct CollectionElementMapper<Element> where Element: ObjectBase & RealmCollectionValue {
    let backing: any ProjectedBacking

    /// The collection's objects projected to the property `member`.
    public subscript<V>(dynamicMember member: KeyPath<Element, V>) -> ProjectedCollection<V> {
        ProjectedCollection(backing: backing,
                            read: { unsafeDowncast($0, to: Element.self)[keyPath: member] },
                            write: { object, value in
                                guard let writable = member as? ReferenceWritableKeyPath<Element, V> else {
                                    realmFatal(.invalidValue, "Cannot set \(member) of \(Element.className()) through a ProjectedCollection: the key path is not writable.")
                                }
                                unsafeDowncast(object, to: Element.self)[keyPath: writable] = value
                            },
                            elementKeyPath: member, elementType: Element.self)
    }
}

extension List where Element: ObjectBase {
    /// The list's objects projected to one of their properties, for a
    /// ``Projected`` key path: `\Person.dogs.projectTo.name`.
    public var projectTo: CollectionElementMapper<Element> {
        CollectionElementMapper(backing: CollectionBacking(collection: self))
    }
}

extension MutableSet where Element: ObjectBase {
    /// The set's objects projected to one of their properties, for a
    /// ``Projected`` key path: `\Person.dogs.projectTo.name`. The projected
    /// values can repeat.
    public var projectTo: CollectionElementMapper<Element> {
        CollectionElementMapper(backing: CollectionBacking(collection: self))
    }
}

// MARK: - The backing collection

/// A List or MutableSet of objects with its element type erased.
protocol ProjectedBacking {
    var count: Int { get }
    func object(at index: Int) -> ObjectBase
    var realm: Realm? { get }
    var isInvalidated: Bool { get }
    var isFrozen: Bool { get }
    func frozen() -> any ProjectedBacking
    func thawed() -> (any ProjectedBacking)?
    func moved(to core: RealmCore) -> (any ProjectedBacking)?
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (RealmCollectionChange<any ProjectedBacking>) -> Void) -> NotificationToken
}

struct CollectionBacking<C: RealmCollection>: ProjectedBacking where C.Element: ObjectBase {
    let collection: C

    var count: Int { collection.count }
    func object(at index: Int) -> ObjectBase { collection[index] }
    var realm: Realm? { collection.realm }
    var isInvalidated: Bool { collection.isInvalidated }
    var isFrozen: Bool { collection.isFrozen }
    func frozen() -> any ProjectedBacking { CollectionBacking(collection: collection.freeze()) }
    func thawed() -> (any ProjectedBacking)? { collection.thaw().map { CollectionBacking(collection: $0) } }
    func moved(to core: RealmCore) -> (any ProjectedBacking)? { collection._rlmMoved(to: core).map { CollectionBacking(collection: $0) } }

    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (RealmCollectionChange<any ProjectedBacking>) -> Void) -> NotificationToken {
        collection.observe(keyPaths: keyPaths, on: queue) { change in
            switch change {
            case .initial(let c): block(.initial(CollectionBacking(collection: c)))
            case .update(let c, let deletions, let insertions, let modifications):
                block(.update(CollectionBacking(collection: c), deletions: deletions, insertions: insertions, modifications: modifications))
            case .error(let error): block(.error(error))
            }
        }
    }
}
