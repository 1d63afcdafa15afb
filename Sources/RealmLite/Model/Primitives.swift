import Foundation

/// A scalar stored in one record column: a fixed-width slot (little-endian)
/// or a byte string in the variable area.
public protocol _RealmPrimitive: _Persistable, _RealmOptionalWrapped, RealmCollectionValue {
    static var _rlmType: PropertyType { get }
    /// Decodes the value from exactly its stored bytes.
    static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> Self
    /// Calls body with the value's stored bytes.
    func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
    /// Lenient conversion for create(value:) (e.g. Int -> Int8).
    static func _rlmFromAny(_ value: Any) -> Self?
}

extension _RealmPrimitive {
    public static var _rlmShape: _PropertyShape { _PropertyShape(type: _rlmType) }
    public static func _rlmFromAny(_ value: Any) -> Self? { value as? Self }
    public static func _rlmConvert(_ value: Any, _ realm: RealmCore?) throws -> Self? { _rlmFromAny(value) }

    // Managed access: the hot path. One bit test (optionals) and one load.
    // @inlinable, with what they reach, so that a model's getter in the
    // app's module compiles to a few loads (no witness call, no retain).
    @inlinable @inline(__always)
    public static func _rlmGet(_ object: ObjectBase, _ column: Int) -> Self {
        let record = object._currentRecord()
        let slot = object._slots.unsafelyUnwrapped[column]
        // An integer type (a constant once specialized) tests for a packed
        // slot first, its commonest, then for the key column: one test on
        // the packed path, two on the key's, none for the sign.
        if Self._rlmType == .int {
            if slot.width == ColumnSlot.packedInt { return _rlmLoadPacked(object, record, slot) }
            if _slowPath(slot.width == ColumnSlot.objectKey) { return withPrimaryKeyBytes(objectKey: object._key, _rlmLoad) }
        } else if Self._rlmType == .bool && slot.width == ColumnSlot.bitBool {
            // A Bool held in its null bit: one load and a bit test.
            return _rlmLoadBit(record, slot)
        } else if slot.width < 0 {
            return _rlmLoadKeyOrPacked(object, record, slot)
        }
        return _rlmLoad(slot.width > 0 ? record.fixed(slot) : record.variable(Int(slot.offset), object._layout, code: object._intCode))
    }

    @inlinable @inline(__always)
    public static func _rlmGetOptional(_ object: ObjectBase, _ column: Int) -> Self? {
        let record = object._currentRecord()
        let slot = object._slots.unsafelyUnwrapped[column]
        if _slowPath(slot.width == ColumnSlot.objectKey) { return withPrimaryKeyBytes(objectKey: object._key, _rlmLoad) }
        if record.isNull(slot) { return nil }
        if Self._rlmType == .int && slot.width == ColumnSlot.packedInt { return _rlmLoadPacked(object, record, slot) }
        if slot.width < 0 { return _rlmLoadKeyOrPacked(object, record, slot) }
        return _rlmLoad(slot.width > 0 ? record.fixed(slot) : record.variable(Int(slot.offset), object._layout, code: object._intCode))
    }

    /// The key column's value (the object key), or a packed integer's,
    /// read by value: the width switch and the load, and `_rlmLoad` of an
    /// 8-byte local that the optimizer folds away (or a Bool held in its bit).
    @inlinable @inline(__always)
    static func _rlmLoadKeyOrPacked(_ object: ObjectBase, _ record: RecordView, _ slot: ColumnSlot) -> Self {
        if _slowPath(slot.width == ColumnSlot.objectKey) { return withPrimaryKeyBytes(objectKey: object._key, _rlmLoad) }
        if _slowPath(slot.width == ColumnSlot.bitBool) { return _rlmLoadBit(record, slot) }
        return _rlmLoadPacked(object, record, slot)
    }

    /// A Bool held in its null bit, as its 0/1 byte (folded away).
    @inlinable @inline(__always)
    static func _rlmLoadBit(_ record: RecordView, _ slot: ColumnSlot) -> Self {
        var byte: UInt8 = record.bit(slot.offset) ? 1 : 0
        return withUnsafeBytes(of: &byte) { _rlmLoad($0) }
    }

    @inlinable @inline(__always)
    static func _rlmLoadPacked(_ object: ObjectBase, _ record: RecordView, _ slot: ColumnSlot) -> Self {
        var value = record.packedIntValue(Int(slot.offset), object._layout, code: object._intCode).littleEndian
        return withUnsafeBytes(of: &value) { _rlmLoad($0) }
    }

    public static func _rlmSet(_ object: ObjectBase, _ column: Int, _ value: Self) {
        value._rlmWithBytes { object._managingRealm.updateColumn(object, column, isNull: false, $0) }
    }

    public static func _rlmSetOptional(_ object: ObjectBase, _ column: Int, _ value: Self?) {
        guard let value else {
            object._managingRealm.updateColumn(object, column, isNull: true, UnsafeRawBufferPointer(start: nil, count: 0))
            return
        }
        _rlmSet(object, column, value)
    }

    public static func _rlmEncode(_ value: Self, _ column: Int, _ writer: inout _RecordWriter) throws {
        value._rlmWithBytes { writer.write(column, isNull: false, $0) }
    }

    public static func _rlmEncodeOptional(_ value: Self?, _ column: Int, _ writer: inout _RecordWriter) throws {
        if let value {
            value._rlmWithBytes { writer.write(column, isNull: false, $0) }
        } else {
            writer.write(column, isNull: true, UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    public static func _rlmIndexKey(_ value: Self) -> [UInt8]? {
        value._rlmWithBytes { indexKey(_rlmType, isNull: false, $0) }
    }

    public static func _rlmIndexKeyOptional(_ value: Self?) -> [UInt8]? {
        guard let value else { return [0] }
        return _rlmIndexKey(value)
    }

    public static func _rlmDecodeElement(_ bytes: UnsafeRawBufferPointer, _ realm: RealmCore?) -> Self {
        _rlmLoad(bytes)
    }

    public static func _rlmEncodeElement(_ value: Self, _ out: inout [UInt8], _ realm: RealmCore) throws {
        value._rlmWithBytes { out.appendRaw($0) }
    }
}

// MARK: - Fixed-width helpers

extension _RealmPrimitive {
    @inlinable @inline(__always)
    static func loadInt(_ bytes: UnsafeRawBufferPointer) -> Int64 { storedInt(bytes) }
}

/// A stored integer: 8 bytes, or 1, 2 or 4 from a packed integer slot
/// (Record.swift, "Integer slots"), sign-extended.
@inlinable @inline(__always)
func storedInt(_ bytes: UnsafeRawBufferPointer) -> Int64 {
    if _fastPath(bytes.count >= 8) { return Int64(littleEndian: bytes.loadUnaligned(as: Int64.self)) }
    switch bytes.count {
    case 4: return Int64(Int32(littleEndian: bytes.loadUnaligned(as: Int32.self)))
    case 2: return Int64(Int16(littleEndian: bytes.loadUnaligned(as: Int16.self)))
    default: return Int64(bytes.load(as: Int8.self))
    }
}

@inline(__always)
func withInt64Bytes<R>(_ value: Int64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    var le = value.littleEndian
    return try withUnsafeBytes(of: &le, body)
}

/// Integers from create(value:): any integer type or a Double with no fraction.
func anyInteger(_ value: Any) -> Int64? {
    switch value {
    case let v as Int: return Int64(v)
    case let v as Int64: return v
    case let v as Int32: return Int64(v)
    case let v as Int16: return Int64(v)
    case let v as Int8: return Int64(v)
    case let v as UInt8: return Int64(v)
    case let v as UInt16: return Int64(v)
    case let v as UInt32: return Int64(v)
    case let v as UInt: return Int64(exactly: v)
    case let v as UInt64: return Int64(exactly: v)
    case let v as Double: return Int64(exactly: v)
    case let v as NSNumber where !(v is Bool): return v.int64Value
    default: return nil
    }
}

func anyDouble(_ value: Any) -> Double? {
    switch value {
    case let v as Double: return v
    case let v as Float: return Double(v)
    case let v as NSNumber where !(v is Bool): return v.doubleValue
    default: return anyInteger(value).map(Double.init)
    }
}

// MARK: - Integers (all stored as 64 bits)

extension Int: _RealmPrimitive, _PrimaryKey {
    public static var _rlmType: PropertyType { .int }
    public static func _rlmDefaultValue() -> Int { 0 }
    @inlinable
    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> Int { Int(truncatingIfNeeded: loadInt(bytes)) }
    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try withInt64Bytes(Int64(self), body) }
    public static func _rlmFromAny(_ value: Any) -> Int? { anyInteger(value).flatMap { Int(exactly: $0) } }
}

extension Int64: _RealmPrimitive, _PrimaryKey {
    public static var _rlmType: PropertyType { .int }
    public static func _rlmDefaultValue() -> Int64 { 0 }
    @inlinable
    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> Int64 { loadInt(bytes) }
    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try withInt64Bytes(self, body) }
    public static func _rlmFromAny(_ value: Any) -> Int64? { anyInteger(value) }
}

extension Int32: _RealmPrimitive, _PrimaryKey {
    public static var _rlmType: PropertyType { .int }
    public static func _rlmDefaultValue() -> Int32 { 0 }
    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> Int32 { Int32(truncatingIfNeeded: loadInt(bytes)) }
    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try withInt64Bytes(Int64(self), body) }
    public static func _rlmFromAny(_ value: Any) -> Int32? { anyInteger(value).flatMap { Int32(exactly: $0) } }
}

extension Int16: _RealmPrimitive, _PrimaryKey {
    public static var _rlmType: PropertyType { .int }
    public static func _rlmDefaultValue() -> Int16 { 0 }
    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> Int16 { Int16(truncatingIfNeeded: loadInt(bytes)) }
    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try withInt64Bytes(Int64(self), body) }
    public static func _rlmFromAny(_ value: Any) -> Int16? { anyInteger(value).flatMap { Int16(exactly: $0) } }
}

extension Int8: _RealmPrimitive, _PrimaryKey {
    public static var _rlmType: PropertyType { .int }
    public static func _rlmDefaultValue() -> Int8 { 0 }
    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> Int8 { Int8(truncatingIfNeeded: loadInt(bytes)) }
    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try withInt64Bytes(Int64(self), body) }
    public static func _rlmFromAny(_ value: Any) -> Int8? { anyInteger(value).flatMap { Int8(exactly: $0) } }
}

// MARK: - Bool, Float, Double, Date

extension Bool: _RealmPrimitive, _Indexable {
    public static var _rlmType: PropertyType { .bool }
    public static func _rlmDefaultValue() -> Bool { false }
    @inlinable
    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> Bool { bytes.load(as: UInt8.self) != 0 }
    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var byte: UInt8 = self ? 1 : 0
        return try withUnsafeBytes(of: &byte, body)
    }
}

extension Float: _RealmPrimitive {
    public static var _rlmType: PropertyType { .float }
    public static func _rlmDefaultValue() -> Float { 0 }
    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> Float {
        Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)))
    }
    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var bits = bitPattern.littleEndian
        return try withUnsafeBytes(of: &bits, body)
    }
    public static func _rlmFromAny(_ value: Any) -> Float? { anyDouble(value).map(Float.init) }
}

extension Double: _RealmPrimitive {
    public static var _rlmType: PropertyType { .double }
    public static func _rlmDefaultValue() -> Double { 0 }
    @inlinable
    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> Double {
        Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)))
    }
    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var bits = bitPattern.littleEndian
        return try withUnsafeBytes(of: &bits, body)
    }
    public static func _rlmFromAny(_ value: Any) -> Double? { anyDouble(value) }
}

/// Dates are stored as the Double of timeIntervalSinceReferenceDate: exact.
extension Date: _RealmPrimitive, _Indexable {
    public static var _rlmType: PropertyType { .date }
    public static func _rlmDefaultValue() -> Date { Date(timeIntervalSince1970: 0) }
    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> Date {
        Date(timeIntervalSinceReferenceDate: Double._rlmLoad(bytes))
    }
    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try timeIntervalSinceReferenceDate._rlmWithBytes(body)
    }
}

// MARK: - String, Data, Decimal128 (variable size)

extension String: _RealmPrimitive, _PrimaryKey {
    public static var _rlmType: PropertyType { .string }
    public static func _rlmDefaultValue() -> String { "" }
    /// Short ASCII text is made inline (SmallString.swift), the rest decoded.
    @inlinable
    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> String {
        _SmallASCII.string(bytes) ?? String(decoding: bytes, as: UTF8.self)
    }
    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var copy = self
        return try copy.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }
    public static func _rlmFromAny(_ value: Any) -> String? {
        if let s = value as? String { return s }
        if let s = value as? Substring { return String(s) }
        return nil
    }
}

extension Data: _RealmPrimitive {
    public static var _rlmType: PropertyType { .data }
    public static func _rlmDefaultValue() -> Data { Data() }
    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> Data { bytes.isEmpty ? Data() : Data(bytes) }
    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(body)
    }
    public static func _rlmFromAny(_ value: Any) -> Data? {
        if let d = value as? Data { return d }
        if let b = value as? [UInt8] { return Data(b) }
        return nil
    }
}

/// Decimal128 is stored as text: its exact form ("1.50", "1.5E10"), which
/// keeps the exponent. Files written before Decimal128 was a decimal128 hold
/// Foundation's Decimal description ("1.5", "0.000001", up to 38 digits),
/// which the same parser reads (38 digits rounded to 34).
extension Decimal128: _RealmPrimitive {
    public static var _rlmType: PropertyType { .decimal128 }
    public static func _rlmDefaultValue() -> Decimal128 { Decimal128() }
    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> Decimal128 { parse(bytes) ?? .nan }
    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try exactString._rlmWithBytes(body)
    }
    public static func _rlmFromAny(_ value: Any) -> Decimal128? { converting(value) }
}

// MARK: - UUID, ObjectId

extension UUID: _RealmPrimitive, _PrimaryKey {
    public static var _rlmType: PropertyType { .UUID }
    public static func _rlmDefaultValue() -> UUID { UUID() }
    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> UUID {
        UUID(uuid: bytes.loadUnaligned(as: uuid_t.self))
    }
    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var raw = uuid
        return try withUnsafeBytes(of: &raw, body)
    }
    public static func _rlmFromAny(_ value: Any) -> UUID? {
        if let u = value as? UUID { return u }
        if let s = value as? String { return UUID(uuidString: s) }
        return nil
    }
}

extension ObjectId: _RealmPrimitive, _PrimaryKey {
    public static var _rlmType: PropertyType { .objectId }
    public static func _rlmDefaultValue() -> ObjectId { .generate() }
    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> ObjectId { ObjectId(bigEndianBytes: bytes) }
    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var raw = (high.bigEndian, low.bigEndian)
        return try withUnsafeBytes(of: &raw) { try body(UnsafeRawBufferPointer(rebasing: $0[0..<12])) }
    }
    public static func _rlmFromAny(_ value: Any) -> ObjectId? {
        if let o = value as? ObjectId { return o }
        if let s = value as? String { return try? ObjectId(string: s) }
        return nil
    }
}

// MARK: - Enums

/// An enum stored as its raw value: `enum Kind: Int, PersistableEnum { ... }`.
/// An enum of Int or String raw values can be a primary key
/// (`@Persisted(primaryKey: true) var kind: Kind`, found by
/// `object(ofType:forPrimaryKey: Kind.a)` or by its raw value) or indexed;
/// other raw types are refused when the schema is read.
/// Cases compare by raw value, as in RealmSwift.
public protocol PersistableEnum: _RealmPrimitive, _PrimaryKey, RawRepresentable, CaseIterable, Comparable
    where RawValue: _RealmPrimitive & Comparable {}

extension PersistableEnum {
    /// The first case: the value of a new object's non-optional enum
    /// property, as in RealmSwift.
    public init() { self = Self.allCases.first! }
    /// Orders cases by raw value.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public static var _rlmType: PropertyType { RawValue._rlmType }
    public static func _rlmDefaultValue() -> Self { allCases.first! }
    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> Self {
        let raw = RawValue._rlmLoad(bytes)
        guard let value = Self(rawValue: raw) else {
            realmFatal(.invalidValue, "Stored value '\(raw)' is not a case of enum \(Self.self).")
        }
        return value
    }
    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try rawValue._rlmWithBytes(body)
    }
    public static func _rlmFromAny(_ value: Any) -> Self? {
        if let v = value as? Self { return v }
        return RawValue._rlmFromAny(value).flatMap(Self.init(rawValue:))
    }
}
