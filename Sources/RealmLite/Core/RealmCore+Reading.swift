import CStorage
import Foundation

// Reading objects through a core's current transaction: records by key,
// accessors, counts, lookups by primary key.

extension RealmCore {
    /// The record of `key` in the class's current layout, or nil if there is
    /// none in the current snapshot.
    @inline(__always)
    func loadRecord(_ info: ClassInfo, _ key: UInt64) -> cs_val? {
        guard let value = txn.get(info.objectsTree, key: key, "Reading a '\(info.name)' object") else { return nil }
        return currentRecord(info, key, value)
    }

    /// Record `key` of `info` as read from the engine, in the class's
    /// current layout (RecordGenerations.swift, G3): itself, or the upgraded
    /// copy of a record of an older generation (valid while the generation
    /// is unchanged, as the map's records are).
    @inline(__always)
    func currentRecord(_ info: ClassInfo, _ key: UInt64, _ value: cs_val) -> cs_val {
        guard let generations = info.generations,
              _slowPath(value.size == 0 || value.data!.load(as: UInt8.self) != generations.current) else { return value }
        return context.upgradedRecord(info, generations, key, value, generation: generation)
    }

    /// A managed accessor for an existing row (`record` as read from the
    /// engine, or already current).
    func materialize(_ info: ClassInfo, key: UInt64, record: cs_val?) -> ObjectBase {
        let object = info.type.init()
        object._attach(to: self, info, key: key)
        if let value = record {
            let record = currentRecord(info, key, value)
            object._record = UnsafeRawPointer(record.data)
            object._recordSize = record.size
            object._recordGeneration = generation
            object._intCode = info.layout.intCode(of: object._record!)
        }
        info.bindColumns(object)
        return object
    }

    /// Points `object`, an accessor of `info` that no one else holds, at row
    /// `key` (its `record` as read from the engine): iterations reuse one
    /// accessor instead of making one per row.
    @inline(__always)
    func reuse(_ object: ObjectBase, _ info: ClassInfo, key: UInt64, record value: cs_val) {
        let record = currentRecord(info, key, value)
        object._key = key
        object._record = UnsafeRawPointer(record.data)
        object._recordSize = record.size
        object._recordGeneration = generation
        object._intCode = info.layout.intCode(of: object._record!)
        object._deleted = false
        object._invalidations = invalidations
        if info.keyedByPrimaryKey { object._born = accessorStamp() }
    }

    /// An accessor for `key` if the row exists.
    func object(_ info: ClassInfo, key: UInt64) -> ObjectBase? {
        guard let record = loadRecord(info, key) else { return nil }
        return materialize(info, key: key, record: record)
    }

    func count(of info: ClassInfo) -> Int {
        txn.count(info.objectsTree, "Counting '\(info.name)' objects")
    }

    /// All objects of a class, or of a projection's root class (live).
    func objects<Element: RealmFetchable>(_ type: Element.Type) -> Results<Element> {
        Results(realm: self, info: classInfoOrStop(Element._rlmFetchedClass))
    }

    /// The object with this primary key, or nil.
    func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        let info = classInfoOrStop(type)
        guard let column = info.primaryKeyColumn else {
            realmFatal(.invalidValue, "'\(info.name)' does not have a primary key; declare one with @Persisted(primaryKey: true).")
        }
        let rowKey: UInt64?
        if info.keyedByPrimaryKey, KeyType.self == Int.self {
            // The key is the object key: one lookup (of the record, below).
            rowKey = objectKey(primaryKey: Int64(unsafeBitCast(key, to: Int.self)))
        } else if KeyType.self == info.primaryKeyValueType, let found = directPrimaryKeyLookup(info, key) {
            rowKey = found
        } else {
            let entry = orStop(otherwise: .invalidValue) { try info.accessors[column].indexKey(for: key) }
            rowKey = entry.flatMap { primaryKeyLookup(info, entry: $0) }
        }
        // No Optional.map here: in this generic function it copies through value witnesses.
        guard let rowKey, let record = loadRecord(info, rowKey) else { return nil }
        return unsafeDowncast(materialize(info, key: rowKey, record: record), to: Element.self)
    }

    /// Keys of the common primary-key types (Int, String, ObjectId, UUID),
    /// when `K` is the property's type: encoded on the stack, no
    /// conversion. nil for other types (the caller converts); .some(nil)
    /// when there is no such object.
    @inline(__always)
    private func directPrimaryKeyLookup<K>(_ info: ClassInfo, _ key: K) -> UInt64?? {
        func lookup<T: _RealmPrimitive>(_ value: T) -> UInt64?? {
            .some(value._rlmWithBytes { raw in withIndexKey(T._rlmType, isNull: false, raw) { primaryKeyLookup(info, entry: $0) } })
        }
        if K.self == Int.self {
            // Int directly: its _rlmWithBytes is reached through a witness table from here.
            let value = Int64(unsafeBitCast(key, to: Int.self))
            return .some(withInt64Bytes(value) { raw in withIndexKey(.int, isNull: false, raw) { primaryKeyLookup(info, entry: $0) } })
        }
        if K.self == String.self { return lookup(unsafeBitCast(key, to: String.self)) }
        if K.self == ObjectId.self { return lookup(unsafeBitCast(key, to: ObjectId.self)) }
        if K.self == UUID.self { return lookup(unsafeBitCast(key, to: UUID.self)) }
        return nil
    }

    /// The object key of an encoded primary key (KeyEncoding.swift): looked
    /// up in the `pk:` tree, or, for a keyed class, computed without a
    /// lookup. Either way the caller reads the record next, which says
    /// whether the object exists.
    func primaryKeyLookup(_ info: ClassInfo, entry: [UInt8]) -> UInt64? {
        entry.withUnsafeBytes { primaryKeyLookup(info, entry: $0) }
    }

    func primaryKeyLookup(_ info: ClassInfo, entry: UnsafeRawBufferPointer) -> UInt64? {
        if info.keyedByPrimaryKey {
            // The entry is 0x01 then the key, big-endian (KeyEncoding.swift).
            guard entry.count == 9, entry[0] == 1 else { return nil }
            return UInt64(bigEndian: entry.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
        }
        guard let value = txn.get(info.primaryKeyTree, cs_val(data: entry.baseAddress, size: entry.count),
                                  "Looking up a primary key of '\(info.name)'") else { return nil }
        return keyValue(value)
    }
}

/// The accessor an iteration returned last. Once the caller has let go of
/// it (this holds the only reference), it is re-pointed at the next row
/// instead of a new one being made: nobody can tell the difference, and a
/// scan allocates one accessor instead of one per row.
struct ReusableAccessor {
    private var object: ObjectBase?

    @inline(__always)
    mutating func object(_ realm: RealmCore, _ info: ClassInfo, key: UInt64, record: cs_val) -> ObjectBase {
        if isKnownUniquelyReferenced(&object), let object {
            realm.reuse(object, info, key: key, record: record)
            return object
        }
        let made = realm.materialize(info, key: key, record: record)
        object = made
        return made
    }
}
