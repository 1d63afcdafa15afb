import Foundation

// The schema as RealmLite stores it (realm:meta, key "schema"): JSON written
// by Sources/RealmLite/Schema/StoredSchema.swift. Decoded here on its own
// (the tool does not link the library): property types and collection
// kinds are the raw values of PropertyType and _CollectionKind
// (Sources/RealmLite/Schema/Schema.swift). Property order is record order.

struct FileSchema: Decodable {
    var version: UInt64
    var classes: [FileClass]
    var format: Int?

    /// The newest object format this tool reads (StoredSchema.currentFormat).
    static let knownFormat = 12

    static func decode(_ bytes: [UInt8], path: String) throws -> FileSchema {
        let schema: FileSchema
        do {
            schema = try JSONDecoder().decode(FileSchema.self, from: Data(bytes))
        } catch {
            throw CLIError("\(path): damaged file (the stored schema in realm:meta cannot be read: \(FileSchema.reason(error)))")
        }
        if let format = schema.format, format > knownFormat {
            throw CLIError("\(path): written by a newer RealmLite (object format \(format); this tool reads up to \(knownFormat))")
        }
        return schema
    }

    private static func reason(_ error: Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return context.debugDescription
        case DecodingError.keyNotFound(let key, _): return "no \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default: return "\(error)"
        }
    }

    func `class`(named name: String) -> FileClass? { classes.first { $0.name == name } }
}

struct FileClass: Decodable {
    var name: String
    var embedded: Bool
    var properties: [FileProperty]
    var keyedByPrimaryKey: Bool?
    /// Columns per record generation (records start with their generation byte); nil: no generation byte.
    var generations: [Int]?
    /// A record of the current layout holding the columns older generations lack.
    var defaults: Data?
    /// Var end offsets 1, 2 or 4 bytes wide by the record's size (object format 7); nil: u32.
    var compactOffsets: Bool?
    /// Integer columns packed after the other fixed slots, 1, 2, 4 or 8 bytes by the record's values (object format 10).
    var intSlots: Bool?
    /// No end offset for the last var field: it ends at the record's end (object format 11).
    var impliedLastEnd: Bool?
    /// A non-optional Bool is its null bit, with no slot (object format 12).
    var boolBits: Bool?

    var primaryKey: FileProperty? { properties.first { $0.primaryKey } }
    var isKeyed: Bool { keyedByPrimaryKey == true }
}

enum ValueType: Int, Decodable {
    case int, bool, float, double, string, data, any, date, object, linkingObjects, objectId, decimal128, uuid

    /// Bytes of a fixed record slot; 0 for variable-size values.
    var fixedWidth: Int {
        switch self {
        case .bool: 1
        case .float: 4
        case .int, .double, .date, .object: 8
        case .objectId: 12
        case .uuid: 16
        case .string, .data, .decimal128, .any, .linkingObjects: 0
        }
    }
}

enum CollectionKind: UInt8, Decodable {
    case none, list, set, map
}

struct FileProperty: Decodable {
    var name: String
    var type: ValueType
    var optional: Bool
    var collection: CollectionKind
    var objectClass: String?
    var primaryKey: Bool
    var indexed: Bool
    var originProperty: String?
    /// A full-text index (fts:C.p: token, 0, object key), format 4.
    var fullText: Bool?
    /// Removed by a migration that left the records: in the layout only.
    var retired: Bool?

    /// Linking objects are computed, not stored in records.
    var isStored: Bool { type != .linkingObjects }
}

// MARK: - Swift declarations

extension FileSchema {
    /// The stored schema as RealmLite model declarations. Every integer
    /// width is stored as Int64, so integers print as `Int`.
    func swiftDeclarations(path: String) -> String {
        var out = "// The schema stored in \((path as NSString).lastPathComponent): schema version \(version), object format \(format ?? 1).\n"
        out += "// Integer widths are not stored (every integer is 64-bit in the file): they print as Int.\n"
        out += "import RealmLite\n"
        for cls in classes {
            out += "\nclass \(cls.name): \(cls.embedded ? "EmbeddedObject" : "Object") {\n"
            for property in cls.properties where property.retired != true {
                out += "    \(property.swiftDeclaration)\n"
            }
            out += "}\n"
        }
        return out
    }
}

extension FileProperty {
    var swiftDeclaration: String {
        var options: [String] = []
        if primaryKey { options.append("primaryKey: true") }
        if indexed { options.append("indexed: true") }
        if let originProperty { options.append("originProperty: \"\(originProperty)\"") }
        let attribute = options.isEmpty ? "@Persisted" : "@Persisted(\(options.joined(separator: ", ")))"
        return "\(attribute) var \(name): \(swiftType)"
    }

    var swiftType: String {
        let element = swiftElementType
        switch collection {
        case .none where type == .linkingObjects: return "LinkingObjects<\(objectClass ?? "Object")>"
        case .none: return element + (optional || type == .object ? "?" : "")
        case .list: return "List<\(element)\(optional ? "?" : "")>"
        case .set: return "MutableSet<\(element)\(optional ? "?" : "")>"
        case .map: return "Map<String, \(element)\(optional || type == .object ? "?" : "")>"
        }
    }

    private var swiftElementType: String {
        switch type {
        case .int: "Int"
        case .bool: "Bool"
        case .float: "Float"
        case .double: "Double"
        case .string: "String"
        case .data: "Data"
        case .any: "AnyRealmValue"
        case .date: "Date"
        case .object, .linkingObjects: objectClass ?? "Object"
        case .objectId: "ObjectId"
        case .decimal128: "Decimal128"
        case .uuid: "UUID"
        }
    }
}
