import Foundation

// AnyRealmValue (Realm's "mixed"): a property or collection element holding
// a value of any Realm type, a link, or a nested list or dictionary. Storage
// (tag byte + payload) is in Storage/MixedCodec.swift; docs/OBJECTS.md.

/// A value of any type Realm stores: `@Persisted var value: AnyRealmValue`,
/// or an element of `List<AnyRealmValue>`, `MutableSet<AnyRealmValue>` and
/// `Map<String, AnyRealmValue>`. ``none`` is its nil.
///
/// An `.object` value is a link: deleting the object makes the value
/// read as ``none``. ``list(_:)`` and ``dictionary(_:)`` nest collections of
/// further values; read from a managed object they are live, managed
/// collections (mutated inside a write transaction, like a `List` property).
/// A `MutableSet` holds no nested collection, and a managed one holds one
/// element per number whatever its case (int 1 is double 1, as in Realm).
public enum AnyRealmValue: Hashable {
    /// No value: the nil of a mixed property.
    case none
    /// An integer (every width is stored as 64 bits).
    case int(Int)
    /// A boolean.
    case bool(Bool)
    /// A single-precision number.
    case float(Float)
    /// A double-precision number.
    case double(Double)
    /// A string.
    case string(String)
    /// Binary data.
    case data(Data)
    /// A date.
    case date(Date)
    /// A link to an object of any (non-embedded) class in the Realm's schema.
    case object(Object)
    /// An ObjectId.
    case objectId(ObjectId)
    /// A Decimal128.
    case decimal128(Decimal128)
    /// A UUID.
    case uuid(UUID)
    /// A nested dictionary of further values.
    case dictionary(Map<String, AnyRealmValue>)
    /// A nested list of further values.
    case list(List<AnyRealmValue>)

    /// The integer, if the value is ``int(_:)``.
    public var intValue: Int? {
        guard case .int(let value) = self else { return nil }
        return value
    }

    /// The boolean, if the value is ``bool(_:)``.
    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The float, if the value is ``float(_:)``.
    public var floatValue: Float? {
        guard case .float(let value) = self else { return nil }
        return value
    }

    /// The double, if the value is ``double(_:)``.
    public var doubleValue: Double? {
        guard case .double(let value) = self else { return nil }
        return value
    }

    /// The string, if the value is ``string(_:)``.
    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The data, if the value is ``data(_:)``.
    public var dataValue: Data? {
        guard case .data(let value) = self else { return nil }
        return value
    }

    /// The date, if the value is ``date(_:)``.
    public var dateValue: Date? {
        guard case .date(let value) = self else { return nil }
        return value
    }

    /// The ObjectId, if the value is ``objectId(_:)``.
    public var objectIdValue: ObjectId? {
        guard case .objectId(let value) = self else { return nil }
        return value
    }

    /// The Decimal128, if the value is ``decimal128(_:)``.
    public var decimal128Value: Decimal128? {
        guard case .decimal128(let value) = self else { return nil }
        return value
    }

    /// The UUID, if the value is ``uuid(_:)``.
    public var uuidValue: UUID? {
        guard case .uuid(let value) = self else { return nil }
        return value
    }

    /// The linked object as `objectType`, if the value is `.object`
    /// holding an object of that class.
    public func object<T: Object>(_ objectType: T.Type) -> T? {
        guard case .object(let value) = self else { return nil }
        return value as? T
    }

    /// The linked object, if the value is `.object`. RealmSwift returns
    /// a `DynamicObject`; RealmLite's objects answer the same string
    /// subscript (`value.dynamicObject?["name"]`).
    public var dynamicObject: Object? {
        guard case .object(let value) = self else { return nil }
        return value
    }

    /// The nested dictionary, if the value is ``dictionary(_:)``.
    public var dictionaryValue: Map<String, AnyRealmValue>? {
        guard case .dictionary(let value) = self else { return nil }
        return value
    }

    /// The nested list, if the value is ``list(_:)``.
    public var listValue: List<AnyRealmValue>? {
        guard case .list(let value) = self else { return nil }
        return value
    }

    /// ``none``.
    public init() { self = .none }

    /// A ``dictionary(_:)`` value holding a new unmanaged map of `dictionary`.
    public static func fromDictionary(_ dictionary: [String: AnyRealmValue]) -> AnyRealmValue {
        let map = Map<String, AnyRealmValue>()
        for (key, value) in dictionary { map[key] = value }
        return .dictionary(map)
    }

    /// A ``list(_:)`` value holding a new unmanaged list of `array`.
    public static func fromArray(_ array: [AnyRealmValue]) -> AnyRealmValue {
        let list = List<AnyRealmValue>()
        list.append(objectsIn: array)
        return .list(list)
    }

    /// Values of the same case with equal payloads (objects: the same
    /// object; collections: the same list or map, or unmanaged ones with
    /// equal contents). `.int(1)` and `.double(1)` differ here, as in
    /// RealmSwift; queries compare numbers across cases.
    public static func == (lhs: AnyRealmValue, rhs: AnyRealmValue) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none): true
        case (.int(let a), .int(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.float(let a), .float(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        case (.objectId(let a), .objectId(let b)): a == b
        case (.decimal128(let a), .decimal128(let b)): a == b
        case (.uuid(let a), .uuid(let b)): a == b
        case (.list(let a), .list(let b)):
            a === b || a.field.map { $0.isSame(as: b.field) } ?? (b.field == nil && a.unmanaged == b.unmanaged)
        case (.dictionary(let a), .dictionary(let b)):
            a === b || a.field.map { $0.isSame(as: b.field) } ?? (b.field == nil && a.unmanaged == b.unmanaged)
        default: false
        }
    }

    /// Hashes the payload (collections by their case only), as RealmSwift.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .int(let v): hasher.combine(v)
        case .bool(let v): hasher.combine(v)
        case .float(let v): hasher.combine(v)
        case .double(let v): hasher.combine(v)
        case .string(let v): hasher.combine(v)
        case .data(let v): hasher.combine(v)
        case .date(let v): hasher.combine(v)
        case .objectId(let v): hasher.combine(v)
        case .decimal128(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        case .object(let v): hasher.combine(v)
        case .dictionary: hasher.combine(12)
        case .list: hasher.combine(13)
        case .none: hasher.combine(14)
        }
    }
}

// MARK: - Storage conformances

extension AnyRealmValue: _Persistable, RealmCollectionValue, _Indexable {
    public static var _rlmShape: _PropertyShape { _PropertyShape(type: .any) }
    public static func _rlmDefaultValue() -> AnyRealmValue { .none }

    public static func _rlmConvert(_ value: Any, _ realm: RealmCore?) throws -> AnyRealmValue? {
        try anyRealmValue(from: value, realm)
    }

    public static func _rlmGet(_ object: ObjectBase, _ column: Int) -> AnyRealmValue {
        let record = object._currentRecord()
        let info = object._info.unsafelyUnwrapped
        let slot = info.slots[column]
        if record.isNull(slot) { return .none }
        return decodeMixed(record.field(slot, info.layout), object._managingRealm,
                           asField: CollectionField(owner: object, column: column, rootIsValue: true))
    }

    public static func _rlmSet(_ object: ObjectBase, _ column: Int, _ value: AnyRealmValue) {
        let realm = object._managingRealm
        let info = object._info.unsafelyUnwrapped
        realm.requireWrite("modify property '\(info.name).\(info.columns[column].name)'")
        if case .none = value {
            realm.updateColumn(object, column, isNull: true, UnsafeRawBufferPointer(start: nil, count: 0))
            return
        }
        var bytes: [UInt8] = []
        guard realm.recording({ try encodeMixed(value, &bytes, realm) }) != nil else { return }
        bytes.withUnsafeBytes { realm.updateColumn(object, column, isNull: false, $0) }
    }

    public static func _rlmEncode(_ value: AnyRealmValue, _ column: Int, _ writer: inout _RecordWriter) throws {
        if case .none = value {
            writer.write(column, isNull: true, UnsafeRawBufferPointer(start: nil, count: 0))
            return
        }
        var bytes: [UInt8] = []
        try encodeMixed(value, &bytes, writer.realm)
        writer.write(column, isNull: false, bytes)
    }

    /// Mixed values are never primary keys; index entries come from the
    /// stored bytes (indexKey(.any, ...)).
    public static func _rlmIndexKey(_ value: AnyRealmValue) -> [UInt8]? { nil }

    public static func _rlmDecodeElement(_ bytes: UnsafeRawBufferPointer, _ realm: RealmCore?) -> AnyRealmValue {
        decodeMixed(bytes, realm)
    }

    public static func _rlmEncodeElement(_ value: AnyRealmValue, _ out: inout [UInt8], _ realm: RealmCore) throws {
        try encodeMixed(value, &out, realm)
    }
}

/// create(value:) / KVC: an AnyRealmValue, nil, or any value a Realm
/// property can hold (arrays and dictionaries become nested collections).
private func anyRealmValue(from value: Any, _ realm: RealmCore?) throws -> AnyRealmValue? {
    if let mixed = value as? AnyRealmValue { return mixed }
    if isNil(value) { return AnyRealmValue.none }
    switch unwrapOptional(value) {
    case let v as Bool: return .bool(v)
    case let v as Int: return .int(v)
    case let v as Float: return .float(v)
    case let v as Double: return .double(v)
    case let v as String: return .string(v)
    case let v as Data: return .data(v)
    case let v as Date: return .date(v)
    case let v as ObjectId: return .objectId(v)
    case let v as Decimal128: return .decimal128(v)
    case let v as UUID: return .uuid(v)
    case let v as Object: return .object(v)
    case let v as List<AnyRealmValue>: return .list(v)
    case let v as Map<String, AnyRealmValue>: return .dictionary(v)
    case let v as [Any]:
        let list = List<AnyRealmValue>()
        for item in v {
            guard let element = try anyRealmValue(from: item, realm) else { return nil }
            list.append(element)
        }
        return .list(list)
    case let v as [String: Any]:
        let map = Map<String, AnyRealmValue>()
        for (key, item) in v {
            guard let element = try anyRealmValue(from: item, realm) else { return nil }
            map[key] = element
        }
        return .dictionary(map)
    case let v:
        return anyInteger(v).map { .int(Int($0)) }
    }
}
