// @Persisted: the property wrapper declaring stored properties.
//
// Unmanaged objects keep the value in `value`. When an object becomes
// managed, Realm writes the property's column number into `column` (through
// the field offset found at schema discovery, see SchemaDiscovery.swift);
// from then on every get/set goes to the database through the
// `_enclosingInstance` subscript, which is @inlinable so the key-path access
// folds into a direct field load in the caller.

/// Declares a stored property of an ``Object`` or ``EmbeddedObject``:
/// `@Persisted var name = ""`.
///
/// On an unmanaged object the wrapper holds the value like a plain property.
/// Once the object is managed, every read and write goes to the Realm: a read
/// returns the value in the Realm's current version, a write must happen inside
/// a write transaction (``Realm/Error/Code/wrongTransactionState`` otherwise),
/// and both must happen in the Realm's thread, queue or actor
/// (``Realm/Error/Code/incorrectThread``). The value types, optionals, links,
/// and collections it can hold are listed in <doc:OBJECTS>.
@propertyWrapper
public struct Persisted<Value: _Persistable> {
    /// Column in the object's ClassInfo, or -1 while unmanaged.
    @usableFromInline var column: Int32 = -1
    @usableFromInline var flags: UInt8 = 0
    @usableFromInline var value: Value

    @usableFromInline static var primaryKeyFlag: UInt8 { 1 }
    @usableFromInline static var indexedFlag: UInt8 { 2 }

    // The initializers are @inlinable: they run for every object created,
    // including each accessor materialized while reading.

    /// A property with the type's default value (0, "", nil, a new ObjectId...).
    @inlinable public init() { value = Value._rlmDefaultValue() }

    /// A property whose default value is `wrappedValue`: `@Persisted var age =
    /// 0`. Used for new unmanaged objects; a managed object reads what is
    /// stored.
    @inlinable public init(wrappedValue: Value) { value = wrappedValue }

    @available(*, unavailable, message: "@Persisted can only be used as a property on a Realm object")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        // swiftlint:disable:next unused_setter_value
        set { fatalError("unavailable") }
    }

    @inlinable
    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        // Always inlined so that the storage key path, a literal at every
        // use, folds into a direct field access (no key-path runtime calls).
        @inline(__always) get {
            let column = object[keyPath: storageKeyPath].column
            if column < 0 {
                // -1: unmanaged; below: a key-path recording prototype (queries).
                if column != -1 { _rlmRecordKeyPathAccess(object, column) }
                return object[keyPath: storageKeyPath].value
            }
            return Value._rlmGet(object, Int(column))
        }
        @inline(__always) set {
            let column = object[keyPath: storageKeyPath].column
            if column < 0 {
                object[keyPath: storageKeyPath].value = newValue
            } else {
                Value._rlmSet(object, Int(column), newValue)
            }
        }
    }
}

extension Persisted where Value: _Indexable {
    /// An indexed property with a default value: `@Persisted(indexed: true)
    /// var name = ""`. The index makes `==` and `IN` queries on it
    /// lookups instead of scans, and costs a write to the index per change.
    /// Bool, integers, String, Date, ObjectId, UUID, a ``PersistableEnum`` of
    /// Int or String raw values, their optionals, and ``AnyRealmValue``
    /// (equality only).
    @inlinable public init(wrappedValue: Value, indexed: Bool) {
        value = wrappedValue
        if indexed { flags |= Self.indexedFlag }
    }

    /// An indexed property with the type's default value: `@Persisted(indexed:
    /// true) var name: String`. See `init(wrappedValue:indexed:)` above
    /// (a plain name: custom types overload it, CustomPersistable.swift).
    @inlinable public init(indexed: Bool) {
        self.init(wrappedValue: Value._rlmDefaultValue(), indexed: indexed)
    }
}

extension Persisted where Value: _PrimaryKey {
    /// The primary key property, with a default value:
    /// `@Persisted(primaryKey: true) var _id = ObjectId.generate()`. At most
    /// one per class (not on an ``EmbeddedObject``); unique, so adding a
    /// second object with the same key fails with
    /// ``Realm/Error/Code/primaryKeyExists`` unless an update policy is given;
    /// fixed once managed (``Realm/Error/Code/primaryKeyChange``); and
    /// ``Realm/object(ofType:forPrimaryKey:)`` finds it. Integers, String,
    /// ObjectId, UUID, a ``PersistableEnum`` of Int or String raw values
    /// (found by case or by raw value), and their optionals.
    @inlinable public init(wrappedValue: Value, primaryKey: Bool) {
        value = wrappedValue
        if primaryKey { flags |= Self.primaryKeyFlag }
    }

    /// The primary key property, with the type's default value:
    /// `@Persisted(primaryKey: true) var _id: ObjectId`. See
    /// `init(wrappedValue:primaryKey:)` above.
    @inlinable public init(primaryKey: Bool) {
        self.init(wrappedValue: Value._rlmDefaultValue(), primaryKey: primaryKey)
    }
}

extension Persisted {
    /// `@Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>`
    public init<Origin: ObjectBase>(originProperty: String) where Value == LinkingObjects<Origin> {
        value = LinkingObjects(fromType: Origin.self, property: originProperty)
    }
}

extension Persisted: CustomStringConvertible {
    public var description: String { column < 0 ? "Persisted(\(value))" : "Persisted(column \(column))" }
}
