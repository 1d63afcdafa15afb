@_spi(Reflection) import Swift
import Synchronization

// Schema discovery: what a model class stores, found once per class per
// process without code generation or the Objective-C runtime.
//
// `SchemaDiscovery.descriptor(for:)` is the single seam the rest of RealmLite
// uses. Today it reflects: the class's field records (FieldRecords.swift,
// or for classes that reader does not handle `_forEachField`, the same
// metadata Mirror reads) give each stored field's name, type and byte
// offset; @Persisted fields become properties; a prototype instance gives
// their options (primaryKey/indexed/originProperty). A macro could later
// supply the same ClassDescriptor directly.

/// Everything RealmLite knows about a model class's Swift side.
/// @unchecked Sendable: immutable after construction.
final class ClassDescriptor: @unchecked Sendable {
    let type: ObjectBase.Type
    let name: String
    let isEmbedded: Bool
    let properties: [PropertyDescriptor]
    let propertyIndex: [String: Int]
    let primaryKeyIndex: Int?
    /// Built when asked for (`Realm.schema`, migrations), not at every
    /// class's discovery: its property array is one more generic type for
    /// a process's first open to build.
    var publicSchema: ObjectSchema {
        ObjectSchema(className: name, properties: properties.map(\.publicProperty), isEmbedded: isEmbedded,
                     objectType: type == DynamicObject.self ? nil : type)
    }
    /// A class read from the stored schema for the dynamic API: its objects
    /// are DynamicObjects, whose values no @Persisted field holds.
    var isDynamic: Bool { type == DynamicObject.self }
    /// How the schema stores this class, without the Swift type: every
    /// open compares it with the stored class, which ignores the type, so
    /// it is built once. A `let` made from init's parts, not an optional
    /// set from `self` at the end of init: assigning over the optional's
    /// implicit nil built `StoredClass?`'s metadata at a process's first
    /// open, to destroy that nil.
    let storedSchema: StoredClass
    /// The class as written to the file: with its Swift type, whose mangled
    /// name costs a first-use demangling only a new class or a migration
    /// needs.
    var stored: StoredClass { StoredClass(self) }

    init(type: ObjectBase.Type, name: String, isEmbedded: Bool, properties: [PropertyDescriptor]) {
        self.type = type
        self.name = name
        self.isEmbedded = isEmbedded
        self.properties = properties
        // A loop, not Dictionary(_:uniquingKeysWith:) over enumerated pairs:
        // that array of (String, Int) and the enumeration's pair types are
        // generic types the first open of a process would build. First wins.
        var index = [String: Int](minimumCapacity: properties.count)
        for i in properties.indices where index[properties[i].name] == nil { index[properties[i].name] = i }
        propertyIndex = index
        let primaryKeyIndex = properties.firstIndex { $0.isPrimary }
        self.primaryKeyIndex = primaryKeyIndex
        storedSchema = StoredClass(schemaOf: name, embedded: isEmbedded, properties: properties, primaryKeyIndex: primaryKeyIndex)
    }

    /// Classes this one links to (links, collections of objects, origins).
    var referencedTypes: [ObjectBase.Type] { properties.compactMap(\.shape.objectType) }
}

/// One @Persisted property.
/// @unchecked Sendable: immutable; the accessor is stateless.
struct PropertyDescriptor: @unchecked Sendable {
    let name: String
    let shape: _PropertyShape
    let isPrimary: Bool
    let isIndexed: Bool
    /// For LinkingObjects: the linking property of the origin class.
    let originProperty: String?
    let accessor: any PropertyAccessor
    /// The linked class's name when there is no Swift type to ask (classes
    /// read through the dynamic API from the stored schema).
    var storedObjectClassName: String? = nil
    /// `@Persisted(indexed: .fullText)`: a full-text index (fts: tree).
    var isFullText = false

    /// The linked (or origin) class's name, for links and linking objects.
    var objectClassName: String? { shape.objectType?.className() ?? storedObjectClassName }

    var isStored: Bool { shape.type != .linkingObjects }
    var isLink: Bool { shape.type == .object }

    var publicProperty: Property {
        Property(name: name, type: shape.type, isOptional: shape.isOptional, isPrimary: isPrimary,
                 isIndexed: isIndexed || isPrimary, isArray: shape.collection == .list, isSet: shape.collection == .set,
                 isMap: shape.collection == .map, objectClassName: objectClassName,
                 linkOriginPropertyName: originProperty, isFullTextIndexed: isFullText)
    }
}

enum SchemaDiscovery {
    private static let cache = Mutex(IdentityTable<ClassDescriptor>())

    /// The descriptor of `type`, discovered on first use.
    static func descriptor(for type: ObjectBase.Type) throws -> ClassDescriptor {
        let id = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[id] }) { return known }
        let discovered = try reflect(type)
        return cache.withLock { table in
            if let raced = table[id] { return raced }
            table[id] = discovered
            return discovered
        }
    }

    /// `types` and every class reachable from them through links.
    static func closure(of types: [ObjectBase.Type]) throws -> [ClassDescriptor] {
        // The classes seen are the result's (a linear search: a closure is a
        // few classes, and a table of them would be one more generic type
        // for the runtime to build at a process's first open).
        var result: [ClassDescriptor] = []
        var pending = types
        while let next = pending.popLast() {
            guard !result.contains(where: { $0.type == next }) else { continue }
            let descriptor = try descriptor(for: next)
            result.append(descriptor)
            pending.append(contentsOf: descriptor.referencedTypes)
        }
        return result
    }

    private static func reflect(_ type: ObjectBase.Type) throws -> ClassDescriptor {
        let name = type.className()
        let isEmbedded = type is EmbeddedObject.Type
        guard isEmbedded || type is Object.Type else {
            throw Realm.Error(.invalidSchema, "'\(name)' must subclass Object or EmbeddedObject.")
        }
        let prototype = type.init()
        func property(_ field: PersistedField) -> PropertyDescriptor {
            var propertyName = field.name
            if propertyName.hasPrefix("_") { propertyName.removeFirst() }
            let accessor = makeAccessor(field.valueType, offset: field.offset, className: name, propertyName: propertyName)
            let options = accessor.options(of: prototype)
            return PropertyDescriptor(
                name: propertyName, shape: accessor.shape,
                isPrimary: options.flags & 1 != 0, isIndexed: options.flags & 2 != 0,
                originProperty: options.originProperty, accessor: accessor, isFullText: options.flags & 4 != 0)
        }
        // Field by field, with no array of PersistedField between (one more
        // generic type for a process's first open to build).
        var properties: [PropertyDescriptor] = []
        if !FieldRecords.forEachPersistedField(of: type, { properties.append(property($0)) }) {
            properties = reflectedFields(of: type).map(property)
        }
        try validate(name: name, isEmbedded: isEmbedded, properties)
        return ClassDescriptor(type: type, name: name, isEmbedded: isEmbedded, properties: properties)
    }

    /// The @Persisted fields as the runtime's reflection gives them: every
    /// field's type instantiated (the path for classes FieldRecords does not
    /// read, and the reference its tests compare with).
    static func reflectedFields(of type: ObjectBase.Type) -> [PersistedField] {
        var fields: [PersistedField] = []
        // Options: `.classType` (spelled by value: the static var is not
        // concurrency-safe to name under Swift 6).
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1 << 0)) { fieldName, offset, fieldType, _ in
            if let valueType = persistedValueType(fieldType) {
                fields.append(PersistedField(name: String(cString: fieldName), offset: offset, valueType: valueType))
            }
            return true
        }
        return fields
    }

    private static func validate(name: String, isEmbedded: Bool, _ properties: [PropertyDescriptor]) throws {
        let primaryKeys = properties.filter(\.isPrimary)
        if primaryKeys.count > 1 {
            throw Realm.Error(.invalidSchema, "'\(name)' declares more than one primary key (\(primaryKeys.map(\.name).joined(separator: ", "))); keep one.")
        }
        if isEmbedded, let pk = primaryKeys.first {
            throw Realm.Error(.invalidSchema, "Embedded object '\(name)' cannot have a primary key ('\(pk.name)').")
        }
        for property in properties {
            let shape = property.shape
            if property.isPrimary && (!shape.type.canBePrimaryKey || shape.collection != .none) {
                throw Realm.Error(.invalidSchema, "Property '\(name).\(property.name)' of type \(shape.type) cannot be a primary key; use Int, String, ObjectId, UUID or a PersistableEnum of Int or String.")
            }
            if property.isIndexed && (!shape.type.canBeIndexed || shape.collection != .none) {
                throw Realm.Error(.invalidSchema, "Property '\(name).\(property.name)' of type \(shape.type) cannot be indexed; index Bool, Int, String, Date, ObjectId, UUID or PersistableEnum (of Int or String) properties.")
            }
            if property.isFullText && (shape.type != .string || shape.collection != .none || property.isPrimary) {
                throw Realm.Error(.invalidSchema, "Property '\(name).\(property.name)' cannot have a full-text index: only String and String? properties that are not the primary key can.")
            }
            if shape.type == .object && shape.collection == .map && !shape.isOptional {
                throw Realm.Error(.invalidSchema, "Map property '\(name).\(property.name)' must have optional object values (Map<String, \(shape.objectType.map { "\($0)" } ?? "T")?>).")
            }
            if shape.type == .object && (shape.collection == .list || shape.collection == .set) && shape.isOptional {
                throw Realm.Error(.invalidSchema, "List/MutableSet property '\(name).\(property.name)' cannot hold optional objects.")
            }
            if shape.type == .object, shape.collection == .set, shape.objectType is EmbeddedObject.Type {
                throw Realm.Error(.invalidSchema, "MutableSet property '\(name).\(property.name)' cannot hold embedded objects.")
            }
        }
    }
}

// A field is recognised as Persisted<V> from its type's metadata, not by a
// cast: `fieldType as? any P.Type` is a conformance lookup, which on a miss
// of the runtime's cache scans every conformance record of the program
// (tens of thousands with Foundation linked in), once per field type and
// process: most of a first open. The metadata of a generic struct is ABI:
// word 0 its kind (0x200: struct), word 1 its type descriptor, then its
// generic arguments: V's metadata, then the witness table of V's
// requirement (`Value: _Persistable`), which together are the existential
// `any _Persistable.Type`.

/// V, if `fieldType` is Persisted<V>.
func persistedValueType(_ fieldType: Any.Type) -> (any _Persistable.Type)? {
    let word = MemoryLayout<UInt>.size
    let metadata = unsafeBitCast(fieldType, to: UnsafeRawPointer.self)
    guard metadata.load(as: UInt.self) == 0x200,
          metadata.load(fromByteOffset: word, as: UInt.self) == persistedTypeDescriptor else { return nil }
    let arguments = (metadata.load(fromByteOffset: 2 * word, as: UnsafeRawPointer.self),
                     metadata.load(fromByteOffset: 3 * word, as: UnsafeRawPointer.self))
    return unsafeBitCast(arguments, to: (any _Persistable.Type).self)
}

/// The typed accessor of a Persisted<V> field.
private func makeAccessor<V: _Persistable>(_: V.Type, offset: Int, className: String, propertyName: String) -> any PropertyAccessor {
    PersistedAccessor<V>(offset: offset, className: className, propertyName: propertyName)
}

/// Untyped access to one @Persisted field of an object, for the code paths
/// that walk all properties (add, create(value:), description, KVC).
protocol PropertyAccessor: AnyObject, Sendable {
    var shape: _PropertyShape { get }
    /// The Swift type of the property (V of Persisted<V>).
    var valueType: Any.Type { get }
    /// Offset of Persisted.column inside instances.
    var columnFieldOffset: Int { get }
    func options(of object: ObjectBase) -> (flags: UInt8, originProperty: String?)
    /// Where the unmanaged value sits in instances, and its width when its
    /// memory is its stored bytes (width 0: only encodeUnmanaged writes it).
    var plainValue: (offset: Int, width: Int) { get }
    /// Writes the unmanaged value into a new record.
    func encodeUnmanaged(_ object: ObjectBase, column: Int, into writer: inout _RecordWriter) throws
    /// The index key of the unmanaged value, if it is a scalar.
    func unmanagedIndexKey(_ object: ObjectBase) -> [UInt8]?
    /// The index key of a value for this property (primary-key lookups):
    /// direct when K is the property's type, else converted as in create().
    func indexKey<K>(for value: K) throws -> [UInt8]?
    /// The current value (managed or not), boxed.
    func value(of object: ObjectBase) -> Any
    /// Sets the value from a loosely typed one (create(value:), KVC).
    func setValue(_ value: Any, on object: ObjectBase, realm: RealmCore?) throws
}

/// The accessor of a Persisted<V> field at a fixed byte offset in instances.
/// It touches the field's parts through precomputed offsets, so the
/// per-object paths (add, materialize) need no generic metadata lookups.
/// @unchecked Sendable: immutable.
final class PersistedAccessor<V: _Persistable>: PropertyAccessor, @unchecked Sendable {
    let className: String
    let propertyName: String
    /// Offsets inside the object of Persisted<V>.column and .value.
    private let columnOffset: Int
    private let valueOffset: Int
    var columnFieldOffset: Int { columnOffset }
    let plainValue: (offset: Int, width: Int)

    init(offset: Int, className: String, propertyName: String) {
        self.className = className
        self.propertyName = propertyName
        columnOffset = offset + MemoryLayout<Persisted<V>>.offset(of: \Persisted<V>.column)!
        valueOffset = offset + MemoryLayout<Persisted<V>>.offset(of: \Persisted<V>.value)!
        plainValue = (valueOffset, Self.plainWidth)
    }

    /// The stored bytes of these types are their memory (little-endian
    /// 64-bit integers and doubles, a 0/1 byte for Bool), so an insert can
    /// copy them without going through V's encoder.
    private static var plainWidth: Int {
        #if _endian(little) && _pointerBitWidth(_64)
        if V.self == Int.self || V.self == Int64.self || V.self == Double.self { return 8 }
        if V.self == Bool.self { return 1 }
        #endif
        return 0
    }

    @inline(__always)
    private func base(_ object: ObjectBase) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
    }

    /// The unmanaged value. Writing through these pointers is how managed
    /// state is installed (RealmSwift does the same with ivar offsets).
    @inline(__always)
    private func valuePointer(_ object: ObjectBase) -> UnsafeMutablePointer<V> {
        (base(object) + valueOffset).assumingMemoryBound(to: V.self)
    }

    @inline(__always)
    private func column(of object: ObjectBase) -> Int32 {
        (base(object) + columnOffset).load(as: Int32.self)
    }

    var shape: _PropertyShape {
        var shape = V._rlmShape
        // A non-optional custom type persisted as an embedded object is
        // still a nullable link, as in RealmSwift.
        if shape.type == .object && shape.collection == .none { shape.isOptional = true }
        return shape
    }
    var valueType: Any.Type { V.self }

    func options(of object: ObjectBase) -> (flags: UInt8, originProperty: String?) {
        let field = (base(object) + columnOffset - MemoryLayout<Persisted<V>>.offset(of: \Persisted<V>.column)!)
            .assumingMemoryBound(to: Persisted<V>.self).pointee
        // Only linking objects have an origin: other values skip the cast (a
        // conformance lookup, which scans the program's conformances once
        // per value type).
        guard V._rlmShape.type == .linkingObjects else { return (field.flags, nil) }
        return (field.flags, (field.value as? any LinkingObjectsProtocol)?.originPropertyName)
    }

    func encodeUnmanaged(_ object: ObjectBase, column: Int, into writer: inout _RecordWriter) throws {
        try V._rlmEncode(valuePointer(object).pointee, column, &writer)
    }

    func unmanagedIndexKey(_ object: ObjectBase) -> [UInt8]? {
        V._rlmIndexKey(valuePointer(object).pointee)
    }

    func indexKey<K>(for value: K) throws -> [UInt8]? {
        if K.self == V.self {
            return withUnsafePointer(to: value) { $0.withMemoryRebound(to: V.self, capacity: 1) { V._rlmIndexKey($0.pointee) } }
        }
        return V._rlmIndexKey(try convert(value, realm: nil))
    }

    func value(of object: ObjectBase) -> Any {
        let column = column(of: object)
        return column < 0 ? valuePointer(object).pointee : V._rlmGet(object, Int(column))
    }

    func setValue(_ value: Any, on object: ObjectBase, realm: RealmCore?) throws {
        let converted = try convert(value, realm: realm)
        let column = column(of: object)
        if column < 0 {
            valuePointer(object).pointee = converted
        } else {
            V._rlmSet(object, Int(column), converted)
        }
    }

    private func convert(_ value: Any, realm: RealmCore?) throws -> V {
        // A value of exactly V (the common case): compare the metatypes and
        // force the cast, which then only copies. (`as? V` would look up the
        // metadata of V? in the runtime's table on every call.)
        if type(of: value) == V.self { return value as! V }
        if let direct = value as? V { return direct }
        guard let converted = try V._rlmConvert(value, realm) else {
            throw Realm.Error(.invalidValue,
                              "Invalid value '\(value)' of type '\(type(of: value))' for property '\(className).\(propertyName)' of type '\(V.self)'.")
        }
        return converted
    }
}

/// A class's name as `String(describing:)` spells it (unqualified; a
/// private class without its file discriminator), from the runtime's type
/// name. `String(describing:)` of a metatype first asks whether it conforms
/// to three printing protocols: conformance lookups that scan the program's
/// conformance records for each new class, a large part of a first open.
func swiftClassName(_ type: AnyClass) -> String {
    withoutFileDiscriminators(_typeName(type, qualified: false))
}

/// A runtime type name without private types' file discriminators.
func withoutFileDiscriminators(_ name: String) -> String {
    guard name.utf8.contains(UInt8(ascii: "(")) else { return name }
    // "(Name in _0123ABCD)" -> "Name", wherever it occurs (generic arguments).
    var result = ""
    var rest = name[...]
    while let marker = rest.firstRange(of: " in _"), let open = rest[..<marker.lowerBound].lastIndex(of: "("),
          let close = rest[marker.upperBound...].firstIndex(of: ")") {
        result += rest[..<open]
        result += rest[rest.index(after: open)..<marker.lowerBound]
        rest = rest[rest.index(after: close)...]
    }
    return result + rest
}
