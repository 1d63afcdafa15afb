/// Keys of a Map (String, as in RealmSwift).
public protocol _MapKey: Hashable, Comparable {
    var _rlmKeyBytes: [UInt8] { get }
    init(_rlmKeyBytes: UnsafeRawBufferPointer)
}

extension String: _MapKey {
    public var _rlmKeyBytes: [UInt8] { Array(utf8) }
    public init(_rlmKeyBytes bytes: UnsafeRawBufferPointer) { self = String(decoding: bytes, as: UTF8.self) }
}

/// The UTF-8 bytes of a map key lent to `body`: a String's own storage,
/// not a copy (lookups allocate nothing).
@inline(__always)
func withMapKeyBytes<Key: _MapKey, R>(_ key: Key, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    if Key.self == String.self {
        var string = unsafeBitCast(key, to: String.self)
        return string.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
    return key._rlmKeyBytes.withUnsafeBytes(body)
}

/// One key/value pair of a Map.
public struct SingleMapEntry<Key: _MapKey, Value: RealmCollectionValue>: Hashable {
    /// The entry's key.
    public var key: Key
    /// The value stored under ``key``.
    public var value: Value
}

/// A string-keyed dictionary property: `@Persisted var scores: Map<String, Int>`.
/// Entries are ordered by the UTF-8 bytes of their keys.
public final class Map<Key: _MapKey, Value: RealmCollectionValue>: Sequence, CustomStringConvertible {
    var unmanaged: [Key: Value] = [:]
    let field: CollectionField?

    /// An empty unmanaged map, a plain dictionary until its owner is added to a
    /// Realm. Declare map properties as `@Persisted var scores: Map<String,
    /// Int>`.
    public init() { field = nil }

    init(field: CollectionField) { self.field = field }

    /// The Realm managing the owning object, nil while the map is unmanaged.
    public var realm: Realm? { field.map { Realm(core: $0.realm) } }
    /// True once the owning object was deleted or its Realm invalidated;
    /// reading the map then stops with ``Realm/Error/Code/invalidatedObject``.
    public var isInvalidated: Bool { field?.owner.isInvalidated ?? false }
    /// The number of keys in the current version.
    public var count: Int {
        guard let field else { return unmanaged.count }
        if let marker = field.spilledEntries { return marker.count }
        return field.view.count
    }
    /// True if the map has no keys.
    public var isEmpty: Bool { count == 0 }

    /// The value for key; assigning nil removes the key.
    public subscript(key: Key) -> Value? {
        get {
            guard let field else { return unmanaged[key] }
            if let marker = field.spilledEntries {
                let realm = field.realm
                guard let entry = withMapKeyBytes(key, { realm.mapEntry(marker, $0) }) else { return nil }
                var scratch: (UInt64, UInt64) = (0, 0)
                return treeValue(field, realm, marker, entry, key, &scratch)
            }
            let view = field.view
            let search = withMapKeyBytes(key) { mapSearch(view, $0) }
            guard search.found else { return nil }
            return field.decode(Value.self, MapEntry.split(view.element(search.index)).value, at: .key(key._rlmKeyBytes))
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeObject(for: key) }
        }
    }

    /// The value of `entry` (RealmCore.mapEntry), its field decoded into
    /// `scratch` (16 bytes) if need be.
    private func treeValue(_ field: CollectionField, _ realm: RealmCore, _ marker: SpilledList, _ entry: UnsafeRawBufferPointer,
                           _ key: Key, _ scratch: UnsafeMutableRawPointer) -> Value {
        field.decode(Value.self, realm.mapValueField(marker, entry, scratch: scratch), at: .key(key._rlmKeyBytes), in: realm)
    }

    /// Stores `value` under `key`, replacing any value there. A managed map:
    /// inside a write transaction (``Realm/Error/Code/wrongTransactionState``).
    public func updateValue(_ value: Value, forKey key: Key) {
        guard let field else {
            unmanaged[key] = value
            return
        }
        field.requireWrite()
        guard let encoded = field.encode(CollectionOfOne(value))?.first else { return }
        let keyBytes = key._rlmKeyBytes
        let entry = MapEntry(key: keyBytes, value: encoded).encoded
        if let marker = field.spilledEntries { return field.putEntries(marker, [entry]) }
        let search = keyBytes.withUnsafeBytes { mapSearch(field.view, $0) }
        field.splice(search.index..<(search.index + (search.found ? 1 : 0)), with: [entry])
        if !search.found { field.spillEntriesIfLong() }
    }

    /// Removes `key` and its value; nothing happens if the key is absent. A
    /// managed map: inside a write transaction.
    public func removeObject(for key: Key) {
        guard let field else {
            unmanaged[key] = nil
            return
        }
        field.requireWrite()
        if let marker = field.spilledEntries { return field.removeEntries(marker, [key._rlmKeyBytes]) }
        let search = key._rlmKeyBytes.withUnsafeBytes { mapSearch(field.view, $0) }
        guard search.found else { return }
        field.splice(search.index..<(search.index + 1), with: [])
    }

    /// Removes every entry. A managed map: inside a write transaction.
    public func removeAll() {
        guard let field else {
            unmanaged.removeAll()
            return
        }
        field.requireWrite()
        if let marker = field.spilledEntries { return field.removeAllEntries(marker) }
        let count = field.view.count
        if count > 0 { field.splice(0..<count, with: []) }
    }

    /// Stores each pair of `sequence`, calling `combine(existing, new)` for a
    /// key already present to get the value to keep. A managed map: inside a
    /// write transaction.
    public func merge<S: Sequence>(_ sequence: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows
    where S.Element == (key: Key, value: Value) {
        for (key, value) in sequence {
            if let existing = self[key] { updateValue(try combine(existing, value), forKey: key) } else { updateValue(value, forKey: key) }
        }
    }

    /// Entries in key order.
    public func asKeyValueSequence() -> [(key: Key, value: Value)] {
        guard let field else {
            return unmanaged.sorted { $0.key._rlmKeyBytes.lexicographicallyPrecedes($1.key._rlmKeyBytes) }.map { ($0.key, $0.value) }
        }
        let view = field.view
        return (0..<view.count).map { i in
            let (key, value) = MapEntry.split(view.element(i))
            return (Key(_rlmKeyBytes: key), field.decode(Value.self, value, at: .key([UInt8](copying: key))))
        }
    }

    /// The keys in key order (by their UTF-8 bytes).
    public var keys: [Key] { asKeyValueSequence().map(\.key) }
    /// The values, in the order of their keys.
    public var values: [Value] { asKeyValueSequence().map(\.value) }

    /// True if `key` has a value.
    public func contains(key: Key) -> Bool { self[key] != nil }

    /// The value stored under `key`, or nil (key-value coding: the map's
    /// keys are its keys, as in RealmSwift).
    public func value(forKey key: String) -> AnyObject? {
        self[Self.key(key)].map { $0 as AnyObject }
    }

    /// The value stored under the first component of `keyPath`; the rest,
    /// if any, is read from it (`"home.city"`: the `city` of the object
    /// stored under `"home"`).
    public func value(forKeyPath keyPath: String) -> AnyObject? {
        let parts = keyPath.split(separator: ".", maxSplits: 1).map(String.init)
        guard let first = parts.first, let value = self.value(forKey: first) else { return nil }
        guard parts.count > 1 else { return value }
        guard let object = value as? ObjectBase else {
            realmFatal(.invalidValue, "Cannot read '\(parts[1])' of the \(Value.self) under '\(first)': key paths go through objects.")
        }
        return object.value(forKeyPath: parts[1]).map { $0 as AnyObject }
    }

    private static func key(_ string: String) -> Key {
        if Key.self == String.self { return unsafeBitCast(string, to: Key.self) }
        return Array(string.utf8).withUnsafeBytes { Key(_rlmKeyBytes: $0) }
    }

    /// Stores `value` under `key` (nil removes the key), converted to the
    /// map's value type; a managed map needs a write transaction. A value
    /// of the wrong type stops with ``Realm/Error/Code/invalidValue``.
    public func setValue(_ value: Any?, forKey key: String) {
        let mapKey = Self.key(key)
        guard let value, !isNil(value) else {
            removeObject(for: mapKey) // as `map[key] = nil`
            return
        }
        guard let converted = orStop(otherwise: .invalidValue, { try Value._rlmConvert(value, field?.realm) }) else {
            realmFatal(.invalidValue, "Invalid value '\(value)' of type '\(type(of: value))' for key '\(key)' of a Map of \(Value.self).")
        }
        updateValue(converted, forKey: mapKey)
    }

    public func makeIterator() -> IndexingIterator<[SingleMapEntry<Key, Value>]> {
        asKeyValueSequence().map { SingleMapEntry(key: $0.key, value: $0.value) }.makeIterator()
    }

    public var description: String {
        "Map<\(Key.self), \(Value.self)> <\(count)> (\n"
            + asKeyValueSequence().map { "[\($0.key)]: \(describeValue($0.value))" }.joined(separator: ",\n") + "\n)"
    }
}

extension Map: _RealmValue, _Persistable {
    public static var _rlmShape: _PropertyShape { Value._rlmShape.with(collection: .map) }
    public static func _rlmDefaultValue() -> Map { Map() }

    public static func _rlmGet(_ object: ObjectBase, _ column: Int) -> Map {
        Map(field: CollectionField(owner: object, column: column))
    }

    public static func _rlmSet(_ object: ObjectBase, _ column: Int, _ value: Map) {
        let target = Map(field: CollectionField(owner: object, column: column))
        if target.field!.isSame(as: value.field) { return }
        let entries = value.asKeyValueSequence()
        target.removeAll()
        for (key, item) in entries { target.updateValue(item, forKey: key) }
    }

    public static func _rlmEncode(_ value: Map, _ column: Int, _ writer: inout _RecordWriter) throws {
        var entries: [[UInt8]] = []
        for (key, item) in value.asKeyValueSequence() {
            var bytes: [UInt8] = []
            try Value._rlmEncodeElement(item, &bytes, writer.realm)
            entries.append(MapEntry(key: key._rlmKeyBytes, value: bytes).encoded)
        }
        writer.write(column, isNull: false, encodeElementArray(entries))
    }

    public static func _rlmIndexKey(_ value: Map) -> [UInt8]? { nil }

    public static func _rlmConvert(_ value: Any, _ realm: RealmCore?) throws -> Map? {
        guard let dictionary = value as? [Key: Any] else { return nil }
        let map = Map()
        for (key, item) in dictionary {
            guard let element = try (item as? Value) ?? Value._rlmConvert(item, realm) else {
                throw Realm.Error(.invalidValue, "Invalid value '\(item)' for key '\(key)' of Map<\(Key.self), \(Value.self)>.")
            }
            map.unmanaged[key] = element
        }
        return map
    }
}

extension Map {
    /// True if the map was read through a frozen Realm: immutable, and readable
    /// from any thread.
    public var isFrozen: Bool { fieldIsFrozen }

    /// The map as of its Realm's current version: immutable and readable from
    /// any thread. An unmanaged map cannot be frozen (stops with
    /// ``Realm/Error/Code/invalidValue``).
    public func freeze() -> Map { frozenCollection() }

    /// The live map in the calling thread's Realm (the owning object found
    /// again there); nil if the owning object was deleted since. A live map
    /// returns itself.
    public func thaw() -> Map? { thawedCollection() }
}

extension Map: FieldBackedCollection {
    static var kindName: String { "Map" }
}
