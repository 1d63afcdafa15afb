import Foundation

// Stored form of AnyRealmValue ("mixed"), as a property's var field or as a
// collection element: one tag byte, then the payload (docs/OBJECTS.md):
//
//   0 none         (elements only: a property holding .none is nil, null bit set)
//   1 int          i64 LE           7 date        f64 LE (reference date)
//   2 bool         u8               8 objectId    12 bytes
//   3 float        f32 LE bits      9 decimal128  canonical string
//   4 double       f64 LE bits     10 uuid        16 bytes
//   5 string       UTF-8           11 object      u64 LE object key, class name (UTF-8)
//   6 data         bytes           12 list        element array of mixed elements
//                                  13 dictionary  map field of mixed values
//
// The payload of tags 1-10 is exactly the bytes the typed property would
// store, so typed decoders are reused. A link names its class (not an index
// into the schema): names survive schema changes, and a link to a class no
// longer in the schema reads as .none. Lists and dictionaries use the
// CollectionCodec layouts, so nested values are O(1) to reach too.

enum MixedTag: UInt8 {
    case none = 0, int, bool, float, double, string, data, date, objectId, decimal128, uuid, object, list, dictionary

    /// Realm's type classes for comparing and sorting mixed values (core's
    /// Mixed order): values of different classes are never equal, and sort
    /// null, bool, numbers, strings and data, dates, ObjectIds, UUIDs,
    /// links, lists, dictionaries.
    var rank: UInt8 {
        switch self {
        case .none: 0
        case .bool: 1
        case .int, .float, .double, .decimal128: 2
        case .string, .data: 3
        case .date: 4
        case .objectId: 5
        case .uuid: 6
        case .object: 7
        case .list: 8
        case .dictionary: 9
        }
    }

    /// The name `@type` compares with (Realm Query Language).
    var typeName: String {
        switch self {
        case .none: "null"
        case .int: "int"
        case .bool: "bool"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .data: "binary"
        case .date: "date"
        case .objectId: "objectid"
        case .decimal128: "decimal"
        case .uuid: "uuid"
        case .object: "object"
        case .list: "list"
        case .dictionary: "dictionary"
        }
    }
}

/// A stored mixed value split into tag and payload (no copy).
struct MixedView {
    let tag: MixedTag
    let payload: UnsafeRawBufferPointer

    /// nil for bytes that are not a mixed value (empty: a nil property).
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first, let tag = MixedTag(rawValue: first) else { return nil }
        self.tag = tag
        payload = UnsafeRawBufferPointer(rebasing: bytes[1...])
    }

    /// The link of an `.object` value: (class name, object key).
    var link: MixedLink? {
        guard tag == .object, payload.count >= 8 else { return nil }
        return MixedLink(className: String(decoding: payload[8...], as: UTF8.self),
                         key: UInt64(littleEndian: payload.loadUnaligned(as: UInt64.self)))
    }

    var isNumeric: Bool { tag.rank == MixedTag.int.rank }

    /// Numbers as Double (ordering across int/float/double/decimal).
    var doubleValue: Double {
        switch tag {
        case .int: Double(Int64._rlmLoad(payload))
        case .float: Double(Float._rlmLoad(payload))
        case .double, .date: Double._rlmLoad(payload)
        case .decimal128: Decimal128._rlmLoad(payload).doubleValue
        default: .nan
        }
    }
}

/// A link held by a mixed value.
struct MixedLink: Hashable {
    let className: String
    let key: UInt64
}

// MARK: - Encoding and decoding

/// Appends the stored form of `value`; unmanaged linked objects are added
/// to `realm` (inside its write transaction).
func encodeMixed(_ value: AnyRealmValue, _ out: inout [UInt8], _ realm: RealmCore) throws {
    func scalar<T: _RealmPrimitive>(_ tag: MixedTag, _ v: T) { appendMixed(tag, v, to: &out) }
    switch value {
    case .none: out.append(MixedTag.none.rawValue)
    case .int(let v): scalar(.int, v)
    case .bool(let v): scalar(.bool, v)
    case .float(let v): scalar(.float, v)
    case .double(let v): scalar(.double, v)
    case .string(let v): scalar(.string, v)
    case .data(let v): scalar(.data, v)
    case .date(let v): scalar(.date, v)
    case .objectId(let v): scalar(.objectId, v)
    case .decimal128(let v): scalar(.decimal128, v)
    case .uuid(let v): scalar(.uuid, v)
    case .object(let object):
        let target = try realm.classInfo(for: type(of: object))
        guard let key = realm.linkKey(for: object, target: target) else {
            throw realm.write?.error ?? Realm.Error(.invalidValue, "Cannot store an object of type '\(target.name)' in an AnyRealmValue.")
        }
        appendMixedLink(MixedLink(className: target.name, key: key), to: &out)
    case .list(let list):
        out.append(MixedTag.list.rawValue)
        out += encodeElementArray(try encodeForNewRecord(list.field == nil ? list.unmanaged : Array(list), realm))
    case .dictionary(let map):
        out.append(MixedTag.dictionary.rawValue)
        var entries: [[UInt8]] = []
        for (key, item) in map.asKeyValueSequence() {
            var bytes: [UInt8] = []
            try encodeMixed(item, &bytes, realm)
            entries.append(MapEntry(key: key._rlmKeyBytes, value: bytes).encoded)
        }
        out += encodeElementArray(entries)
    }
}

/// Appends a scalar mixed value: its tag, then the typed property's bytes.
func appendMixed<T: _RealmPrimitive>(_ tag: MixedTag, _ value: T, to out: inout [UInt8]) {
    out.append(tag.rawValue)
    value._rlmWithBytes { out.appendRaw($0) }
}

func appendMixedLink(_ link: MixedLink, to out: inout [UInt8]) {
    out.append(MixedTag.object.rawValue)
    withLinkBytes(link.key) { out.appendRaw($0) }
    out += Array(link.className.utf8)
}

/// The stored form of `value` for lookups (contains, index(of:)): never
/// adds objects; nil for an unmanaged or foreign object.
func mixedLookupBytes(_ value: AnyRealmValue, _ realm: RealmCore) -> [UInt8]? {
    if case .object(let object) = value {
        guard object._realm === realm, !object._deleted, let info = object._info else { return nil }
        var out: [UInt8] = []
        appendMixedLink(MixedLink(className: info.name, key: object._key), to: &out)
        return out
    }
    var out: [UInt8] = []
    do { try encodeMixed(value, &out, realm) } catch { return nil }
    return out
}

/// The value stored in `bytes`. Links to deleted objects (or to classes no
/// longer in the schema) read as .none. A nested list or dictionary is live
/// when `asField` says where the value is (Collections/NestedCollections.swift),
/// else an unmanaged snapshot.
func decodeMixed(_ bytes: UnsafeRawBufferPointer, _ realm: RealmCore?, asField: CollectionField? = nil) -> AnyRealmValue {
    guard let view = MixedView(bytes) else { return .none }
    let payload = view.payload
    switch view.tag {
    case .none: return .none
    case .int: return .int(Int._rlmLoad(payload))
    case .bool: return .bool(Bool._rlmLoad(payload))
    case .float: return .float(Float._rlmLoad(payload))
    case .double: return .double(Double._rlmLoad(payload))
    case .string: return .string(String._rlmLoad(payload))
    case .data: return .data(Data._rlmLoad(payload))
    case .date: return .date(Date._rlmLoad(payload))
    case .objectId: return .objectId(ObjectId._rlmLoad(payload))
    case .decimal128: return .decimal128(Decimal128._rlmLoad(payload))
    case .uuid: return .uuid(UUID._rlmLoad(payload))
    case .object:
        guard let realm, let link = view.link, let info = realm.schemaState.byName[link.className],
              let object = realm.object(info, key: link.key) as? Object else { return .none }
        return .object(object)
    case .list:
        if let asField { return .list(List(field: asField)) }
        let elements = ElementArrayView(bytes: payload)
        let list = List<AnyRealmValue>()
        list.unmanaged = (0..<elements.count).map { decodeMixed(elements.element($0), realm) }
        return .list(list)
    case .dictionary:
        if let asField { return .dictionary(Map(field: asField)) }
        let entries = ElementArrayView(bytes: payload)
        let map = Map<String, AnyRealmValue>()
        for i in 0..<entries.count {
            let (key, value) = MapEntry.split(entries.element(i))
            map.unmanaged[String(decoding: key, as: UTF8.self)] = decodeMixed(value, realm)
        }
        return .dictionary(map)
    }
}

// MARK: - Comparing

/// Realm's Mixed comparison of two stored values: the order, or nil when
/// their types cannot be compared (different type classes, links other than
/// by equality, collections, NaN against a number).
func compareMixed(_ a: MixedView, _ b: MixedView) -> Int? {
    guard a.tag.rank == b.tag.rank else { return nil }
    func order<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
    switch a.tag {
    case .none:
        return 0
    case .int, .float, .double, .decimal128:
        if a.tag == .int && b.tag == .int { return order(Int64._rlmLoad(a.payload), Int64._rlmLoad(b.payload)) }
        if a.tag == .decimal128 || b.tag == .decimal128 {
            let x = mixedDecimal(a), y = mixedDecimal(b)
            if x.isNaN || y.isNaN { return x.isNaN && y.isNaN ? 0 : nil }
            return order(x, y)
        }
        let x = a.doubleValue, y = b.doubleValue
        if x.isNaN || y.isNaN { return x.isNaN && y.isNaN ? 0 : nil }
        return order(x, y)
    case .date:
        return order(a.doubleValue, b.doubleValue)
    case .bool, .string, .data, .objectId, .uuid:
        return compareBytes(a.payload, b.payload)
    case .object:
        return a.link == b.link ? 0 : nil
    case .list, .dictionary:
        return nil
    }
}

private func mixedDecimal(_ view: MixedView) -> Decimal128 {
    switch view.tag {
    case .int: Decimal128(Int(Int64._rlmLoad(view.payload)))
    case .decimal128: Decimal128._rlmLoad(view.payload)
    default: Decimal128(view.doubleValue)
    }
}

/// Element equality in collections of mixed values (MutableSet uniqueness,
/// index(of:), contains): numbers by value, as Realm's Set<Mixed> does
/// (int 3 equals double 3); everything else by its stored bytes.
func mixedElementsEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    if let x = MixedView(a), let y = MixedView(b), x.isNumeric, y.isNumeric { return compareMixed(x, y) == 0 }
    return sameBytes(a, b)
}

func mixedElementsEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    a.withUnsafeBytes { a in b.withUnsafeBytes { mixedElementsEqual(a, $0) } }
}

/// Sets hold no nested collections (RealmSwift: "List and Map, not
/// MutableSet"): the error for an encoded element that is one, else nil.
func mixedSetElementError(_ element: [UInt8]) -> Realm.Error? {
    guard element.first == MixedTag.list.rawValue || element.first == MixedTag.dictionary.rawValue else { return nil }
    return Realm.Error(.invalidValue, "A MutableSet<AnyRealmValue> cannot hold a nested list or dictionary; use a List or Map of AnyRealmValue.")
}

// MARK: - Order-preserving key (indexes and sorting)

/// The memcmp-ordered key of a stored mixed value (empty bytes: nil):
/// `0x00` for nil, else `0x01`, the type class (MixedTag.rank), then the
/// value in KeyEncoding's form; numbers of every type as their Double, so
/// int 1, double 1.0 and decimal 1 share a key (an index on a mixed
/// property finds all three; the query re-checks the record, which also
/// covers large ints and decimals that one Double cannot tell apart).
func mixedKey(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    guard let view = MixedView(bytes), view.tag != .none else { return [0] }
    var out: [UInt8] = [1, view.tag.rank]
    func append(_ type: PropertyType, _ payload: UnsafeRawBufferPointer) {
        withIndexKey(type, isNull: false, payload) { out.appendRaw(UnsafeRawBufferPointer(rebasing: $0[1...])) }
    }
    switch view.tag {
    case .none, .list, .dictionary:
        break
    case .int, .float, .double, .decimal128:
        var number = view.doubleValue
        if number == 0 { number = 0 } // -0.0 and 0 are one key
        number._rlmWithBytes { append(.double, $0) }
    case .bool, .objectId, .uuid:
        append(view.tag == .bool ? .bool : .objectId, view.payload)
    case .string, .data:
        append(.string, view.payload)
    case .date:
        append(.date, view.payload)
    case .object:
        if let link = view.link {
            link.className._rlmWithBytes { append(.string, $0) }
            appendBigEndian(link.key, to: &out)
        }
    }
    return out
}

/// mixedKey as an index holds it: cut at the index's value limit, like
/// long strings (the query re-checks the records an entry names).
func indexedMixedKey(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    var key = mixedKey(bytes)
    if key.count > maxIndexedValueBytes { key.removeLast(key.count - maxIndexedValueBytes) }
    return key
}

// MARK: - Links inside mixed fields

/// Every link in a mixed value (nested lists and dictionaries included).
func mixedLinks(_ bytes: UnsafeRawBufferPointer, into links: inout [MixedLink]) {
    guard let view = MixedView(bytes) else { return }
    switch view.tag {
    case .object:
        if let link = view.link { links.append(link) }
    case .list:
        let elements = ElementArrayView(bytes: view.payload)
        for i in 0..<elements.count { mixedLinks(elements.element(i), into: &links) }
    case .dictionary:
        let entries = ElementArrayView(bytes: view.payload)
        for i in 0..<entries.count { mixedLinks(MapEntry.split(entries.element(i)).value, into: &links) }
    default:
        break
    }
}

/// The links held by a mixed column's field (a property, or a List,
/// MutableSet or Map of AnyRealmValue), with multiplicity.
func mixedLinkTargets(_ column: Column, isNull: Bool, _ field: UnsafeRawBufferPointer) -> [MixedLink] {
    var links: [MixedLink] = []
    guard !isNull else { return links }
    switch column.collection {
    case .none:
        mixedLinks(field, into: &links)
    case .list, .set:
        let elements = ElementArrayView(bytes: field)
        for i in 0..<elements.count { mixedLinks(elements.element(i), into: &links) }
    case .map:
        let entries = ElementArrayView(bytes: field)
        for i in 0..<entries.count { mixedLinks(MapEntry.split(entries.element(i)).value, into: &links) }
    }
    return links
}

/// `bytes` with every link to `target` replaced by .none (at any depth), as
/// Realm does when the target is deleted; nil if it holds no such link.
func mixedRemovingLink(_ target: MixedLink, _ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
    guard let view = MixedView(bytes) else { return nil }
    switch view.tag {
    case .object:
        return view.link == target ? [MixedTag.none.rawValue] : nil
    case .list, .dictionary:
        guard let payload = removingLink(target, inArray: view.payload, isMap: view.tag == .dictionary) else { return nil }
        return [view.tag.rawValue] + payload
    default:
        return nil
    }
}

/// An element array (or map field) of mixed values with links to `target`
/// replaced by .none; nil if unchanged.
private func removingLink(_ target: MixedLink, inArray field: UnsafeRawBufferPointer, isMap: Bool) -> [UInt8]? {
    let elements = ElementArrayView(bytes: field)
    var changed = false
    let rewritten = (0..<elements.count).map { i -> [UInt8] in
        let element = elements.element(i)
        if isMap {
            let (key, value) = MapEntry.split(element)
            guard let replaced = mixedRemovingLink(target, value) else { return [UInt8](copying: element) }
            changed = true
            return MapEntry(key: [UInt8](copying: key), value: replaced).encoded
        }
        guard let replaced = mixedRemovingLink(target, element) else { return [UInt8](copying: element) }
        changed = true
        return replaced
    }
    return changed ? encodeElementArray(rewritten) : nil
}

/// A mixed column's field with links to `target` replaced by .none (a
/// property holding the link itself becomes nil).
func mixedFieldRemovingLink(_ target: MixedLink, _ column: Column, isNull: Bool,
                            _ field: UnsafeRawBufferPointer) -> (isNull: Bool, bytes: [UInt8])? {
    guard !isNull else { return nil }
    switch column.collection {
    case .none:
        guard let replaced = mixedRemovingLink(target, field) else { return nil }
        return replaced == [MixedTag.none.rawValue] ? (true, []) : (false, replaced)
    case .list, .set:
        return removingLink(target, inArray: field, isMap: false).map { (false, $0) }
    case .map:
        return removingLink(target, inArray: field, isMap: true).map { (false, $0) }
    }
}
