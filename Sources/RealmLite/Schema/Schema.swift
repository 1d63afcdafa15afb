// The public, read-only description of a Realm's schema (RealmSwift's
// Schema / ObjectSchema / Property), plus the storage facts of each type.

/// The stored type of a property (RealmSwift's names).
public enum PropertyType: Int, Sendable, CustomStringConvertible, Codable {
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
    var canBeIndexed: Bool { canBePrimaryKey || self == .bool || self == .date }
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
    public let name: String
    public let type: PropertyType
    public let isOptional: Bool
    public let isPrimary: Bool
    public let isIndexed: Bool
    public let isArray: Bool
    public let isSet: Bool
    public let isMap: Bool
    /// The linked class name for object and linking-objects properties.
    public let objectClassName: String?
    /// For linking-objects properties: the property of `objectClassName` that links here.
    public let linkOriginPropertyName: String?

    public var description: String {
        var text = "\(name) {\n\t\ttype = \(type);\n"
        if let objectClassName { text += "\t\tobjectClassName = \(objectClassName);\n" }
        if let linkOriginPropertyName { text += "\t\tlinkOriginPropertyName = \(linkOriginPropertyName);\n" }
        text += "\t\tcollection = \(isArray ? "list" : isSet ? "set" : isMap ? "map" : "none");\n"
        text += "\t\tindexed = \(isIndexed ? "YES" : "NO");\n\t\tisPrimary = \(isPrimary ? "YES" : "NO");\n"
        text += "\t\toptional = \(isOptional ? "YES" : "NO");\n\t}"
        return text
    }
}

/// The schema of one object class.
public struct ObjectSchema: CustomStringConvertible, Equatable, Sendable {
    public let className: String
    public let properties: [Property]
    public let isEmbedded: Bool
    public var primaryKeyProperty: Property? { properties.first { $0.isPrimary } }

    public subscript(propertyName: String) -> Property? {
        properties.first { $0.name == propertyName }
    }

    public var description: String {
        "\(className) {\n" + properties.map { "\t" + $0.description }.joined(separator: "\n") + "\n}"
    }
}

/// The schema of a Realm: every class it stores.
public struct Schema: CustomStringConvertible, Equatable, Sendable {
    public let objectSchema: [ObjectSchema]

    public subscript(className: String) -> ObjectSchema? {
        objectSchema.first { $0.className == className }
    }

    public var description: String { "Schema {\n" + objectSchema.map(\.description).joined(separator: "\n") + "\n}" }
}
