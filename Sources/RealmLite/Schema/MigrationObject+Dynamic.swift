// The DynamicObject calls RealmSwift's MigrationObject has (it is a
// DynamicObject there): member syntax, key-value coding, identity, and the
// dynamic collections of new objects.

extension MigrationObject {
    /// `newObject.name` is `newObject["name"]`; setting it is allowed on new
    /// objects only, as with the subscript.
    public subscript(dynamicMember member: String) -> Any? {
        get { self[member] }
        set { self[member] = newValue }
    }

    /// `self[key]`.
    public func value(forKey key: String) -> Any? { self[key] }

    /// Follows a dotted path through links: `value(forKeyPath: "owner.name")`.
    /// nil where a link on the way is nil.
    public func value(forKeyPath keyPath: String) -> Any? {
        var current: Any? = self
        for name in keyPath.split(separator: ".") {
            guard let object = current as? MigrationObject else { return nil }
            current = object[String(name)]
        }
        return current
    }

    /// `self[key] = value`: new objects only.
    public func setValue(_ value: Any?, forKey key: String) { self[key] = value }

    /// True for a new object deleted in this migration; old objects are
    /// never invalidated.
    public var isInvalidated: Bool {
        if case let .new(object) = backing { return object.isInvalidated }
        return false
    }

    /// The migrating Realm for new objects; nil for old objects, which read
    /// the snapshot from before the migration.
    public var realm: Realm? {
        if case let .new(object) = backing { return object.realm }
        return nil
    }

    /// True for the same object: two old objects of one class and key, or
    /// two new objects for which ``ObjectBase/isSameObject(as:)`` holds.
    public func isSameObject(as other: MigrationObject?) -> Bool {
        switch (backing, other?.backing) {
        case let (.old(_, layout, key), .old(_, otherLayout, otherKey)?):
            return key == otherKey && layout.stored.name == otherLayout.stored.name
        case let (.new(object), .new(otherObject)?):
            return object.isSameObject(as: otherObject)
        default:
            return false
        }
    }

    /// The List property `propertyName` of a new object, with its objects as
    /// DynamicObjects. Old objects give their lists as arrays
    /// (`oldObject["dogs"] as! [MigrationObject]`): calling this on one stops
    /// with ``Realm/Error/Code/invalidValue``, as for a property that is not
    /// a List of objects.
    public func dynamicList(_ propertyName: String) -> List<DynamicObject> {
        newObject(for: "dynamicList", propertyName).dynamicList(propertyName)
    }

    /// The MutableSet property `propertyName` of a new object, with its
    /// objects as DynamicObjects; see ``dynamicList(_:)`` for old objects.
    public func dynamicMutableSet(_ propertyName: String) -> MutableSet<DynamicObject> {
        newObject(for: "dynamicMutableSet", propertyName).dynamicMutableSet(propertyName)
    }

    /// The Map property `propertyName` of a new object, with its objects as
    /// DynamicObjects; see ``dynamicList(_:)`` for old objects.
    public func dynamicMap<Key: _MapKey>(_ propertyName: String) -> Map<Key, DynamicObject?> {
        newObject(for: "dynamicMap", propertyName).dynamicMap(propertyName)
    }

    private func newObject(for call: String, _ propertyName: String) -> ObjectBase {
        guard case let .new(object) = backing else {
            realmFatal(.invalidValue, "\(call)(\"\(propertyName)\") reads a new object's collection; an old object's collections are arrays: read oldObject[\"\(propertyName)\"].")
        }
        return object
    }
}
