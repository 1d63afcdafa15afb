// A stable `Identifiable` id for objects and projections, as RealmSwift
// declares it (with its Combine support, though it needs no Combine): lists
// and diffing code key their rows by it.

/// Give a model class (or a projection) RealmSwift's `id`: the same for
/// every accessor of one managed object, different for different objects.
/// `class Item: Object, ObjectKeyIdentifiable { ... }`.
public protocol ObjectKeyIdentifiable: Identifiable {
    /// The stable identity of the object.
    var id: UInt64 { get }
}

extension ObjectKeyIdentifiable where Self: ObjectBase {
    /// For a managed object, derived from its class and object key, so two
    /// accessors of one object (``ObjectBase/isSameObject(as:)``) have the
    /// same id, in this process and the next. For an unmanaged object, its
    /// instance's identity; the id changes when the object is added to a
    /// Realm, as in RealmSwift.
    public var id: UInt64 { _stableIdentity }
}

extension ObjectKeyIdentifiable where Self: ProjectionObservable {
    /// The id of the projected object.
    public var id: UInt64 { rootObject._stableIdentity }
}

extension ObjectBase {
    var _stableIdentity: UInt64 {
        guard _realm != nil else { return UInt64(UInt(bitPattern: ObjectIdentifier(self).hashValue)) }
        // FNV-1a of the class name, mixed with the key: stable across runs,
        // unlike Hasher.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in _className.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash ^ (_key &* 0x9e37_79b9_7f4a_7c15)
    }
}
