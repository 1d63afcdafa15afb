// create(_:value:) with managed objects in the value, as RealmSwift does it
// (ObjectCreationTests: testCreateWithObjectsFromAnotherRealm,
// testCreateEmbeddedFromManagedObjectInSameRealm/DifferentRealm): an object
// managed by another Realm, and any managed embedded object, is copied into
// the new object (recursively, with its links and collections); an object
// of the same Realm is linked as it is. add() of an object managed by
// another Realm stays an error (RealmCore.insert).

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
        if object.isInvalidated { throw Realm.Error.invalidated(type(of: object).className()) }
        if object is DynamicObject { return try DynamicObject(className: object._className, value: object, realm: realm) }
        let type = type(of: object)
        let copy = type.init()
        _ = try assignProperties(of: copy, SchemaDiscovery.descriptor(for: type), from: object, realm: realm)
        return copy
    }
    if let collection = value as? CreateValueCollection, let elements = collection.managedElements {
        return try copyingManagedObjects(elements, into: realm)
    }
    if let array = value as? [Any] { return try array.map { try copyingManagedObjects($0, into: realm) } }
    if let dictionary = value as? [String: Any] { return try dictionary.mapValues { try copyingManagedObjects($0, into: realm) } }
    return value
}
