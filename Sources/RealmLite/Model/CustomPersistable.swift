// Custom persistable types: a user type stored as one of the persistable
// types (RealmSwift's CustomPersistable / FailableCustomPersistable). The
// column, its index keys, collections and queries all see the persisted
// value; conversion happens at the accessor, so nothing in Storage/ or
// Query/ knows about these types except QueryValue.from (a query constant
// of the user type becomes its persisted value).

/// What ``CustomPersistable`` and ``FailableCustomPersistable`` share; not
/// API. A custom type is a primitive whose bytes are its persisted value's.
public protocol _CustomPersistable: _RealmPrimitive {
    /// The persistable type the value is stored as.
    associatedtype PersistedType: _RealmPrimitive
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
/// Mapping to an `EmbeddedObject` (RealmSwift allows it) is not supported.
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

    // Optional contexts collapse a failed conversion to nil.
    public static func _rlmGetOptional(_ object: ObjectBase, _ column: Int) -> Self? {
        PersistedType._rlmGetOptional(object, column).flatMap(Self.init(persistedValue:))
    }
    public static func _rlmDecodeOptionalElement(_ bytes: UnsafeRawBufferPointer, _ realm: RealmCore?) -> Self? {
        Self(persistedValue: PersistedType._rlmLoad(bytes))
    }
}

extension _CustomPersistable {
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

    /// The value stored as `persisted` in a non-optional context: a failed
    /// conversion stops the program (reads cannot throw), as in RealmSwift.
    static func converted(_ persisted: PersistedType) -> Self {
        guard let value = _rlmFromPersisted(persisted) else {
            realmFatal(.invalidValue, "Failed to convert persisted value '\(persisted)' to type '\(Self.self)' in a non-optional context.")
        }
        return value
    }
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
