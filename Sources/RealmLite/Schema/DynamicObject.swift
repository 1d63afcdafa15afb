// DynamicObject: an object read and written by property name, for classes
// known only by name (RealmSwift's dynamic API: Realm.dynamicObjects,
// dynamicObject(ofType:forPrimaryKey:), dynamicCreate; Object.dynamicList,
// dynamicMutableSet, dynamicMap). Its class is one of the file's stored
// classes (DynamicSchema.swift), whether or not the program declares it.

/// An object whose properties are read and written by name (`dog["name"]`,
/// `dog.name` through dynamic member lookup), as the file's stored schema
/// describes its class: what ``Realm/dynamicObjects(_:)`` gives. Links read
/// as DynamicObjects, Lists of objects as `List<DynamicObject>`, Lists of
/// values as `List<Int>` and so on; writes need a write transaction, as for
/// any object.
@dynamicMemberLookup
public final class DynamicObject: Object {
    /// Unmanaged (made for `dynamicCreate` or a nested value): its class.
    var unmanagedInfo: ClassInfo?
    /// Unmanaged: the values set, by property index.
    var unmanagedValues: [Int: Any] = [:]

    /// An unmanaged DynamicObject of no class; RealmLite makes DynamicObjects
    /// itself (``Realm/dynamicObjects(_:)``, ``Realm/dynamicCreate(_:value:update:)``).
    public required init() { super.init() }

    /// An unmanaged object of the stored class `className` with `value`'s
    /// properties, to be inserted by the write in progress.
    convenience init(className: String, value: Any, realm: RealmCore) throws {
        self.init()
        let info = try realm.dynamicClassInfo(named: className)
        unmanagedInfo = info
        _ = try assignProperties(of: self, info.descriptor, from: value, realm: realm)
    }

    /// The value of the property `member`: `dog.name` is `dog["name"]`.
    public subscript(dynamicMember member: String) -> Any? {
        get { self[member] }
        set { self[member] = newValue }
    }

    /// The class of this object's schema entry, or nil for a bare
    /// `DynamicObject()`.
    var dynamicClassInfo: ClassInfo? { _info ?? unmanagedInfo }
}

// On ObjectBase: RealmSwift has them on Object and on EmbeddedObject.
extension ObjectBase {
    /// The List property `propertyName` with its objects as DynamicObjects.
    /// Stops with ``Realm/Error/Code/invalidValue`` if it is not a List of
    /// objects.
    public func dynamicList(_ propertyName: String) -> List<DynamicObject> {
        dynamicCollection(propertyName, "List")
    }

    /// The MutableSet property `propertyName` with its objects as
    /// DynamicObjects. Stops with ``Realm/Error/Code/invalidValue`` if it is
    /// not a MutableSet of objects.
    public func dynamicMutableSet(_ propertyName: String) -> MutableSet<DynamicObject> {
        dynamicCollection(propertyName, "MutableSet")
    }

    /// The Map property `propertyName` with its objects as DynamicObjects.
    /// Stops with ``Realm/Error/Code/invalidValue`` if it is not a Map of
    /// objects.
    public func dynamicMap<Key: _MapKey>(_ propertyName: String) -> Map<Key, DynamicObject?> {
        dynamicCollection(propertyName, "Map")
    }

    private func dynamicCollection<C>(_ propertyName: String, _ kind: String) -> C {
        let owner = self as? DynamicObject ?? _managingRealm.dynamicCounterpart(of: self)
        guard let collection = owner[propertyName] as? C else {
            realmFatal(.invalidValue, "Property '\(owner._className).\(propertyName)' is not a \(kind) of objects.")
        }
        return collection
    }
}

extension ObjectBase {
    /// The class name of this object's schema entry (a DynamicObject's is
    /// its stored class's, not "DynamicObject").
    var _className: String {
        _info?.name ?? (self as? DynamicObject)?.unmanagedInfo?.name ?? Self.className()
    }
}

extension Realm {
    /// Every object of the stored class `className`, as DynamicObjects: the
    /// classes of the file, also those this program does not declare (a
    /// file written by another program). A class the file does not store
    /// stops with ``Realm/Error/Code/objectTypeNotInSchema``.
    public func dynamicObjects(_ className: String) -> Results<DynamicObject> {
        core.verifyThread()
        return Results(realm: core, info: orStop { try core.dynamicClassInfo(named: className) })
    }

    /// The object of the stored class `typeName` whose primary key is `key`,
    /// as a DynamicObject, or nil if there is none. A class without a
    /// primary key, or a key that does not convert to its type, stops with
    /// ``Realm/Error/Code/invalidValue``.
    public func dynamicObject(ofType typeName: String, forPrimaryKey key: Any) -> DynamicObject? {
        core.verifyThread()
        let info = orStop { try core.dynamicClassInfo(named: typeName) }
        guard let column = info.primaryKeyColumn else {
            realmFatal(.invalidValue, "'\(typeName)' does not have a primary key.")
        }
        let entry = orStop(otherwise: .invalidValue) { try info.accessors[column].indexKey(for: key) }
        guard let rowKey = entry.flatMap({ core.primaryKeyLookup(info, entry: $0) }),
              let object = core.object(info, key: rowKey) else { return nil }
        return unsafeDowncast(object, to: DynamicObject.self)
    }

    /// Creates an object of the stored class `typeName` from a dictionary
    /// (property name -> value), an array (values in property order) or
    /// another object of the class, as ``create(_:value:update:)`` does, and
    /// returns it as a DynamicObject. Links take DynamicObjects, objects of
    /// this Realm, or dictionaries/arrays for new objects. Inside a write
    /// transaction; `update` other than `.error` needs a primary key.
    @discardableResult
    public func dynamicCreate(_ typeName: String, value: Any = [String: Any](), update: UpdatePolicy = .error) -> DynamicObject {
        core.verifyThread()
        let info = orStop { try core.dynamicClassInfo(named: typeName) }
        if update != .error && info.primaryKeyColumn == nil {
            realmFatal(.invalidValue, "'\(typeName)' does not have a primary key and can not be updated.")
        }
        let object = DynamicObject()
        object.unmanagedInfo = info
        core.create(object, info, value: value, update: update)
        return object
    }
}
