import CStorage
import Foundation

// The dynamic API's side of the schema: every class stored in the file, as
// the file describes it, with DynamicObject as its type. A class the program
// also declares gets a second ClassInfo here, over the same trees and record
// layout, so a DynamicObject never reads through a typed object's @Persisted
// fields; a class only the file knows (written by another program) is
// readable and writable all the same.
//
// Values go through DynamicAccessor<V>, where V is the Swift type RealmSwift
// gives such a property in the dynamic API (Int, String?, List<Date>,
// DynamicObject?, List<DynamicObject>, Map<String, DynamicObject?>...): the
// typed read and write paths (_Persistable) then do the work.

extension RealmCore {
    /// Every stored class as a dynamic ClassInfo, rebuilt when the stored
    /// schema changed (another program or a migration may add classes).
    func dynamicSchemaState() throws -> SchemaState {
        guard let stored = try readStoredSchema() else { return SchemaState.empty }
        if let cached = env.withDynamicSchema({ $0 }), cached.stored == stored { return cached }
        var infos: [ClassInfo] = []
        for storedClass in stored.classes {
            let descriptor = ClassDescriptor(dynamicFrom: storedClass)
            infos.append(try ClassInfo(descriptor: descriptor, stored: storedClass) { name in
                try txn.openTree(name, create: false)
            })
        }
        let state = SchemaState(classes: infos, stored: stored)
        let replaced = env.withDynamicSchema { current -> SchemaState? in
            defer { current = state }
            return current
        }
        // Objects hold their ClassInfo unretained (ObjectBase._info).
        if let replaced { env.withRetiredClasses { $0 += replaced.classes } }
        return state
    }

    /// The dynamic ClassInfo of the stored class `name`; throws
    /// objectTypeNotInSchema when the file has no such class.
    func dynamicClassInfo(named name: String) throws -> ClassInfo {
        let state = try dynamicSchemaState()
        guard let info = state.byName[name] else {
            let names = state.classes.map { "'\($0.name)'" }.sorted().joined(separator: ", ")
            throw Realm.Error(.objectTypeNotInSchema, "Object type '\(name)' is not stored in this Realm: the file's classes are \(names.isEmpty ? "none" : names).")
        }
        return info
    }

    /// The (class, link column) pairs that link to `info`'s objects: from
    /// the dynamic schema for a dynamic class, else from the program's.
    func incomingLinks(_ info: ClassInfo) -> [(ClassInfo, Int)] {
        if info.descriptor.isDynamic, let state = try? dynamicSchemaState() {
            // By name: `info` may be of a state since replaced.
            return state.byName[info.name].flatMap { state.incoming[ObjectIdentifier($0)] } ?? []
        }
        return schemaState.incoming[ObjectIdentifier(info)] ?? []
    }

    /// `object` (managed by this Realm) as a DynamicObject of its class.
    func dynamicCounterpart(of object: ObjectBase) -> DynamicObject {
        if let dynamic = object as? DynamicObject { return dynamic }
        guard let info = object._info else {
            realmFatal(.invalidValue, "Object of type '\(object._className)' is not managed by a Realm: the dynamic API reads managed objects.")
        }
        let dynamic = orStop { try dynamicClassInfo(named: info.name) }
        guard let found = self.object(dynamic, key: object._key) else { realmFatal(.invalidated(info.name)) }
        return unsafeDowncast(found, to: DynamicObject.self)
    }
}

extension ClassDescriptor {
    /// A class as the file stores it, read and written as DynamicObjects.
    convenience init(dynamicFrom stored: StoredClass) {
        let properties = stored.liveProperties.enumerated().map { index, property in
            PropertyDescriptor(
                name: property.name,
                shape: _PropertyShape(type: property.type, isOptional: property.optional, collection: property.collection),
                isPrimary: property.primaryKey, isIndexed: property.indexed, originProperty: property.originProperty,
                accessor: dynamicAccessor(property, index: index, className: stored.name),
                storedObjectClassName: property.objectClass, isFullText: property.fullText == true)
        }
        self.init(type: DynamicObject.self, name: stored.name, isEmbedded: stored.embedded, properties: properties)
    }
}

/// The accessor of a stored property for DynamicObjects, typed as RealmSwift's
/// dynamic API types it.
private func dynamicAccessor(_ property: StoredProperty, index: Int, className: String) -> any PropertyAccessor {
    let shape = _PropertyShape(type: property.type, isOptional: property.optional, collection: property.collection)
    func make<V: _Persistable>(_: V.Type) -> any PropertyAccessor {
        DynamicAccessor<V>(index: index, shape: shape, className: className, propertyName: property.name,
                           objectClassName: property.objectClass)
    }
    func collection<E: RealmCollectionValue>(_: E.Type) -> any PropertyAccessor {
        switch property.collection {
        case .none, .list: make(List<E>.self)
        case .set: make(MutableSet<E>.self)
        case .map: make(Map<String, E>.self)
        }
    }
    func value<T: _RealmPrimitive>(_: T.Type) -> any PropertyAccessor {
        if property.collection == .none { return property.optional ? make(T?.self) : make(T.self) }
        return property.optional ? collection(T?.self) : collection(T.self)
    }
    switch property.type {
    case .int: return value(Int.self)
    case .bool: return value(Bool.self)
    case .float: return value(Float.self)
    case .double: return value(Double.self)
    case .string: return value(String.self)
    case .data: return value(Data.self)
    case .date: return value(Date.self)
    case .objectId: return value(ObjectId.self)
    case .decimal128: return value(Decimal128.self)
    case .UUID: return value(UUID.self)
    case .linkingObjects: return make(LinkingObjects<DynamicObject>.self)
    case .object:
        switch property.collection {
        case .none: return make(DynamicObject?.self)
        case .list: return make(List<DynamicObject>.self)
        case .set: return make(MutableSet<DynamicObject>.self)
        case .map: return make(Map<String, DynamicObject?>.self)
        }
    case .any:
        // RealmLite stores no AnyRealmValue property (discovery refuses it), so no file has one.
        realmFatal(.invalidSchema, "Property '\(className).\(property.name)' is of type 'mixed', which RealmLite does not read.")
    }
}

/// A stored property of a DynamicObject: unmanaged, its value sits in the
/// object's `unmanagedValues`; managed, it is read and written through V's
/// typed paths with the property's column (the descriptor's index).
/// @unchecked Sendable: immutable.
final class DynamicAccessor<V: _Persistable>: PropertyAccessor, @unchecked Sendable {
    let index: Int
    let shape: _PropertyShape
    let className: String
    let propertyName: String
    let objectClassName: String?

    init(index: Int, shape: _PropertyShape, className: String, propertyName: String, objectClassName: String?) {
        self.index = index
        self.shape = shape
        self.className = className
        self.propertyName = propertyName
        self.objectClassName = objectClassName
    }

    var valueType: Any.Type { V.self }
    var columnFieldOffset: Int { -1 }
    var plainValue: (offset: Int, width: Int) { (0, 0) } // values sit in unmanagedValues
    func options(of object: ObjectBase) -> (flags: UInt8, originProperty: String?) { (0, nil) }

    private func unmanaged(_ object: ObjectBase) -> V {
        (object as? DynamicObject)?.unmanagedValues[index] as? V ?? V._rlmDefaultValue()
    }

    func encodeUnmanaged(_ object: ObjectBase, column: Int, into writer: inout _RecordWriter) throws {
        try V._rlmEncode(unmanaged(object), column, &writer)
    }

    func unmanagedIndexKey(_ object: ObjectBase) -> [UInt8]? { V._rlmIndexKey(unmanaged(object)) }

    func indexKey<K>(for value: K) throws -> [UInt8]? { V._rlmIndexKey(try convert(value, realm: nil)) }

    func value(of object: ObjectBase) -> Any {
        if object._realm != nil { return V._rlmGet(object, index) }
        if shape.type == .linkingObjects { return [DynamicObject]() } // no links to an unmanaged object
        return unmanaged(object)
    }

    func setValue(_ value: Any, on object: ObjectBase, realm: RealmCore?) throws {
        let converted = try convert(value, realm: realm ?? object._realm)
        if object._realm != nil {
            V._rlmSet(object, index, converted)
        } else if let dynamic = object as? DynamicObject {
            dynamic.unmanagedValues[index] = converted
        }
    }

    private func convert(_ value: Any, realm: RealmCore?) throws -> V {
        if let direct = value as? V { return direct }
        let value = shape.type == .object ? try dynamicObjects(in: value, realm: realm) : value
        guard let converted = try V._rlmConvert(value, realm) else {
            throw Realm.Error(.invalidValue,
                              "Invalid value '\(value)' of type '\(type(of: value))' for property '\(className).\(propertyName)' of type '\(V.self)'.")
        }
        return converted
    }

    /// A link's value with objects as DynamicObjects of the linked class:
    /// a dictionary or array becomes a new one, a typed object of the same
    /// Realm its dynamic counterpart, an unmanaged typed object a copy.
    private func dynamicObjects(in value: Any, realm: RealmCore?) throws -> Any {
        guard let realm, let target = objectClassName else { return value }
        func object(_ item: Any) throws -> Any {
            if item is DynamicObject || isNil(item) { return item }
            if let typed = item as? ObjectBase, typed._realm === realm { return realm.dynamicCounterpart(of: typed) }
            guard item is [String: Any] || item is [Any] || item is ObjectBase else { return item }
            return try DynamicObject(className: target, value: item, realm: realm)
        }
        switch shape.collection {
        case .none: return try object(value)
        case .list, .set:
            guard let items = value as? [Any] ?? (value as? any Sequence).map({ Array($0) as [Any] }) else { return value }
            return try items.map(object)
        case .map:
            guard let items = value as? [String: Any] else { return value }
            return try items.mapValues(object)
        }
    }
}
