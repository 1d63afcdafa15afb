// create(_:value:) with managed objects in the value, as RealmSwift does it
// (ObjectCreationTests: testCreateWithObjectsFromAnotherRealm,
// testCreateEmbeddedFromManagedObjectInSameRealm/DifferentRealm): an object
// managed by another Realm, and any managed embedded object, is copied into
// the new object (recursively, with its links and collections); an object
// of the same Realm is linked as it is. add() of an object managed by
// another Realm stays an error (RealmCore.insert).

/// An object of a Realm, as the key of the copy create() made of it.
struct CopiedObject: Hashable {
    let realm: ObjectIdentifier
    let className: String
    let key: UInt64

    init(_ object: ObjectBase, of realm: RealmCore) {
        self.realm = ObjectIdentifier(realm)
        className = object._className
        key = object._key
    }
}

/// Remembers `copy` as the copy of `source` if `source` is an object of
/// another Realm than `realm`'s, before its properties are copied: links
/// back to it (a cycle) then get this copy, and insert() resolves the cycle.
func noteCopy(_ copy: ObjectBase, of source: ObjectBase, into realm: RealmCore) {
    guard let owner = source._realm, owner !== realm, let write = realm.write else { return }
    write.copies[CopiedObject(source, of: owner)] = copy
}

/// Managed collections whose elements can be listed as values (List,
/// MutableSet, LinkingObjects, Results, AnyRealmCollection; Map as a
/// dictionary), so that a copy reads them instead of linking them.
protocol CreateValueCollection {
    /// The elements (a dictionary for a Map) as create(value:) takes them;
    /// nil while the collection is unmanaged (it is then taken as it is).
    var managedElements: Any? { get }
}

extension List: CreateValueCollection {
    var managedElements: Any? { field == nil ? nil : Array(self) as [Any] }
}

extension MutableSet: CreateValueCollection {
    var managedElements: Any? { field == nil ? nil : Array(self) as [Any] }
}

extension Map: CreateValueCollection {
    var managedElements: Any? {
        guard field != nil else { return nil }
        var dictionary: [Key: Any] = [:]
        for (key, value) in asKeyValueSequence() { dictionary[key] = value }
        return dictionary
    }
}

/// `value` (a property value in a create() value) with every managed object
/// that `realm` must not link to replaced by an unmanaged copy: objects of
/// another Realm, and embedded objects (they have exactly one parent).
func copyingManagedObjects(_ value: Any, into realm: RealmCore) throws -> Any {
    if let optional = value as? any AnyOptional {
        guard let wrapped = optional.anyWrapped else { return value }
        return try copyingManagedObjects(wrapped, into: realm)
    }
    if let object = value as? ObjectBase {
        let isEmbedded = object is EmbeddedObject || (object as? DynamicObject)?.dynamicClassInfo?.isEmbedded == true
        guard let owner = object._realm, owner !== realm || isEmbedded else { return object }
        if object.isInvalidated { throw Realm.Error.invalidated(object._className) }
        if let copy = realm.write?.copies[CopiedObject(object, of: owner)] { return copy }
        let copy: ObjectBase
        let descriptor: ClassDescriptor
        if object is DynamicObject {
            let dynamic = DynamicObject()
            let info = try realm.dynamicClassInfo(named: object._className)
            dynamic.unmanagedInfo = info
            (copy, descriptor) = (dynamic, info.descriptor)
        } else {
            (copy, descriptor) = (type(of: object).init(), try SchemaDiscovery.descriptor(for: type(of: object)))
        }
        _ = try assignProperties(of: copy, descriptor, from: object, realm: realm)
        return copy
    }
    if let collection = value as? CreateValueCollection, let elements = collection.managedElements {
        return try copyingManagedObjects(elements, into: realm)
    }
    if let array = value as? [Any] { return try array.map { try copyingManagedObjects($0, into: realm) } }
    if let dictionary = value as? [String: Any] { return try dictionary.mapValues { try copyingManagedObjects($0, into: realm) } }
    return value
}
