// Custom persistable types: a user type stored as one of the persistable
// types (RealmSwift's CustomPersistable / FailableCustomPersistable). The
// column, its index keys, collections and queries all see the persisted
// value; conversion happens at the accessor, so nothing in Storage/ knows
// about these types, and Query/ only where a constant of the user type
// becomes its persisted value (QueryValue.from; memberwise equality in the
// where builder for embedded ones). A type persisted as an EmbeddedObject
// is a link column to that class: the accessors below convert at the same
// place, and the link code owns the embedded rows. Code that reads a link
// through an accessor expecting an object must read the record instead
// (key-path recording and observation do).

/// What ``CustomPersistable`` and ``FailableCustomPersistable`` share; not
/// API. A custom type is a primitive whose bytes are its persisted value's,
/// or, persisted as an embedded object, a link whose byte-level primitive
/// requirements are never used.
public protocol _CustomPersistable: _RealmPrimitive {
    /// The persistable type the value is stored as: a primitive or an
    /// `EmbeddedObject` subclass.
    associatedtype PersistedType: _RealmOptionalWrapped
    /// The value to store.
    var persistableValue: PersistedType { get }
    /// The value stored as `persisted`, or nil if it does not convert.
    static func _rlmFromPersisted(_ persisted: PersistedType) -> Self?
}

/// A type stored as one of the persistable types (`PersistedType`: Int,
/// String, Date, Decimal128, ObjectId, UUID, Data...), so that it can be a
/// `@Persisted` property (optional too) and an element of `List`,
/// `MutableSet` and `Map`:
///
/// ```swift
/// struct Money: CustomPersistable {
///     typealias PersistedType = Decimal128
///     var amount: Decimal128
///     init(persistedValue: Decimal128) { amount = persistedValue }
///     var persistableValue: Decimal128 { amount }
/// }
/// class Invoice: Object { @Persisted var total: Money }
/// ```
///
/// Queries work on the persisted value: a `where { $0.total == money }`
/// constant of the custom type is converted to it, and query strings use the
/// persisted value (`"total > 10"`); sorting orders by it. A custom type
/// stored as Int, String, ObjectId or UUID can be the primary key
/// (`@Persisted(primaryKey: true)`), and one stored as an indexable type
/// can be indexed. Custom types are hashed by their persisted value unless
/// they hash themselves.
///
/// `PersistedType` can also be an `EmbeddedObject` subclass, to store more
/// than one value:
///
/// ```swift
/// class Location: EmbeddedObject {
///     @Persisted var latitude: Double
///     @Persisted var longitude: Double
/// }
/// struct Coordinate: CustomPersistable {
///     typealias PersistedType = Location
///     var latitude = 0.0, longitude = 0.0
///     init(persistedValue: Location) { latitude = persistedValue.latitude; longitude = persistedValue.longitude }
///     var persistableValue: Location { Location(value: [latitude, longitude]) }
/// }
/// class Place: Object { @Persisted var coordinate: Coordinate }
/// ```
///
/// The property is a link to the embedded class. Reading converts the
/// embedded object; writing stores a new embedded object made from
/// `persistableValue` and deletes the one it replaces. The property need
/// not be optional, as in RealmSwift: a non-optional one defaults to the
/// type made from a new `PersistedType()` (stored when the object is added;
/// nil in create(value:) means it too), and a nil link stored by another
/// program reads as it. `List<Coordinate>` and `Map<String, Coordinate?>`
/// hold embedded objects (no `MutableSet`, as in RealmSwift; no Map of the
/// non-optional type yet). Queries name the embedded properties:
/// `"coordinate.latitude > 10"`, or
/// `where { $0.coordinate.persistableValue.latitude > 10 }`; `==` and `!=`
/// with a value of the type compare memberwise (`where { $0.coordinate ==
/// c }` is `coordinate.latitude == c.latitude AND coordinate.longitude ==
/// c.longitude`), as in RealmSwift.
public protocol CustomPersistable: _CustomPersistable {
    /// The value stored as `persistedValue`.
    init(persistedValue: PersistedType)
    /// The value to store.
    var persistableValue: PersistedType { get }
}

/// A ``CustomPersistable`` whose conversion from the stored value can fail:
/// `extension URL: FailableCustomPersistable`. As in RealmSwift, a stored
/// value that does not convert reads as nil where the property or element
/// is optional (`URL?`, `List<URL?>`), and stops the program with
/// ``Realm/Error/Code/invalidValue`` ("Failed to convert persisted value …")
/// where it is not, since property reads cannot throw. The conversion must
/// succeed for the persisted type's default value (0, "", …), the default of
/// a non-optional property.
public protocol FailableCustomPersistable: _CustomPersistable {
    /// The value stored as `persistedValue`, or nil if it has none.
    init?(persistedValue: PersistedType)
    /// The value to store.
    var persistableValue: PersistedType { get }
}

extension CustomPersistable {
    public static func _rlmFromPersisted(_ persisted: PersistedType) -> Self? { Self(persistedValue: persisted) }
}

extension FailableCustomPersistable {
    public static func _rlmFromPersisted(_ persisted: PersistedType) -> Self? { Self(persistedValue: persisted) }
}

extension FailableCustomPersistable where PersistedType: _RealmPrimitive {
    // Optional contexts collapse a failed conversion to nil.
    public static func _rlmGetOptional(_ object: ObjectBase, _ column: Int) -> Self? {
        PersistedType._rlmGetOptional(object, column).flatMap(Self.init(persistedValue:))
    }
    public static func _rlmDecodeOptionalElement(_ bytes: UnsafeRawBufferPointer, _ realm: RealmCore?) -> Self? {
        Self(persistedValue: PersistedType._rlmLoad(bytes))
    }
}

extension _CustomPersistable where PersistedType: _RealmPrimitive {
    public static var _rlmType: PropertyType { PersistedType._rlmType }

    public static func _rlmDefaultValue() -> Self { converted(PersistedType._rlmDefaultValue()) }

    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> Self { converted(PersistedType._rlmLoad(bytes)) }

    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try persistableValue._rlmWithBytes(body)
    }

    /// The value itself, or a value of the persisted type (create(value:),
    /// KVC, primary-key lookups).
    public static func _rlmFromAny(_ value: Any) -> Self? {
        if let custom = value as? Self { return custom }
        return PersistedType._rlmFromAny(value).flatMap(_rlmFromPersisted)
    }

    /// Hashes the persisted value.
    public func hash(into hasher: inout Hasher) { persistableValue.hash(into: &hasher) }
}

extension _CustomPersistable {
    /// The value stored as `persisted` in a non-optional context: a failed
    /// conversion stops the program (reads cannot throw), as in RealmSwift.
    static func converted(_ persisted: PersistedType) -> Self {
        guard let value = _rlmFromPersisted(persisted) else {
            realmFatal(.invalidValue, "Failed to convert persisted value '\(persisted)' to type '\(Self.self)' in a non-optional context.")
        }
        return value
    }
}

// MARK: - Persisted as an EmbeddedObject

// The column is a link (its shape is the embedded class's), so every access
// goes through the link accessors of ObjectBase with the persisted object;
// the byte-level _RealmPrimitive requirements are never reached for a link
// column and stop if they are.
extension _CustomPersistable where PersistedType: EmbeddedObject {
    public static var _rlmShape: _PropertyShape { PersistedType._rlmShape }
    public static var _rlmType: PropertyType { .object }

    /// The type made from a new, default embedded object (RealmSwift's
    /// default for a non-optional embedded mapping).
    public static func _rlmDefaultValue() -> Self { converted(PersistedType()) }

    public static func _rlmLoad(_ bytes: UnsafeRawBufferPointer) -> Self {
        realmFatal(.invalidValue, "'\(Self.self)' is stored as an embedded object, not as bytes.")
    }

    public func _rlmWithBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        realmFatal(.invalidValue, "'\(Self.self)' is stored as an embedded object, not as bytes.")
    }

    /// The value itself, an embedded object, or a dictionary/array
    /// describing one (create(value:)); nil (NSNull) is the default value,
    /// as in RealmSwift.
    public static func _rlmConvert(_ value: Any, _ realm: RealmCore?) throws -> Self? {
        if let custom = value as? Self { return custom }
        // Optional<Self> takes nil itself; here nil is a non-optional's default.
        if isNil(value) { return _rlmDefaultValue() }
        return try PersistedType._rlmConvert(value, realm).flatMap(_rlmFromPersisted)
    }

    /// No embedded object reads as the default value.
    public static func _rlmGet(_ object: ObjectBase, _ column: Int) -> Self {
        PersistedType._rlmGetOptional(object, column).map(converted) ?? _rlmDefaultValue()
    }

    /// A failed conversion reads as nil (FailableCustomPersistable).
    public static func _rlmGetOptional(_ object: ObjectBase, _ column: Int) -> Self? {
        PersistedType._rlmGetOptional(object, column).flatMap(_rlmFromPersisted)
    }

    public static func _rlmSet(_ object: ObjectBase, _ column: Int, _ value: Self) {
        PersistedType._rlmSetOptional(object, column, value.persistableValue)
    }

    public static func _rlmSetOptional(_ object: ObjectBase, _ column: Int, _ value: Self?) {
        PersistedType._rlmSetOptional(object, column, value?.persistableValue)
    }

    public static func _rlmEncode(_ value: Self, _ column: Int, _ writer: inout _RecordWriter) throws {
        try PersistedType._rlmEncodeOptional(value.persistableValue, column, &writer)
    }

    public static func _rlmEncodeOptional(_ value: Self?, _ column: Int, _ writer: inout _RecordWriter) throws {
        try PersistedType._rlmEncodeOptional(value?.persistableValue, column, &writer)
    }

    public static func _rlmIndexKey(_ value: Self) -> [UInt8]? { nil }
    public static func _rlmIndexKeyOptional(_ value: Self?) -> [UInt8]? { nil }

    public static func _rlmDecodeElement(_ bytes: UnsafeRawBufferPointer, _ realm: RealmCore?) -> Self {
        converted(PersistedType._rlmDecodeElement(bytes, realm))
    }

    public static func _rlmDecodeOptionalElement(_ bytes: UnsafeRawBufferPointer, _ realm: RealmCore?) -> Self? {
        _rlmFromPersisted(PersistedType._rlmDecodeElement(bytes, realm))
    }

    public static func _rlmEncodeElement(_ value: Self, _ out: inout [UInt8], _ realm: RealmCore) throws {
        try PersistedType._rlmEncodeElement(value.persistableValue, &out, realm)
    }

    /// One hash for every value: `persistableValue` is a new object each
    /// time, so its hash (identity) would break Hashable. A type that hashes
    /// itself (its own `hash(into:)`) is used instead.
    public func hash(into hasher: inout Hasher) {}
}

/// `Optional<Custom>` for a custom persistable type: what `@Persisted`
/// options and `where {}` orderings on optional custom properties need.
public protocol _OptionalCustomPersistable {
    associatedtype _CustomWrapped: _CustomPersistable
}

extension Optional: _OptionalCustomPersistable where Wrapped: _CustomPersistable {
    public typealias _CustomWrapped = Wrapped
}

// Primary keys and indexes on custom types, by their persisted type (as
// RealmSwift's `Value.PersistedType: _PrimaryKey`); the schema check then
// applies to the persisted type.

extension Persisted where Value: _CustomPersistable, Value.PersistedType: _PrimaryKey {
    /// A custom type as the primary key, stored as its persisted value (Int,
    /// String, ObjectId, UUID): found by `object(ofType:forPrimaryKey:)` with
    /// the custom value or the persisted one; otherwise as for the other
    /// primary-key types.
    @inlinable public init(wrappedValue: Value, primaryKey: Bool) {
        self.init(wrappedValue: wrappedValue)
        if primaryKey { flags |= Self.primaryKeyFlag }
    }

    /// A custom primary key with the type's default value.
    @inlinable public init(primaryKey: Bool) {
        self.init(wrappedValue: Value._rlmDefaultValue(), primaryKey: primaryKey)
    }
}

extension Persisted where Value: _OptionalCustomPersistable, Value._CustomWrapped.PersistedType: _PrimaryKey {
    /// An optional custom type as the primary key.
    @inlinable public init(wrappedValue: Value, primaryKey: Bool) {
        self.init(wrappedValue: wrappedValue)
        if primaryKey { flags |= Self.primaryKeyFlag }
    }

    /// An optional custom primary key, nil by default.
    @inlinable public init(primaryKey: Bool) {
        self.init(wrappedValue: Value._rlmDefaultValue(), primaryKey: primaryKey)
    }
}

extension Persisted where Value: _CustomPersistable, Value.PersistedType: _Indexable {
    /// An indexed custom property, indexed by its persisted value.
    @inlinable public init(wrappedValue: Value, indexed: Bool) {
        self.init(wrappedValue: wrappedValue)
        if indexed { flags |= Self.indexedFlag }
    }

    /// An indexed custom property with the type's default value.
    @inlinable public init(indexed: Bool) {
        self.init(wrappedValue: Value._rlmDefaultValue(), indexed: indexed)
    }
}

extension Persisted where Value: _OptionalCustomPersistable, Value._CustomWrapped.PersistedType: _Indexable {
    /// An indexed optional custom property.
    @inlinable public init(wrappedValue: Value, indexed: Bool) {
        self.init(wrappedValue: wrappedValue)
        if indexed { flags |= Self.indexedFlag }
    }

    /// An indexed optional custom property, nil by default.
    @inlinable public init(indexed: Bool) {
        self.init(wrappedValue: Value._rlmDefaultValue(), indexed: indexed)
    }
}
