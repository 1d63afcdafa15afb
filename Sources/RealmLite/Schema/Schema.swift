// The public, read-only description of a Realm's schema (RealmSwift's
// Schema / ObjectSchema / Property), plus the storage facts of each type.

/// The stored type of a property (RealmSwift's names).
public enum PropertyType: Int, Sendable, CustomStringConvertible, Codable {
    /// The property's stored type: `int` for every integer width, `bool`,
    /// `float`, `double`, `string`, `data`, `date`, `objectId`, `decimal128`
    /// and `UUID` for those value types (and for `PersistableEnum`s by their
    /// raw value), `object` for a link or a collection of links,
    /// `linkingObjects` for inverse links; `any` for ``AnyRealmValue``
    /// (described as "mixed", Realm's name).
    case int, bool, float, double, string, data, any, date, object, linkingObjects, objectId, decimal128, UUID

    public var description: String {
        switch self {
        case .int: "int"
        case .bool: "bool"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .data: "data"
        case .any: "mixed"
        case .date: "date"
        case .object: "object"
        case .linkingObjects: "linking objects"
        case .objectId: "object id"
        case .decimal128: "decimal128"
        case .UUID: "uuid"
        }
    }

    /// Bytes of a record slot; 0 for variable-size values (stored in the
    /// record's variable area). Every integer type is stored as 64 bits.
    var fixedWidth: Int {
        switch self {
        case .bool: 1
        case .float: 4
        case .int, .double, .date, .object: 8
        case .objectId: 12
        case .UUID: 16
        case .string, .data, .decimal128, .any, .linkingObjects: 0
        }
    }

    /// Types allowed for `@Persisted(primaryKey: true)`.
    var canBePrimaryKey: Bool { self == .int || self == .string || self == .objectId || self == .UUID }
    /// Types allowed for `@Persisted(indexed: true)`.
    var canBeIndexed: Bool { canBePrimaryKey || self == .bool || self == .date || self == .any }
}

/// How a property holds its values.
public enum _CollectionKind: UInt8, Sendable, Codable {
    case none, list, set, map
}

/// What a Swift property type stores, as reported by `_Persistable`.
public struct _PropertyShape: @unchecked Sendable {
    // @unchecked: ObjectBase.Type is an immutable metatype reference.
    public var type: PropertyType
    public var isOptional: Bool
    public var collection: _CollectionKind
    /// The linked class for `.object` / `.linkingObjects` properties.
    public var objectType: ObjectBase.Type?

    public init(type: PropertyType, isOptional: Bool = false, collection: _CollectionKind = .none,
                objectType: ObjectBase.Type? = nil) {
        self.type = type
        self.isOptional = isOptional
        self.collection = collection
        self.objectType = objectType
    }

    func with(collection: _CollectionKind) -> _PropertyShape {
        var copy = self
        copy.collection = collection
        return copy
    }
}

/// One property of an object schema.
public struct Property: CustomStringConvertible, Equatable, Sendable {
    /// The property's name, as declared in the model class (and as queries and
    /// key-value coding spell it).
    public let name: String
    /// The name of the column in the file: the same as ``name`` (RealmLite
    /// stores properties under their Swift names).
    public var columnName: String { name }
    /// The stored type: for a collection, the type of its elements.
    public let type: PropertyType
    /// True if the property (or each collection element) can hold nil.
    public let isOptional: Bool
    /// True for the class's primary key.
    public let isPrimary: Bool
    /// True if `==` and `IN` queries on the property are index lookups:
    /// declared `indexed: true`, or the primary key.
    public let isIndexed: Bool
    /// True for a `List` property.
    public let isArray: Bool
    /// True for a `MutableSet` property.
    public let isSet: Bool
    /// True for a `Map` property.
    public let isMap: Bool
    /// The linked class name for object and linking-objects properties.
    public let objectClassName: String?
    /// For linking-objects properties: the property of `objectClassName` that links here.
    public let linkOriginPropertyName: String?
    /// True for a String property declared `@Persisted(indexed: .fullText)`:
    /// `TEXT` queries on it search its words. (Not counted in ``isIndexed``.)
    public var isFullTextIndexed: Bool = false

    public var description: String {
        var text = "\(name) {\n\t\ttype = \(type);\n"
        if let objectClassName { text += "\t\tobjectClassName = \(objectClassName);\n" }
        if let linkOriginPropertyName { text += "\t\tlinkOriginPropertyName = \(linkOriginPropertyName);\n" }
        text += "\t\tcollection = \(isArray ? "list" : isSet ? "set" : isMap ? "map" : "none");\n"
        if isFullTextIndexed { text += "\t\tfullTextIndexed = YES;\n" }
        text += "\t\tindexed = \(isIndexed ? "YES" : "NO");\n\t\tisPrimary = \(isPrimary ? "YES" : "NO");\n"
        text += "\t\toptional = \(isOptional ? "YES" : "NO");\n\t}"
        return text
    }
}

/// The schema of one object class.
public struct ObjectSchema: CustomStringConvertible, Equatable, Sendable {
    /// The class name in the schema: ``ObjectBase/className()``, the Swift
    /// class name unless the class stores itself under another.
    public let className: String
    /// The persisted properties, in declaration order (the order that
    /// `Object(value:)` with an array follows).
    public let properties: [Property]
    /// True for an ``EmbeddedObject`` subclass.
    public let isEmbedded: Bool
    /// Always false: RealmLite has no asymmetric (sync-only) objects.
    public var isAsymmetric: Bool { false }
    /// The Swift class of the objects: the model class, or ``DynamicObject``
    /// for a class read from the stored schema (the dynamic API, a
    /// migration's old schema).
    public var objectClass: AnyClass { objectType ?? DynamicObject.self }
    /// The model class, when the schema was read from one.
    var objectType: ObjectBase.Type? = nil
    /// The primary key property, or nil if the class has none.
    public var primaryKeyProperty: Property? { properties.first { $0.isPrimary } }

    /// The property named `propertyName`, or nil if the class has none.
    public subscript(propertyName: String) -> Property? {
        properties.first { $0.name == propertyName }
    }

    /// True if both describe the same class (name, properties, kind),
    /// whether read from a model class or from the file.
    public static func == (lhs: ObjectSchema, rhs: ObjectSchema) -> Bool {
        lhs.className == rhs.className && lhs.properties == rhs.properties && lhs.isEmbedded == rhs.isEmbedded
    }

    public var description: String {
        "\(className) {\n" + properties.map { "\t" + $0.description }.joined(separator: "\n") + "\n}"
    }
}

/// The schema of a Realm: every class it stores.
public struct Schema: CustomStringConvertible, Equatable, Sendable {
    /// One schema per class, sorted by class name.
    public let objectSchema: [ObjectSchema]

    /// The schema of the class named `className`, or nil if the Realm does not
    /// store that class.
    public subscript(className: String) -> ObjectSchema? {
        objectSchema.first { $0.className == className }
    }

    public var description: String { "Schema {\n" + objectSchema.map(\.description).joined(separator: "\n") + "\n}" }
}
