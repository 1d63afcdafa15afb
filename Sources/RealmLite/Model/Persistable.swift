import Foundation

// The protocols that connect Swift types to storage. They are public because
// @Persisted, List, Map... are generic over them; their requirements are
// underscored: not API, implemented inside RealmLite for the supported types.

/// Something with a storage shape that create(value:) can convert to.
public protocol _RealmValue {
    static var _rlmShape: _PropertyShape { get }
    /// Converts a loosely typed value (create(value:)); nil if it is the
    /// wrong type. Throws for nested failures, which carry their own message.
    static func _rlmConvert(_ value: Any, _ realm: RealmCore?) throws -> Self?
}

/// A type `@Persisted var x: T` accepts.
public protocol _Persistable: _RealmValue {
    static func _rlmDefaultValue() -> Self
    /// Managed read of column `column` of `object`.
    static func _rlmGet(_ object: ObjectBase, _ column: Int) -> Self
    /// Managed write (inside a write transaction).
    static func _rlmSet(_ object: ObjectBase, _ column: Int, _ value: Self)
    /// Writes an unmanaged value into a new record.
    static func _rlmEncode(_ value: Self, _ column: Int, _ writer: inout _RecordWriter) throws
    /// The order-preserving key of a scalar value (KeyEncoding.swift), for
    /// primary keys and lookups; nil for links and collections.
    static func _rlmIndexKey(_ value: Self) -> [UInt8]?
}

/// A type that can be an element of List / MutableSet / Map (values).
public protocol _RealmElement: _RealmValue {
    static func _rlmDecodeElement(_ bytes: UnsafeRawBufferPointer, _ realm: RealmCore?) -> Self
    /// Appends the element's bytes; objects are added to `realm` if needed.
    static func _rlmEncodeElement(_ value: Self, _ out: inout [UInt8], _ realm: RealmCore) throws
}

/// Optional, for generic constraints (`where T: OptionalProtocol`), as
/// RealmSwift declares it.
public protocol OptionalProtocol {
    /// The type an Optional wraps.
    associatedtype Wrapped
}

extension Optional: OptionalProtocol {}

/// Values of Realm collections (RealmSwift's name).
public protocol RealmCollectionValue: Hashable, _RealmElement {}

/// A type that can be wrapped in Optional in @Persisted and collections.
public protocol _RealmOptionalWrapped: _RealmElement {
    static func _rlmGetOptional(_ object: ObjectBase, _ column: Int) -> Self?
    static func _rlmSetOptional(_ object: ObjectBase, _ column: Int, _ value: Self?)
    static func _rlmEncodeOptional(_ value: Self?, _ column: Int, _ writer: inout _RecordWriter) throws
    static func _rlmIndexKeyOptional(_ value: Self?) -> [UInt8]?
    /// An element of a collection of optionals: nil where a stored value
    /// does not convert (FailableCustomPersistable).
    static func _rlmDecodeOptionalElement(_ bytes: UnsafeRawBufferPointer, _ realm: RealmCore?) -> Self?
}

extension _RealmOptionalWrapped {
    public static func _rlmDecodeOptionalElement(_ bytes: UnsafeRawBufferPointer, _ realm: RealmCore?) -> Self? {
        _rlmDecodeElement(bytes, realm)
    }
}

/// Types usable as `@Persisted(indexed: true)`.
public protocol _Indexable {}
/// Types usable as `@Persisted(primaryKey: true)`.
public protocol _PrimaryKey: _Indexable {}

// MARK: - Optional

extension Optional: _RealmValue where Wrapped: _RealmOptionalWrapped {
    public static var _rlmShape: _PropertyShape {
        var shape = Wrapped._rlmShape
        shape.isOptional = true
        return shape
    }

    public static func _rlmConvert(_ value: Any, _ realm: RealmCore?) throws -> Self? {
        if isNil(value) { return .some(nil) }
        if let wrapped = try Wrapped._rlmConvert(value, realm) { return .some(wrapped) }
        return nil
    }
}

extension Optional: _Persistable where Wrapped: _RealmOptionalWrapped {
    public static func _rlmDefaultValue() -> Self { nil }
    public static func _rlmGet(_ object: ObjectBase, _ column: Int) -> Self {
        Wrapped._rlmGetOptional(object, column)
    }
    public static func _rlmSet(_ object: ObjectBase, _ column: Int, _ value: Self) {
        Wrapped._rlmSetOptional(object, column, value)
    }
    public static func _rlmEncode(_ value: Self, _ column: Int, _ writer: inout _RecordWriter) throws {
        try Wrapped._rlmEncodeOptional(value, column, &writer)
    }
    public static func _rlmIndexKey(_ value: Self) -> [UInt8]? {
        Wrapped._rlmIndexKeyOptional(value)
    }
}

/// Optional elements carry a tag byte: 0 = nil, 1 = the wrapped bytes follow.
extension Optional: _RealmElement where Wrapped: _RealmOptionalWrapped {
    public static func _rlmDecodeElement(_ bytes: UnsafeRawBufferPointer, _ realm: RealmCore?) -> Self {
        guard bytes.first == 1 else { return nil }
        return Wrapped._rlmDecodeOptionalElement(UnsafeRawBufferPointer(rebasing: bytes[1...]), realm)
    }
    public static func _rlmEncodeElement(_ value: Self, _ out: inout [UInt8], _ realm: RealmCore) throws {
        if let value {
            out.append(1)
            try Wrapped._rlmEncodeElement(value, &out, realm)
        } else {
            out.append(0)
        }
    }
}

extension Optional: RealmCollectionValue where Wrapped: _RealmOptionalWrapped & Hashable {}
extension Optional: _Indexable where Wrapped: _Indexable {}
extension Optional: _PrimaryKey where Wrapped: _PrimaryKey {}

/// Any Optional, seen through `Any` (a protocol cast instead of a Mirror:
/// a query's `==` converts its operand, and a Mirror costs ~20k instructions).
protocol AnyOptional {
    /// The payload, nil for `.none` (one level: it may be an Optional itself).
    var anyWrapped: Any? { get }
}

extension Optional: AnyOptional {
    var anyWrapped: Any? {
        switch self {
        case .some(let wrapped): wrapped
        case .none: nil
        }
    }
}

/// True for nil wrapped in Any (any Optional type) and NSNull.
func isNil(_ value: Any) -> Bool {
    if let optional = value as? any AnyOptional { return optional.anyWrapped == nil }
    return value is NSNull
}
