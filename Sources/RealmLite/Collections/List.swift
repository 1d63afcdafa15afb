import Dispatch

/// An ordered collection property: `@Persisted var dogs: List<Dog>`.
/// Unmanaged it is a Swift array; managed, it reads the owner's record.
public final class List<Element: RealmCollectionValue>: RandomAccessCollection, MutableCollection,
    RangeReplaceableCollection, CustomStringConvertible {
    var unmanaged: [Element] = []
    let field: CollectionField?

    /// An empty unmanaged list, a plain array until its owner is added to a
    /// Realm. Declare list properties as `@Persisted var dogs: List<Dog>`.
    public init() { field = nil }

    init(field: CollectionField) { self.field = field }

    /// The Realm managing the owning object, nil while the list is unmanaged.
    public var realm: Realm? { field.map { Realm(core: $0.realm) } }
    /// True once the owning object was deleted or its Realm invalidated;
    /// reading the list then stops with ``Realm/Error/Code/invalidatedObject``.
    public var isInvalidated: Bool { field?.owner.isInvalidated ?? false }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    /// The number of elements in the current version, read from the owner's
    /// record.
    public var count: Int {
        guard let field else { return unmanaged.count }
        return field.elementCount
    }

    /// The element at `position` in the current version; setting it replaces
    /// that element (a managed list: inside a write transaction,
    /// ``Realm/Error/Code/wrongTransactionState`` otherwise). An index outside
    /// `0..<count` stops with ``Realm/Error/Code/invalidValue``.
    public subscript(position: Int) -> Element {
        get {
            guard let field else { return unmanaged[position] }
            if let list = field.spilledList {
                field.checkIndex(position, list.count)
                let realm = field.realm
                return realm.withListElement(list, position) { field.decode(Element.self, $0, at: .index(position), in: realm) }
            }
            let view = field.view
            field.checkIndex(position, view.count)
            return field.decode(Element.self, view.element(position), at: .index(position))
        }
        set {
            replaceSubrange(position..<(position + 1), with: CollectionOfOne(newValue))
        }
    }

    /// The core mutation: every other one is expressed through it.
    public func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Element {
        guard let field else {
            unmanaged.replaceSubrange(subrange, with: newElements)
            return
        }
        field.requireWrite()
        let count = self.count
        field.checkIndex(subrange.lowerBound, count, inclusive: true)
        field.checkIndex(subrange.upperBound, count, inclusive: true)
        guard let encoded = field.encode(newElements) else { return }
        field.splice(subrange, with: encoded)
    }

    /// Appends `object` (an unmanaged object is added to the Realm with it). A
    /// managed list: inside a write transaction on the Realm's thread.
    public func append(_ object: Element) {
        if let field, field.appendToTree(object) { return }
        replaceSubrange(count..<count, with: CollectionOfOne(object))
    }

    /// Appends each element of `objects` in order, in one change of the owner's
    /// record. A managed list: inside a write transaction.
    public func append<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        replaceSubrange(count..<count, with: Array(objects))
    }

    /// Appends each element of `newElements`; the same as
    /// ``append(objectsIn:)``.
    public func append<S: Sequence>(contentsOf newElements: S) where S.Element == Element { append(objectsIn: newElements) }

    /// Inserts `object` at `index` (`0...count`; otherwise stops with
    /// ``Realm/Error/Code/invalidValue``). A managed list: inside a write
    /// transaction.
    public func insert(_ object: Element, at index: Int) { replaceSubrange(index..<index, with: CollectionOfOne(object)) }

    /// Removes the element at `index` (the object itself is not deleted from
    /// the Realm). An index outside `0..<count` stops with
    /// ``Realm/Error/Code/invalidValue``. A managed list: inside a write
    /// transaction.
    public func remove(at index: Int) {
        if field == nil, !(0..<count).contains(index) {
            realmFatal(.invalidValue, "Index \(index) is out of bounds (count \(count)).")
        }
        replaceSubrange(index..<(index + 1), with: EmptyCollection())
    }

    /// Removes the last element; stops with ``Realm/Error/Code/invalidValue``
    /// on an empty list. A managed list: inside a write transaction.
    public func removeLast() {
        guard count > 0 else { realmFatal(.invalidValue, "Cannot remove the last element of an empty List.") }
        remove(at: count - 1)
    }

    /// Removes the first element; stops with ``Realm/Error/Code/invalidValue``
    /// on an empty list. A managed list: inside a write transaction.
    public func removeFirst() {
        guard count > 0 else { realmFatal(.invalidValue, "Cannot remove the first element of an empty List.") }
        remove(at: 0)
    }

    /// Removes every element (the objects stay in the Realm). A managed list:
    /// inside a write transaction.
    public func removeAll() { replaceSubrange(0..<count, with: EmptyCollection()) }

    /// Replaces the element at `index` with `object`, as `list[index] =
    /// object` does (a managed list: inside a write transaction).
    public func replace(index: Int, object: Element) { self[index] = object }

    /// Moves the element at `from` so that it ends up at index `to`.
    public func move(from: Int, to: Int) {
        guard let field else {
            unmanaged.insert(unmanaged.remove(at: from), at: to)
            return
        }
        field.requireWrite()
        if let list = field.spilledList {
            field.checkIndex(from, list.count)
            field.checkIndex(to, list.count)
            guard from != to, let write = field.realm.write else { return }
            let moved = field.realm.listSplice(list, from..<(from + 1), [], in: write)
            var shorter = list
            shorter.count -= 1
            _ = field.realm.listSplice(shorter, to..<to, moved, in: write)
            let before = field.stateForLog
            field.updateMarker(list, count: list.count)
            return field.logEdit(.move(from: from, to: to), from: before)
        }
        var elements = field.view.elements
        field.checkIndex(from, elements.count)
        field.checkIndex(to, elements.count)
        elements.insert(elements.remove(at: from), at: to)
        field.write(elements)
    }

    /// Exchanges the elements at the two indexes. A managed list: inside a
    /// write transaction; an index outside `0..<count` stops with
    /// ``Realm/Error/Code/invalidValue``.
    public func swapAt(_ index1: Int, _ index2: Int) {
        guard let field else {
            unmanaged.swapAt(index1, index2)
            return
        }
        field.requireWrite()
        if let list = field.spilledList {
            field.checkIndex(index1, list.count)
            field.checkIndex(index2, list.count)
            guard index1 != index2, let write = field.realm.write else { return }
            field.realm.listSwap(list, index1, index2, in: write)
            let before = field.stateForLog
            field.updateMarker(list, count: list.count)
            return field.logEdit(.swap(index1, index2), from: before)
        }
        var elements = field.view.elements
        field.checkIndex(index1, elements.count)
        field.checkIndex(index2, elements.count)
        elements.swapAt(index1, index2)
        field.write(elements)
    }

    /// The first index of object (compared by stored value / row), or nil.
    public func index(of object: Element) -> Int? {
        guard let field else { return unmanaged.firstIndex(of: object) }
        guard let bytes = lookupBytes(object, field.realm) else { return nil }
        return field.firstIndex(of: bytes)
    }

    public var description: String { elementsDescription("List<\(Element.self)>", Array(self)) }
}

extension List: _RealmValue, _Persistable {
    public static var _rlmShape: _PropertyShape { Element._rlmShape.with(collection: .list) }
    public static func _rlmDefaultValue() -> List { List() }

    public static func _rlmGet(_ object: ObjectBase, _ column: Int) -> List {
        List(field: CollectionField(owner: object, column: column))
    }

    /// `object.list = other`: replaces the contents (no-op for itself).
    public static func _rlmSet(_ object: ObjectBase, _ column: Int, _ value: List) {
        let target = List(field: CollectionField(owner: object, column: column))
        if target.field!.isSame(as: value.field) { return }
        let elements = Array(value)
        target.replaceSubrange(0..<target.count, with: elements)
    }

    public static func _rlmEncode(_ value: List, _ column: Int, _ writer: inout _RecordWriter) throws {
        let encoded = try encodeForNewRecord(value.field == nil ? value.unmanaged : Array(value), writer.realm)
        writer.write(column, isNull: false, encodeElementArray(encoded))
    }

    public static func _rlmIndexKey(_ value: List) -> [UInt8]? { nil }

    public static func _rlmConvert(_ value: Any, _ realm: RealmCore?) throws -> List? {
        guard let items = value as? [Any] ?? (value as? any Sequence).map({ Array($0) as [Any] }) else { return nil }
        let list = List()
        for item in items {
            guard let element = try (item as? Element) ?? Element._rlmConvert(item, realm) else {
                throw Realm.Error(.invalidValue, "Invalid element '\(item)' of type '\(type(of: item))' for List<\(Element.self)>.")
            }
            list.unmanaged.append(element)
        }
        return list
    }
}

/// Element bytes of a collection being written into a new record.
func encodeForNewRecord<S: Sequence>(_ values: S, _ realm: RealmCore) throws -> [[UInt8]] where S.Element: _RealmElement {
    try values.map { value in
        var bytes: [UInt8] = []
        try S.Element._rlmEncodeElement(value, &bytes, realm)
        return bytes
    }
}

extension List {
    /// Calls `block` with `.initial` at the next turn of this list's Realm (its
    /// main actor, serial queue or actor), then after each commit that changes
    /// the list, with the indexes deleted and modified (in the previous
    /// version) and inserted (in the new one). `keyPaths` limits which
    /// properties of element objects count as modifications. A moved element
    /// is reported deleted and inserted. An element set by index (or swapped)
    /// is reported modified, as in Realm, when the change comes from the
    /// list's edits (a List longer than 64 elements changed by this process);
    /// when the change is found by comparing the two versions (a shorter
    /// List, or another process's commit) a replaced value is a deletion and
    /// an insertion. With `queue`, the
    /// list is handed over and notifications run on that serial queue instead.
    /// Keep the returned token: releasing or invalidating it stops them.
    ///
    /// Call it outside a write transaction
    /// (``Realm/Error/Code/wrongTransactionState``), on a managed, live list
    /// (observing a frozen one stops with ``Realm/Error/Code/frozen``), from a
    /// Realm that has turns to deliver in: a plain thread has none
    /// (``Realm/Error/Code/incorrectThread``).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<List<Element>>) -> Void) -> NotificationToken {
        if let queue { return RealmLite.observe(self, on: queue) { $0.observe(keyPaths: keyPaths, block) } }
        return observeField(keyPaths: keyPaths, block)
    }
}

extension List {
    /// True if the list was read through a frozen Realm: immutable, and
    /// readable from any thread.
    public var isFrozen: Bool { fieldIsFrozen }

    /// The list as of the current version, immutable and readable anywhere.
    /// An unmanaged list cannot be frozen.
    public func freeze() -> List { frozenCollection() }

    /// The live list in the calling thread's Realm; nil if its owner was deleted.
    public func thaw() -> List? { thawedCollection() }
}

extension List: FieldBackedCollection {
    static var kindName: String { "List" }
}
