// The storage side shared by List, MutableSet and Map: a collection property
// of a managed object is one var field of the owner's record (format in
// CollectionCodec.swift). Reads are zero-copy views of the current snapshot;
// writes rebuild the field and go through RealmCore.updateColumn, which keeps
// backlinks and embedded-object ownership right.

struct CollectionField {
    let owner: ObjectBase
    let column: Int
    /// A list or dictionary nested in an AnyRealmValue: the steps from the
    /// column's collection (or, with `rootIsValue`, from the mixed property's
    /// own value) down to it (Collections/NestedCollections.swift).
    var path: [MixedStep] = []
    /// The column is an AnyRealmValue property whose value is the (outermost) collection.
    var rootIsValue = false

    var realm: RealmCore { owner._managingRealm }
    var isNested: Bool { rootIsValue || !path.isEmpty }

    /// The field in the current snapshot: valid until the next write.
    var view: ElementArrayView {
        let record = owner._currentRecord()
        let info = owner._info.unsafelyUnwrapped
        let field = record.field(info.slots[column], info.layout)
        if _slowPath(isNested) { return ElementArrayView(bytes: nestedArray(in: field) ?? UnsafeRawBufferPointer(start: nil, count: 0)) }
        if _slowPath(field.count == ListTree.markerSize) { return realm.elementArray(field, type: treeElements) }
        return ElementArrayView(bytes: field)
    }

    /// How this column's elements are stored in the tree (before the id says which encoding).
    var treeElements: TreeElementEncoding { owner._info.unsafelyUnwrapped.columns[column].treeElements }

    /// The marker of a list stored in the lists tree (ListTree.swift), or nil.
    var spilledList: SpilledList? {
        if isNested { return nil }
        // The record first: reading the class info after it (and the
        // encoding from it, not through `treeElements`) takes one retain
        // and release instead of three (every lookup of a tree set or map
        // reads this).
        let record = owner._currentRecord()
        let info = owner._info.unsafelyUnwrapped
        return SpilledList(record.field(info.slots[column], info.layout), type: info.columns[column].treeElements)
    }

    /// The number of elements, without reading them.
    var elementCount: Int { spilledList?.count ?? view.count }

    /// True if changes may move this list to the lists tree.
    private var mayUseListTree: Bool {
        guard !isNested else { return false }
        let column = owner._info.unsafelyUnwrapped.columns[column]
        return column.collection == .list && !column.isMixed
    }

    /// The same collection of `other`, the owner as read elsewhere (another
    /// Realm instance, frozen or thawed).
    func moved(to other: ObjectBase) -> CollectionField {
        CollectionField(owner: other, column: column, path: path, rootIsValue: rootIsValue)
    }

    var name: String {
        guard let info = owner._info else { return "collection" }
        return "\(info.name).\(info.columns[column].name)"
    }

    func requireWrite() {
        realm.requireWrite("modify '\(name)'")
    }

    func write(_ elements: [[UInt8]]) {
        if isNested { return writeNested(encodeElementArray(elements)) }
        encodeElementArray(elements).withUnsafeBytes { realm.updateColumn(owner, column, isNull: false, $0) }
    }

    /// Replaces elements `range` with `newElements` (already encoded). For
    /// link collections the backlink change is computed from just these
    /// elements, so a mutation never rescans the whole collection.
    func splice(_ range: Range<Int>, with newElements: [[UInt8]]) {
        let before = stateForLog
        defer { logEdit(.replace(range, count: newElements.count), from: before) }
        if let list = spilledList { return spliceInTree(list, range, newElements) }
        let view = self.view
        if isNested { return writeNested(spliceElementArray(view, range, newElements)) }
        let info = owner._info.unsafelyUnwrapped
        let kind = info.columns[column].collection
        var delta: (removed: [UInt64], added: [UInt64])?
        if info.columns[column].isLink {
            delta = (range.compactMap { linkTarget(ofElement: view.element($0), kind) },
                     newElements.compactMap { bytes in bytes.withUnsafeBytes { linkTarget(ofElement: $0, kind) } })
        }
        let bytes = spliceElementArray(view, range, newElements)
        if view.count - range.count + newElements.count > ListTree.threshold, mayUseListTree {
            // Too long for the record: the elements move to the lists tree.
            let write = realm.requireWrite("modify '\(name)'")
            let elements = bytes.withUnsafeBytes { ElementArrayView(bytes: $0).elements }
            let list = realm.listStore(elements, type: treeElements, in: write)
            return list.encoded.withUnsafeBytes { realm.updateColumn(owner, column, isNull: false, $0, linkDelta: delta ?? ([], [])) }
        }
        bytes.withUnsafeBytes { realm.updateColumn(owner, column, isNull: false, $0, linkDelta: delta) }
    }

    /// splice() of a list in the lists tree: O((range + new) log n).
    private func spliceInTree(_ list: SpilledList, _ range: Range<Int>, _ newElements: [[UInt8]]) {
        let write = realm.requireWrite("modify '\(name)'")
        let removed = realm.listSplice(list, range, newElements, in: write)
        var delta: (removed: [UInt64], added: [UInt64]) = ([], [])
        if owner._info.unsafelyUnwrapped.columns[column].isLink {
            delta = (removed.compactMap { $0.withUnsafeBytes { linkTarget(ofElement: $0, .list) } },
                     newElements.compactMap { $0.withUnsafeBytes { linkTarget(ofElement: $0, .list) } })
        }
        updateMarker(list, count: list.count - range.count + newElements.count, delta)
    }

    /// Writes a tree list's new marker (an empty field once it is empty).
    func updateMarker(_ list: SpilledList, count: Int, _ delta: (removed: [UInt64], added: [UInt64]) = ([], [])) {
        if count == 0 {
            return realm.updateColumn(owner, column, isNull: false, UnsafeRawBufferPointer(start: nil, count: 0), linkDelta: delta)
        }
        writeMarker(list.updated(count: count, serial: list.serial &+ 1), delta)
    }

    /// Writes `marker` (not empty) in place of the field's marker.
    func writeMarker(_ marker: SpilledList, _ delta: (removed: [UInt64], added: [UInt64]) = ([], [])) {
        marker.withEncoded { raw in
            // A marker replaces a marker of the same size: rewritten in place when nothing links.
            if delta.removed.isEmpty, delta.added.isEmpty, realm.overwriteField(owner, column, raw) { return }
            realm.updateColumn(owner, column, isNull: false, raw, linkDelta: delta)
        }
    }

    /// A stored element as `E`. Objects as DynamicObjects are of the
    /// column's linked class, which their type does not say (the dynamic
    /// API); every other type decodes itself.
    /// `realm`: the managing core when the caller holds it already (each
    /// `self.realm` checks the thread and retains the core).
    @inline(__always)
    func decode<E: _RealmElement>(_ bytes: UnsafeRawBufferPointer, in realm: RealmCore? = nil) -> E {
        if E.self == DynamicObject.self { return dynamicElement(bytes) as! E }
        if E.self == Optional<DynamicObject>.self {
            return (bytes.first == 1 ? dynamicElement(UnsafeRawBufferPointer(rebasing: bytes[1...])) : nil) as! E
        }
        return E._rlmDecodeElement(bytes, realm ?? self.realm)
    }

    private func dynamicElement(_ bytes: UnsafeRawBufferPointer) -> DynamicObject {
        let key = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        let column = owner._info.unsafelyUnwrapped.columns[column]
        guard let target = column.target, let object = realm.object(target, key: key) as? DynamicObject else {
            realmFatal(.invalidated(column.property.objectClassName ?? "DynamicObject"))
        }
        return object
    }

    /// The index of an element equal to these bytes, if any: the same
    /// bytes, or for mixed values the same number (mixedElementsEqual).
    func firstIndex(of bytes: [UInt8]) -> Int? {
        let view = self.view
        if isMixed { return bytes.withUnsafeBytes { b in (0..<view.count).first { mixedElementsEqual(view.element($0), b) } } }
        return (0..<view.count).first { view.element($0).elementsEqual(bytes) }
    }

    /// True if two encoded elements are the same element of this collection.
    func sameElement(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        isMixed ? mixedElementsEqual(a, b) : a == b
    }

    /// The elements are AnyRealmValues.
    var isMixed: Bool { owner._info.unsafelyUnwrapped.columns[column].isMixed }

    /// Encodes new elements (adding unmanaged objects); nil after recording
    /// the error in the Realm.
    func encode<S: Sequence>(_ values: S) -> [[UInt8]]? where S.Element: _RealmElement {
        let realm = self.realm
        var encoded: [[UInt8]] = []
        for value in values {
            var bytes: [UInt8] = []
            guard realm.recording({ try S.Element._rlmEncodeElement(value, &bytes, realm) }) != nil else { return nil }
            encoded.append(bytes)
        }
        return encoded
    }

    func checkIndex(_ index: Int, _ count: Int, inclusive: Bool = false) {
        if index < 0 || index > count || (!inclusive && index == count) {
            realmFatal(.invalidValue, "Index \(index) is out of bounds for '\(name)' (count \(count)).")
        }
    }

    /// True if this field is exactly `other`'s (x.list = x.list is a no-op).
    func isSame(as other: CollectionField?) -> Bool {
        guard let other else { return false }
        return other.column == column && other.path == path && other.rootIsValue == rootIsValue && other.owner.isSameObject(as: owner)
    }
}

/// The stored bytes of a value for lookups (contains, index(of:), map
/// keys): never adds objects. nil if the value cannot be in the collection
/// (an unmanaged or foreign object).
func lookupBytes<E: _RealmElement>(_ value: E, _ realm: RealmCore) -> [UInt8]? {
    withLookupBytes(value, realm) { Array($0) }
}

/// lookupBytes() lent to `body` (nil without calling it if the value cannot
/// be in the collection): values are encoded into the core's reused buffer,
/// so a lookup allocates nothing.
func withLookupBytes<E: _RealmElement, R>(_ value: E, _ realm: RealmCore, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
    // The shape says which casts can succeed: a dynamic cast of a number to
    // a class or to NSNull bridges it through Foundation, which costs more
    // than the tree lookup it precedes.
    let shape = E._rlmShape
    if shape.type == .object, let object = value as? ObjectBase {
        guard object._realm === realm, !object._deleted else { return nil }
        return withLinkBytes(object._key) { body($0) }
    }
    if shape.type == .any, let mixed = value as? AnyRealmValue { return mixedLookupBytes(mixed, realm).map { $0.withUnsafeBytes(body) } }
    if shape.isOptional, isNil(value) { return withUnsafeBytes(of: UInt8(0)) { body($0) } }
    if shape.type == .object {
        // Optional<Object>: tag byte, then the key.
        guard let object = (value as? any AnyOptional)?.anyWrapped as? ObjectBase,
              object._realm === realm else { return nil }
        return ([1] + withLinkBytes(object._key) { Array($0) }).withUnsafeBytes(body)
    }
    // Taken while in use: a nested lookup (none today) gets its own buffer.
    var bytes: [UInt8] = []
    swap(&bytes, &realm.lookupScratch)
    defer { swap(&bytes, &realm.lookupScratch) }
    bytes.removeAll(keepingCapacity: true)
    do { try E._rlmEncodeElement(value, &bytes, realm) } catch { return nil }
    return bytes.withUnsafeBytes(body)
}

func elementsDescription(_ kind: String, _ elements: [Any]) -> String {
    let items = elements.enumerated().map { "\t[\($0.offset)] \(describeValue($0.element))" }
    return "\(kind) <\(items.count)> (\n" + items.joined(separator: ",\n") + "\n)"
}

extension CollectionField {
    var isFrozen: Bool { owner._realm?.isFrozen ?? false }

    func frozen() -> CollectionField {
        moved(to: owner._freeze())
    }

    func thawed() -> CollectionField? {
        owner._thaw().map { moved(to: $0) }
    }
}

/// List, MutableSet and Map: unmanaged, a Swift collection; managed, a view
/// of one field of the owner's record. What freezing, thawing and observing
/// do is the same for the three; each type's public methods call these.
protocol FieldBackedCollection: AnyObject {
    var field: CollectionField? { get }
    init(field: CollectionField)
    /// The type's name in messages ("List").
    static var kindName: String { get }
}

extension FieldBackedCollection {
    var fieldIsFrozen: Bool { field?.isFrozen ?? false }

    func frozenCollection() -> Self {
        guard let field else { realmFatal(.invalidValue, "Cannot freeze an unmanaged \(Self.kindName): add its owner to a Realm first.") }
        return Self(field: field.frozen())
    }

    func thawedCollection() -> Self? {
        guard let field else { return self }
        return field.thawed().map { Self(field: $0) }
    }

    func observeField(keyPaths: [String]?, _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken {
        guard let field else { realmFatal(.invalidValue, "Only a managed \(Self.kindName) can be observed: add its owner to a Realm first.") }
        return field.observe(Self.kindName, keyPaths: keyPaths, value: self, block)
    }
}
