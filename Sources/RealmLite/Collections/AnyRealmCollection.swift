import Dispatch

/// A type-erased ``RealmCollection``: any `Results`, `List`, `MutableSet` or
/// `LinkingObjects` (or another `AnyRealmCollection`) with elements of type
/// `Element`, so that one property or parameter can hold any of them.
/// Every operation forwards to the wrapped collection, which stays live
/// and confined to its Realm's thread like the original.
public struct AnyRealmCollection<Element: RealmCollectionValue>: RealmCollection {
    let box: AnyRealmCollectionBox<Element>

    /// Wraps `base`; the new value reads and observes `base` itself.
    public init<C: RealmCollection>(_ base: C) where C.Element == Element {
        if let erased = base as? AnyRealmCollection<Element> {
            box = erased.box
        } else {
            box = TypedRealmCollectionBox(base)
        }
    }

    /// The Realm managing the wrapped collection, nil while it is unmanaged.
    public var realm: Realm? { box.realm }
    /// True once the wrapped collection can no longer be read.
    public var isInvalidated: Bool { box.isInvalidated }
    /// The number of elements of the wrapped collection in the current version.
    public var count: Int { box.count }
    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of elements.
    public var endIndex: Int { count }

    /// The element at `position` of the wrapped collection; an index outside
    /// `0..<count` stops with ``Realm/Error/Code/invalidValue``.
    public subscript(position: Int) -> Element { box.element(at: position) }
    /// The first element, or nil if the collection is empty.
    public var first: Element? { box.first }
    /// The last element, or nil if the collection is empty.
    public var last: Element? { box.last }
    /// The position of `object` in the wrapped collection, or nil.
    public func index(of object: Element) -> Int? { box.index(of: object) }

    /// The wrapped collection's elements, described as RealmSwift does.
    public var description: String { elementsDescription("AnyRealmCollection<\(Element.self)>", Array(self)) }

    /// The wrapped collection as a Results, where queries start.
    public func _rlmQueryResults() throws -> Results<Element> { try box.queryResults() }

    /// Observes the wrapped collection; each change carries this type-erased
    /// collection. See ``RealmCollection/observe(keyPaths:on:_:)``.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<AnyRealmCollection>) -> Void) -> NotificationToken {
        box.observe(keyPaths: keyPaths, on: queue, block)
    }

    /// True if the wrapped collection reads a frozen Realm.
    public var isFrozen: Bool { box.isFrozen }
    /// The wrapped collection frozen at the current version, wrapped again.
    public func freeze() -> AnyRealmCollection { box.freeze() }
    /// The live wrapped collection in the calling thread's Realm, wrapped
    /// again; nil if it no longer exists.
    public func thaw() -> AnyRealmCollection? { box.thaw() }
    /// The wrapped collection read through `core`, wrapped again.
    public func _rlmMoved(to core: RealmCore) -> AnyRealmCollection? { box.moved(to: core) }

    /// True if both wrap equal collections of the same type (the same
    /// collection of the same Realm).
    public static func == (lhs: AnyRealmCollection, rhs: AnyRealmCollection) -> Bool {
        lhs.box.isEqual(to: rhs.box)
    }
}

/// The erased interface; `TypedRealmCollectionBox` forwards it to one
/// concrete collection type.
class AnyRealmCollectionBox<Element: RealmCollectionValue> {
    var realm: Realm? { fatalError("abstract") }
    var isInvalidated: Bool { fatalError("abstract") }
    var count: Int { fatalError("abstract") }
    var first: Element? { fatalError("abstract") }
    var last: Element? { fatalError("abstract") }
    var isFrozen: Bool { fatalError("abstract") }
    func element(at position: Int) -> Element { fatalError("abstract") }
    func index(of object: Element) -> Int? { fatalError("abstract") }
    func queryResults() throws -> Results<Element> { fatalError("abstract") }
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (RealmCollectionChange<AnyRealmCollection<Element>>) -> Void) -> NotificationToken {
        fatalError("abstract")
    }
    func freeze() -> AnyRealmCollection<Element> { fatalError("abstract") }
    func thaw() -> AnyRealmCollection<Element>? { fatalError("abstract") }
    func moved(to core: RealmCore) -> AnyRealmCollection<Element>? { fatalError("abstract") }
    func isEqual(to other: AnyRealmCollectionBox<Element>) -> Bool { fatalError("abstract") }
}

final class TypedRealmCollectionBox<C: RealmCollection>: AnyRealmCollectionBox<C.Element> {
    let base: C

    init(_ base: C) { self.base = base }

    override var realm: Realm? { base.realm }
    override var isInvalidated: Bool { base.isInvalidated }
    override var count: Int { base.count }
    override var first: C.Element? { base.first }
    override var last: C.Element? { base.last }
    override var isFrozen: Bool { base.isFrozen }
    override func element(at position: Int) -> C.Element { base[position] }
    override func index(of object: C.Element) -> Int? { base.index(of: object) }
    override func queryResults() throws -> Results<C.Element> { try base._rlmQueryResults() }

    override func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                          _ block: @escaping (RealmCollectionChange<AnyRealmCollection<C.Element>>) -> Void) -> NotificationToken {
        base.observe(keyPaths: keyPaths, on: queue) { change in
            switch change {
            case .initial(let collection): block(.initial(AnyRealmCollection(collection)))
            case .update(let collection, let deletions, let insertions, let modifications):
                block(.update(AnyRealmCollection(collection), deletions: deletions, insertions: insertions, modifications: modifications))
            case .error(let error): block(.error(error))
            }
        }
    }

    override func freeze() -> AnyRealmCollection<C.Element> { AnyRealmCollection(base.freeze()) }
    override func thaw() -> AnyRealmCollection<C.Element>? { base.thaw().map { AnyRealmCollection($0) } }
    override func moved(to core: RealmCore) -> AnyRealmCollection<C.Element>? {
        base._rlmMoved(to: core).map { AnyRealmCollection($0) }
    }

    override func isEqual(to other: AnyRealmCollectionBox<C.Element>) -> Bool {
        guard let other = other as? TypedRealmCollectionBox<C> else { return false }
        return base == other.base
    }
}
