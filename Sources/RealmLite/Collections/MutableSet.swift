import Dispatch

/// An unordered collection of distinct values: `@Persisted var tags: MutableSet<String>`.
/// Small sets keep insertion order; a set of more than 64 elements is in the
/// order of its stored elements (numeric for Ints, as in Realm), so sort when
/// order matters. Equality is by stored value (objects: by row).
public final class MutableSet<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    var unmanaged: [Element] = []
    let field: CollectionField?

    /// An empty unmanaged set, held in memory until its owner is added to a
    /// Realm. Declare set properties as `@Persisted var tags:
    /// MutableSet<String>`.
    public init() { field = nil }

    init(field: CollectionField) { self.field = field }

    /// The Realm managing the owning object, nil while the set is unmanaged.
    public var realm: Realm? { field.map { Realm(core: $0.realm) } }
    /// True once the owning object was deleted or its Realm invalidated;
    /// reading the set then stops with ``Realm/Error/Code/invalidatedObject``.
    public var isInvalidated: Bool { field?.owner.isInvalidated ?? false }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    /// The number of distinct elements in the current version.
    public var count: Int {
        guard let field else { return unmanaged.count }
        if let marker = field.spilledEntries { return marker.count }
        return field.view.count
    }

    /// The element at `position` in insertion order. An index outside
    /// `0..<count` stops with ``Realm/Error/Code/invalidValue``.
    public subscript(position: Int) -> Element {
        guard let field else { return unmanaged[position] }
        if let marker = field.spilledEntries {
            field.checkIndex(position, marker.count)
            return field.realm.withListElement(marker, position) { field.decode($0) }
        }
        let view = field.view
        field.checkIndex(position, view.count)
        return field.decode(view.element(position))
    }

    /// True if the set holds `object` (values compared by stored value, objects
    /// by row).
    public func contains(_ object: Element) -> Bool {
        guard let field else { return unmanaged.contains(object) }
        if let marker = field.spilledEntries {
            return withLookupBytes(object, field.realm) { field.hasEntry(marker, $0) } ?? false
        }
        guard let bytes = lookupBytes(object, field.realm) else { return false }
        return field.firstIndex(of: bytes) != nil
    }

    /// Adds `object` unless the set already holds it. A managed set: inside a
    /// write transaction (``Realm/Error/Code/wrongTransactionState``).
    public func insert(_ object: Element) { insert(objectsIn: CollectionOfOne(object)) }

    /// Adds each element of `objects` that the set does not hold yet, in one
    /// change of the owner's record. A managed set: inside a write transaction.
    public func insert<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        guard let field else {
            for object in objects where !unmanaged.contains(object) { unmanaged.append(object) }
            return
        }
        field.requireWrite()
        guard let encoded = field.encode(objects) else { return }
        if field.isMixed, let error = encoded.lazy.compactMap(mixedSetElementError).first { return field.realm.fail(error) }
        if let marker = field.spilledEntries {
            var seen = Set<[UInt8]>()
            let added = encoded.filter { !$0.withUnsafeBytes({ field.hasEntry(marker, $0) }) && seen.insert($0).inserted }
            if !added.isEmpty { field.putEntries(marker, added) }
            return
        }
        var added: [[UInt8]] = []
        if field.isMixed {
            for bytes in encoded where field.firstIndex(of: bytes) == nil && !added.contains(where: { field.sameElement($0, bytes) }) {
                added.append(bytes)
            }
        } else {
            // Stored bytes are the identity: one hash lookup per element.
            var seen = Set(field.view.elements)
            added = encoded.filter { seen.insert($0).inserted }
        }
        let count = field.view.count
        if !added.isEmpty {
            field.splice(count..<count, with: added)
            field.spillEntriesIfLong()
        }
    }

    /// Removes `object` if the set holds it (an object stays in the Realm). A
    /// managed set: inside a write transaction.
    public func remove(_ object: Element) {
        guard let field else {
            unmanaged.removeAll { $0 == object }
            return
        }
        field.requireWrite()
        guard let bytes = lookupBytes(object, field.realm) else { return }
        if let marker = field.spilledEntries { return field.removeEntries(marker, [bytes]) }
        guard let index = field.firstIndex(of: bytes) else { return }
        field.splice(index..<(index + 1), with: [])
    }

    /// Removes every element. A managed set: inside a write transaction.
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

    /// Adds every element of other.
    public func formUnion<S: Sequence>(_ other: S) where S.Element == Element { insert(objectsIn: other) }

    /// Keeps only the elements also in other.
    public func formIntersection<S: Sequence>(_ other: S) where S.Element == Element {
        if let field, let marker = field.spilledEntries {
            field.requireWrite()
            let keep = Set(other.compactMap { lookupBytes($0, field.realm) })
            return field.removeEntries(marker, field.realm.listElements(marker).filter { !keep.contains($0) })
        }
        let keep = Array(other)
        for element in Array(self) where !keep.contains(where: { sameElement($0, element) }) { remove(element) }
    }

    /// Removes the elements of other.
    public func subtract<S: Sequence>(_ other: S) where S.Element == Element {
        for element in other { remove(element) }
    }

    /// True if the two sets share at least one element.
    public func intersects(_ other: MutableSet<Element>) -> Bool { contains { other.contains($0) } }

    /// True if every element of this set is also in `other`.
    public func isSubset(of other: MutableSet<Element>) -> Bool { allSatisfy { other.contains($0) } }

    private func sameElement(_ a: Element, _ b: Element) -> Bool {
        if let x = a as? ObjectBase, let y = b as? ObjectBase { return x.isSameObject(as: y) }
        return a == b
    }

    public var description: String { elementsDescription("MutableSet<\(Element.self)>", Array(self)) }
}

extension MutableSet: _RealmValue, _Persistable {
    public static var _rlmShape: _PropertyShape { Element._rlmShape.with(collection: .set) }
    public static func _rlmDefaultValue() -> MutableSet { MutableSet() }

    public static func _rlmGet(_ object: ObjectBase, _ column: Int) -> MutableSet {
        MutableSet(field: CollectionField(owner: object, column: column))
    }

    public static func _rlmSet(_ object: ObjectBase, _ column: Int, _ value: MutableSet) {
        let target = MutableSet(field: CollectionField(owner: object, column: column))
        if target.field!.isSame(as: value.field) { return }
        let elements = Array(value)
        target.removeAll()
        target.insert(objectsIn: elements)
    }

    public static func _rlmEncode(_ value: MutableSet, _ column: Int, _ writer: inout _RecordWriter) throws {
        let isMixed = Element.self == AnyRealmValue.self
        var unique: [[UInt8]] = []
        var seen = Set<[UInt8]>() // stored bytes: one lookup per element (mixed values compare by value instead)
        for bytes in try encodeForNewRecord(value.field == nil ? value.unmanaged : Array(value), writer.realm) {
            if isMixed {
                if let error = mixedSetElementError(bytes) { throw error }
                if !unique.contains(where: { mixedElementsEqual($0, bytes) }) { unique.append(bytes) }
            } else if seen.insert(bytes).inserted {
                unique.append(bytes)
            }
        }
        writer.write(column, isNull: false, encodeElementArray(unique))
    }

    public static func _rlmIndexKey(_ value: MutableSet) -> [UInt8]? { nil }

    public static func _rlmConvert(_ value: Any, _ realm: RealmCore?) throws -> MutableSet? {
        guard let list = try List<Element>._rlmConvert(value, realm) else { return nil }
        let set = MutableSet()
        set.insert(objectsIn: list.unmanaged)
        return set
    }
}

extension MutableSet {
    /// Calls `block` with `.initial` at the next turn of this set's Realm (its
    /// main actor, serial queue or actor), then after each commit that changes
    /// the set, with the indexes deleted and modified (in the previous version)
    /// and inserted (in the new one). `keyPaths` limits which properties of
    /// element objects count as modifications. An element removed and added
    /// again is reported deleted and inserted, as in Realm, when the change
    /// comes from the set's edits (a MutableSet longer than 64 elements
    /// changed by this process); when the change is found by comparing the
    /// two versions (a shorter set, or another process's commit) it is not
    /// reported. With `queue`, the set is handed
    /// over and notifications run on that serial queue instead. Keep the
    /// returned token: releasing or invalidating it stops them.
    ///
    /// Call it outside a write transaction
    /// (``Realm/Error/Code/wrongTransactionState``), on a managed, live set
    /// (observing a frozen one stops with ``Realm/Error/Code/frozen``), from a
    /// Realm that has turns to deliver in: a plain thread has none
    /// (``Realm/Error/Code/incorrectThread``).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<MutableSet<Element>>) -> Void) -> NotificationToken {
        if let queue { return RealmLite.observe(self, on: queue) { $0.observe(keyPaths: keyPaths, block) } }
        return observeField(keyPaths: keyPaths, block)
    }
}

extension MutableSet {
    /// True if the set was read through a frozen Realm: immutable, and readable
    /// from any thread.
    public var isFrozen: Bool { fieldIsFrozen }

    /// The set as of its Realm's current version: immutable and readable from
    /// any thread. An unmanaged set cannot be frozen (stops with
    /// ``Realm/Error/Code/invalidValue``).
    public func freeze() -> MutableSet { frozenCollection() }

    /// The live set in the calling thread's Realm (the owning object found
    /// again there); nil if the owning object was deleted since. A live set
    /// returns itself.
    public func thaw() -> MutableSet? { thawedCollection() }
}

extension MutableSet: FieldBackedCollection {
    static var kindName: String { "MutableSet" }
}
