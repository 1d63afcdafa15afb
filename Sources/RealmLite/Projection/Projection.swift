import Synchronization

// Projections (RealmSwift 10.21): a class that shows some properties of an
// object, renamed, reached through links or mapped over a collection. A
// projection stores nothing but its root object: every @Projected property
// reads and writes the root through its key path, so a projection is as
// live (or frozen) as the object it projects.

/// A type whose values project an object (``Projection`` and its
/// subclasses): what `observe` on a projection is written against.
public protocol ProjectionObservable: AnyObject, ThreadConfined {
    /// The class of the projected object.
    associatedtype Root: ObjectBase
    /// The object this projection reads and writes.
    var rootObject: Root { get }
    /// A projection of `object`.
    init(projecting object: Root)
}

/// A view of an object with the properties the subclass declares with
/// ``Projected``: renamed, reached through to-one links, or collections of
/// the linked objects' property (`projectTo`):
///
/// ```swift
/// class PersonProjection: Projection<Person> {
///     @Projected(\Person.firstName) var firstName
///     @Projected(\Person.address?.city) var homeCity
///     @Projected(\Person.friends.projectTo.firstName) var friendsFirstName: ProjectedCollection<String>
/// }
/// let people = realm.objects(PersonProjection.self).sorted(byKeyPath: "firstName")
/// ```
///
/// Reads and writes go to the root object (writes in a write transaction,
/// as on the object). Queries and sorts of `Results` of projections name the
/// root's properties. Two projections are equal when they project the same
/// object.
open class Projection<Root: ObjectBase & RealmCollectionValue>: RealmCollectionValue, ProjectionObservable, CustomStringConvertible {
    /// The object this projection reads and writes.
    public let rootObject: Root

    /// A projection of `object` (managed or not).
    public required init(projecting object: Root) {
        rootObject = object
    }

    /// True if both project the same object (see ``ObjectBase/==(_:_:)``).
    public static func == (lhs: Projection, rhs: Projection) -> Bool {
        lhs.rootObject.isSameObject(as: rhs.rootObject)
    }

    /// Hashes the projected object's identity, as ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rootObject)
    }

    /// The projection's class, its root's class, and each projected property
    /// with the root key path it reads and its current value.
    open var description: String {
        let lines = projectionSchema(of: self).map { property in
            "\t\(property.label)(\\.\(property.origin)) = \(rootObject[keyPath: property.keyPath].map(describeValue) ?? "nil");"
        }
        return "\(type(of: self))<\(type(of: rootObject))> {\n" + lines.joined(separator: "\n") + "\n}"
    }

    // Projections are Realm collection values so that `Results` can hold
    // them; as elements of a List they are stored as their root object.

    /// The root class's storage shape.
    public class var _rlmShape: _PropertyShape { Root._rlmShape }

    /// A projection, or a value the root class accepts, projected.
    public static func _rlmConvert(_ value: Any, _ realm: RealmCore?) throws -> Self? {
        if let projection = value as? Self { return projection }
        return try Root._rlmConvert(value, realm).map { Self(projecting: $0) }
    }

    /// The stored object, projected.
    public static func _rlmDecodeElement(_ bytes: UnsafeRawBufferPointer, _ realm: RealmCore?) -> Self {
        Self(projecting: Root._rlmDecodeElement(bytes, realm))
    }

    /// Stores the root object.
    public static func _rlmEncodeElement(_ value: Projection, _ out: inout [UInt8], _ realm: RealmCore) throws {
        try Root._rlmEncodeElement(value.rootObject, &out, realm)
    }
}

/// Results of projections sort by the projection's key paths
/// (`sorted(by: \PersonProjection.name)`), as RealmSwift's do.
extension Projection: KeypathSortable {}

// MARK: - Thread confinement

extension Projection: ThreadConfined {
    /// The Realm of the projected object (nil if it is unmanaged).
    public var realm: Realm? { rootObject.realm }
    /// True once the projected object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { rootObject.isInvalidated }
    /// True if the projected object was read through a frozen Realm.
    public var isFrozen: Bool { rootObject.isFrozen }

    /// A projection of the frozen object at the Realm's current version
    /// (readable from any thread); self if already frozen.
    public func freeze() -> Self {
        if isFrozen { return self }
        return Self(projecting: rootObject._freeze())
    }

    /// A projection of the live object in the calling thread's Realm; nil if
    /// the object was deleted since. Self if already live.
    public func thaw() -> Self? {
        guard isFrozen else { return self }
        return rootObject._thaw().map { Self(projecting: $0) }
    }

    /// The projection of the same object read through `core` (nil if gone).
    public func _rlmMoved(to core: RealmCore) -> Self? {
        core.counterpart(of: rootObject).map { Self(projecting: $0) }
    }
}

// MARK: - Fetching

/// What ``Realm/objects(_:)`` can fetch: an ``Object`` class, or a
/// ``Projection`` of one (its root's objects, projected).
public protocol RealmFetchable: RealmCollectionValue {
    /// The name of the class whose objects are fetched.
    static func className() -> String
    /// The model class whose objects are fetched.
    static var _rlmFetchedClass: ObjectBase.Type { get }
}

extension Object: RealmFetchable {
    /// The class itself.
    public static var _rlmFetchedClass: ObjectBase.Type { self }
}

extension Projection: RealmFetchable {
    /// The root class's name.
    public static func className() -> String { Root.className() }
    /// The root class.
    public static var _rlmFetchedClass: ObjectBase.Type { Root.self }
}

extension Results where Element: ProjectionObservable {
    /// The projections ordered by a projected property (the root key path it
    /// reads): `sorted(by: \PersonProjection.name)`.
    public func sorted<V>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: Element.rootKeyPathName(keyPath), ascending: ascending)
    }

    /// One projection per distinct value tuple of the projected properties
    /// (the root key paths they read): `distinct(by: [\PersonProjection.lastName])`.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == PartialKeyPath<Element> {
        distinct(by: keyPaths.map(Element.rootKeyPathName))
    }
}

/// How Results and observers, which hold objects, make and unwrap
/// projections without knowing their generic type.
protocol ProjectionBridge: AnyObject {
    static func _project(_ object: ObjectBase) -> AnyObject
    var _projectedObject: ObjectBase { get }
}

extension Projection: ProjectionBridge {
    static func _project(_ object: ObjectBase) -> AnyObject { Self(projecting: unsafeDowncast(object, to: Root.self)) }
    var _projectedObject: ObjectBase { rootObject }
}

// MARK: - The projected properties

/// One @Projected property: its name in the projection, the key path it
/// reads on the root, and that path's property names (`"address.city"`).
struct ProjectionProperty: @unchecked Sendable { // key paths are immutable
    let label: String
    let keyPath: AnyKeyPath
    let origin: String

    /// The root property whose change changes this one.
    var rootProperty: Substring { origin.prefix { $0 != "." } }
}

/// @Projected's untyped side: the key path, and its names on the root.
protocol AnyProjected {
    var projectedKeyPath: AnyKeyPath { get }
    func originName() throws -> String
}

private let projectionSchemas = Mutex<[ObjectIdentifier: [ProjectionProperty]]>([:])

/// The @Projected properties of `projection`'s class, in declaration order,
/// found once per class by reflection. A key path that reads no persisted
/// property stops with ``Realm/Error/Code/invalidValue``.
func projectionSchema(of projection: AnyObject) -> [ProjectionProperty] {
    let id = ObjectIdentifier(type(of: projection))
    if let known = projectionSchemas.withLock({ $0[id] }) { return known }
    // Each class level's properties in declaration order, a superclass's first.
    var levels: [[ProjectionProperty]] = []
    var mirror: Mirror? = Mirror(reflecting: projection)
    while let current = mirror {
        let level = current.children.compactMap { child -> ProjectionProperty? in
            guard let label = child.label, label.hasPrefix("_"), let projected = child.value as? AnyProjected else { return nil }
            let name = String(label.dropFirst())
            let origin = orStop(otherwise: .invalidValue) {
                do { return try projected.originName() } catch {
                    throw Realm.Error(.invalidValue, "@Projected property '\(name)' of \(type(of: projection)) must read a persisted property of the root object: \(error)")
                }
            }
            return ProjectionProperty(label: name, keyPath: projected.projectedKeyPath, origin: origin)
        }
        levels.insert(level, at: 0)
        mirror = current.superclassMirror
    }
    let found = levels.flatMap { $0 }
    projectionSchemas.withLock { $0[id] = found }
    return found
}
