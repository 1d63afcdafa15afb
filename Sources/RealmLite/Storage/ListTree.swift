import CStorage
import Foundation
import Synchronization

// Big Lists live in the file-wide lists tree, one entry per element:
//
//   tree          key                                    value
//   ------------  -------------------------------------  ----------------
//   realm:lists   list id (u64 BE) ++ order key          element bytes
//
// and the owner's record keeps, in the list's var field, a marker instead
// of the element array (CollectionCodec.swift):
//
//   [u32 LE 0xFFFFFFFF] [u32 LE count] [u64 LE list id] [u32 LE serial]
//
// An element array never starts with 0xFFFFFFFF (that many elements would
// not fit a field), so the two cannot be confused. The order keys
// (OrderKey.swift) keep the elements in list order, so element i is the
// entry of rank (rank of the list's first entry) + i: index access, insert,
// remove, replace, move and swap are O(log n), iteration walks a cursor.
// The marker changes with every mutation (count or serial), so the record
// changes too and object observers, Results diffs and the record checks see
// the list change as before. The id, not the owner's key, names the
// entries, so a marker copied with its record's bytes (migrations, record
// generations) still finds them. A list moves here when a change leaves it
// with more than `ListTree.threshold` elements; it moves back to the record
// when it becomes empty. AnyRealmValue lists (which may nest collections)
// always stay in the record. Big MutableSets and Maps share this tree, the
// marker and these helpers, keyed by content (SetMapTree.swift): ids are
// unique across the three kinds. Ids from `compactIDBase` up store Int
// elements as varints, zigzag ones below `orderedIDBase` and order-preserving
// ones from it (TreeElementEncoding.swift); these helpers take and give the
// field's element bytes either way.

enum ListTree {
    static let name = "realm:lists"
    static let markerSize = 20
    static let markerTag: UInt32 = 0xFFFF_FFFF
    /// Collections created under object format `StoredSchema.compactIntsFormat`
    /// took ids from here up: their Int elements are zigzag varints.
    /// Older files' ids are below it (counted from 1).
    static let compactIDBase: UInt64 = 1 << 63
    /// New collections take ids from here up (object format
    /// `StoredSchema.orderedIntsFormat`): their Int elements are OrderedVarints.
    static let orderedIDBase: UInt64 = 1 << 63 | 1 << 62

    /// Lists longer than this after a change move to the lists tree.
    /// REALMLITE_LIST_TREE_THRESHOLD overrides it (tests run the list
    /// suites with every non-empty list in the tree).
    static var threshold: Int { thresholdValue.load(ordering: .relaxed) }
    static let thresholdValue = Atomic<Int>(
        ProcessInfo.processInfo.environment["REALMLITE_LIST_TREE_THRESHOLD"].flatMap { Int($0) } ?? 64)

    /// Sets the threshold (tests); returns the previous one.
    @discardableResult
    static func setThreshold(_ value: Int) -> Int { thresholdValue.exchange(value, ordering: .relaxed) }
}

/// The marker of a list stored in the lists tree.
struct SpilledList: Equatable {
    var count: Int
    var id: UInt64
    var serial: UInt32
    /// How its entries hold elements: from its id and its elements' type.
    var encoding: TreeElementEncoding

    /// The list `id` of a column whose elements are of `type` (TreeElementEncoding(column)).
    init(count: Int, id: UInt64, serial: UInt32, type: TreeElementEncoding) {
        self.count = count
        self.id = id
        self.serial = serial
        encoding = type.forID(id)
    }

    /// The marker in `field`, if the field is one, of a column whose
    /// elements are of `type` (TreeElementEncoding(column)).
    init?(_ field: UnsafeRawBufferPointer, type: TreeElementEncoding) {
        guard field.count == ListTree.markerSize, field.loadUnaligned(as: UInt32.self) == ListTree.markerTag.littleEndian else { return nil }
        count = Int(UInt32(littleEndian: field.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        id = UInt64(littleEndian: field.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        serial = UInt32(littleEndian: field.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
        encoding = type.forID(id)
    }

    /// True if `field` is a marker.
    static func isMarker(_ field: UnsafeRawBufferPointer) -> Bool {
        field.count == ListTree.markerSize && field.loadUnaligned(as: UInt32.self) == ListTree.markerTag.littleEndian
    }

    /// The same list with a new count and serial (its next marker).
    func updated(count: Int, serial: UInt32) -> SpilledList {
        var next = self
        next.count = count
        next.serial = serial
        return next
    }

    var encoded: [UInt8] { withEncoded { Array($0) } }

    /// The marker's bytes lent to `body`, built on the stack.
    func withEncoded<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        var bytes: (UInt32, UInt32, UInt32, UInt32, UInt32) = (ListTree.markerTag.littleEndian, UInt32(count).littleEndian, 0, 0, serial.littleEndian)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: id.littleEndian, toByteOffset: 8, as: UInt64.self)
            return body(UnsafeRawBufferPointer(raw))
        }
    }

    var prefix: [UInt8] {
        var out: [UInt8] = []
        appendBigEndian(id, to: &out)
        return out
    }
}

/// Bytes owned by a view that materialized them (a list read from the tree).
final class OwnedBytes {
    let bytes: UnsafeMutableRawBufferPointer
    init(_ array: [UInt8]) {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(array.count, 1), alignment: 8)
        array.withUnsafeBytes { if let base = $0.baseAddress { memory.baseAddress!.copyMemory(from: base, byteCount: $0.count) } }
        bytes = memory
        view = UnsafeRawBufferPointer(start: memory.baseAddress, count: array.count)
    }
    let view: UnsafeRawBufferPointer
    deinit { bytes.deallocate() }
}

// MARK: - Reads

extension RealmCore {
    /// The lists tree's handle; absentTree while this snapshot has none
    /// (and `create` is false).
    func listsTree(create: Bool = false) -> cs_tree {
        if listsTreeHandle != absentTree { return listsTreeHandle }
        let tree: cs_tree
        if create {
            guard let created = recording({ try txn.openTree(ListTree.name, create: true) }) else { return absentTree }
            tree = created
        } else {
            tree = (try? txn.openTree(ListTree.name, create: false)) ?? absentTree
        }
        // A frozen core is read from many threads: it looks the name up each time.
        if tree != absentTree && !isFrozen { listsTreeHandle = tree }
        return tree
    }

    /// The rank of the list's first entry (where it would be when empty).
    func listBaseRank(_ list: SpilledList, _ cursor: EngineCursor) -> Int {
        let prefix = list.prefix
        let found = withBytesKey(prefix) { cursor.seek($0) }
        if found != nil { return cursor.index() }
        return txn.count(listsTree(), "Counting list entries")
    }

    /// Element `index` (checked by the caller) of a list in the tree, as
    /// its field would hold it, lent to `body`.
    @inline(__always)
    func withListElement<R>(_ list: SpilledList, _ index: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        list.encoding.withField(storedListElement(list, index), body)
    }

    /// Element `index` of a list in the tree as stored: valid until the next write.
    /// Read by rank without the shared cursor: no key assembled, and the
    /// cursor stays where it was (an iteration in progress keeps stepping).
    private func storedListElement(_ list: SpilledList, _ index: Int) -> UnsafeRawBufferPointer {
        guard let value = txn.value(listsTree(), atIndex: listFirstRank(list) + index, "Reading a list element") else {
            realmFatal(.invalidValue, "A list's elements are missing from the file.")
        }
        return bytes(of: value)
    }

    /// storedListElement() with `cursor` (this core's on the lists tree)
    /// left on the element: where an iteration starts stepping.
    func storedListElement(_ list: SpilledList, _ index: Int, positioning cursor: EngineCursor) -> UnsafeRawBufferPointer {
        guard let entry = cursor.seek(toIndex: listFirstRank(list) + index) else {
            realmFatal(.invalidValue, "A list's elements are missing from the file.")
        }
        return bytes(of: entry.value)
    }

    /// The rank of the list's first entry. Reads by index in one version
    /// share it (a frozen core, read from many threads, finds it each time).
    private func listFirstRank(_ list: SpilledList) -> Int {
        if !isFrozen, listRankCache.id == list.id, listRankCache.generation == generation, generation != 0 {
            return listRankCache.base
        }
        guard let cursor = cursor(listsTree()) else { realmFatal(.invalidValue, "A list's elements are missing from the file.") }
        let base = listBaseRank(list, cursor)
        if !isFrozen { listRankCache = (list.id, generation, base) }
        return base
    }

    /// Every element of a list in the tree, in order, as its field would hold them.
    func listElements(_ list: SpilledList) -> [[UInt8]] {
        var elements: [[UInt8]] = []
        elements.reserveCapacity(list.count)
        guard let cursor = cursor(listsTree()) else { return [] }
        let encoding = list.encoding
        list.prefix.withUnsafeBytes { prefix in
            cursor.forEach(prefix: prefix) { _, value in
                elements.append(encoding.field(bytes(of: value)))
                return true
            }
        }
        return elements
    }

    /// `field` (of a collection whose elements are of `type`) as an element
    /// array: itself, or the elements of the list its marker names, copied
    /// out of the tree (kept alive by `owner`).
    func elementArray(_ field: UnsafeRawBufferPointer, type: TreeElementEncoding) -> ElementArrayView {
        guard let list = SpilledList(field, type: type) else { return ElementArrayView(bytes: field) }
        let owned = OwnedBytes(encodeElementArray(listElements(list)))
        return ElementArrayView(bytes: owned.view, owner: owned)
    }

    /// linkTargets(), reading a collection in the tree from it.
    func resolvedLinkTargets(_ column: Column, isNull: Bool, _ field: UnsafeRawBufferPointer) -> [UInt64] {
        guard column.collection != .none, let list = SpilledList(field, type: TreeElementEncoding(column)) else {
            return linkTargets(column, isNull: isNull, field)
        }
        return listElements(list).compactMap { $0.withUnsafeBytes { linkTarget(ofElement: $0, column.collection) } }
    }
}

// MARK: - Writes

extension ClassInfo {
    /// Columns of Lists, MutableSets and Maps that may be stored in the tree.
    var treeColumns: [Int] {
        columns.indices.filter { columns[$0].collection != .none && !columns[$0].isMixed }
    }
}

extension RealmCore {
    /// Removes the elements linking to `target` from a collection in the
    /// tree, or nils a map's values linking to it (the deletion of that
    /// object); returns the collection's new field.
    func removingTreeLinks(to target: UInt64, from list: SpilledList, _ kind: _CollectionKind, in write: WriteTransaction) -> [UInt8] {
        if kind == .set {
            let removed = removeEntry(list, withLinkBytes(target) { Array($0) }, isMap: false, in: write)
            let count = list.count - (removed == nil ? 0 : 1)
            return count == 0 ? [] : list.updated(count: count, serial: list.serial &+ 1).encoded
        }
        if kind == .map {
            for entry in listElements(list) {
                var parsed = entry.withUnsafeBytes { MapEntry($0) }
                guard entry.withUnsafeBytes({ linkTarget(ofElement: $0, .map) }) == target else { continue }
                parsed.value = [0]
                putEntry(list, parsed.encoded, isMap: true, in: write)
            }
            return list.updated(count: list.count, serial: list.serial &+ 1).encoded
        }
        let indexes = listElements(list).enumerated().compactMap { element in
            element.element.withUnsafeBytes { linkTarget(ofElement: $0, .list) } == target ? element.offset : nil
        }
        var current = list
        for i in indexes.reversed() {
            _ = listSplice(current, i..<(i + 1), [], in: write)
            current.count -= 1
        }
        return current.count == 0 ? [] : list.updated(count: current.count, serial: list.serial &+ 1).encoded
    }

    /// Drops the tree collections of every object of a class (before its trees are cleared).
    func dropTreeLists(of info: ClassInfo, in write: WriteTransaction) {
        let columns = info.treeColumns
        let tree = listsTree()
        guard !columns.isEmpty, tree != absentTree, write.txn.count(tree, "Counting list entries") > 0 else { return }
        var lists: [SpilledList] = []
        write.txn.withCursor(info.objectsTree) { cursor in
            var entry = cursor.first()
            while let (key, raw) = entry {
                let value = currentRecord(info, keyValue(key), raw)
                let record = RecordView(base: UnsafeRawPointer(value.data!), size: value.size)
                for c in columns {
                    if let list = SpilledList(record.field(info.slots[c], info.layout), type: .plain) { lists.append(list) }
                }
                entry = cursor.next()
            }
        }
        for list in lists { listDrop(list, in: write) }
    }
}

extension RealmCore {
    /// Replaces elements `range` of a list in the tree with `newElements`
    /// (as its field would hold them); returns the elements removed. O((range + new) log n), except when
    /// order keys run out of room between two neighbours: then the whole
    /// list is renumbered once.
    func listSplice(_ list: SpilledList, _ range: Range<Int>, _ newElements: [[UInt8]], in write: WriteTransaction) -> [[UInt8]] {
        let tree = listsTree(create: true)
        guard let cursor = write.context.cursor(tree) else { return [] }
        let prefix = list.prefix
        if range.isEmpty, range.lowerBound == list.count {
            // An append: after the last key, found in one descent (no ranks).
            guard let keys = orderKeys(newElements.count, after: lastOrderKey(list, cursor), before: nil) else { return [] }
            for (key, element) in zip(keys, newElements) {
                write.put(tree, prefix + key, list.encoding.stored(element), "Storing a list element")
            }
            return []
        }
        let base = listBaseRank(list, cursor)
        var removed: [[UInt8]] = []
        removed.reserveCapacity(range.count)
        for _ in range {
            guard let entry = cursor.seek(toIndex: base + range.lowerBound) else { break }
            removed.append(list.encoding.field(bytes(of: entry.value)))
            let key = [UInt8](copying: bytes(of: entry.key))
            write.delete(tree, key, "Removing a list element")
        }
        guard !newElements.isEmpty else { return removed }
        let remaining = list.count - range.count
        func orderKey(at rank: Int) -> [UInt8]? {
            guard rank >= 0, rank < remaining, let entry = cursor.seek(toIndex: base + rank) else { return nil }
            return [UInt8](copying: UnsafeRawBufferPointer(rebasing: bytes(of: entry.key)[8...]))
        }
        let low = orderKey(at: range.lowerBound - 1)
        let high = orderKey(at: range.lowerBound)
        guard let keys = orderKeys(newElements.count, after: low, before: high) else {
            renumber(list, inserting: newElements, at: range.lowerBound, remaining: remaining, in: write)
            return removed
        }
        for (key, element) in zip(keys, newElements) {
            write.put(tree, prefix + key, list.encoding.stored(element), "Storing a list element")
        }
        return removed
    }

    /// The order key of a list's last entry; nil if it has none.
    func lastOrderKey(_ list: SpilledList, _ cursor: EngineCursor) -> [UInt8]? {
        var next: [UInt8] = []
        appendBigEndian(list.id &+ 1, to: &next)
        let entry = withBytesKey(next) { cursor.seek($0) } != nil ? cursor.prev() : cursor.last()
        guard let entry, entry.key.size > 8, keyValue(entry.key) == list.id else { return nil }
        return [UInt8](copying: UnsafeRawBufferPointer(rebasing: bytes(of: entry.key)[8...]))
    }

    /// Puts the elements of a list (of a column whose elements are of
    /// `type`) into the tree under a new id, in the ordered id space.
    func listStore(_ elements: [[UInt8]], type: TreeElementEncoding, in write: WriteTransaction) -> SpilledList {
        let tree = listsTree(create: true)
        var id = ListTree.orderedIDBase
        if let cursor = write.context.cursor(tree), let last = cursor.lastKey(), last.size >= 8 { id = max(id, keyValue(last) + 1) }
        let list = SpilledList(count: elements.count, id: id, serial: 0, type: type)
        let prefix = list.prefix
        var counter = OrderKey.firstCounter
        for element in elements {
            write.put(tree, prefix + OrderKey.counter(counter), list.encoding.stored(element), "Storing a list element")
            counter += 1
        }
        return list
    }

    /// Removes every entry of a list from the tree.
    func listDrop(_ list: SpilledList, in write: WriteTransaction) {
        let tree = listsTree(create: true)
        guard let cursor = write.context.cursor(tree) else { return }
        var keys: [[UInt8]] = []
        keys.reserveCapacity(list.count)
        list.prefix.withUnsafeBytes { prefix in
            cursor.forEach(prefix: prefix, values: false) { key, _ in
                keys.append([UInt8](copying: bytes(of: key)))
                return true
            }
        }
        for key in keys { write.delete(tree, key, "Removing a list element") }
    }

    /// Swaps the values of two entries (links and the count are unchanged).
    func listSwap(_ list: SpilledList, _ i: Int, _ j: Int, in write: WriteTransaction) {
        let tree = listsTree(create: true)
        guard let cursor = write.context.cursor(tree) else { return }
        let base = listBaseRank(list, cursor)
        guard let a = cursor.seek(toIndex: base + i) else { return }
        let (keyA, valueA) = ([UInt8](copying: bytes(of: a.key)), [UInt8](copying: bytes(of: a.value)))
        guard let b = cursor.seek(toIndex: base + j) else { return }
        let (keyB, valueB) = ([UInt8](copying: bytes(of: b.key)), [UInt8](copying: bytes(of: b.value)))
        write.put(tree, keyA, valueB, "Storing a list element")
        write.put(tree, keyB, valueA, "Storing a list element")
    }

    /// `count` order keys in increasing order strictly between `low` and
    /// `high` (nil: unbounded); nil if there is no room.
    private func orderKeys(_ count: Int, after low: [UInt8]?, before high: [UInt8]?) -> [[UInt8]]? {
        var keys: [[UInt8]] = []
        keys.reserveCapacity(count)
        if high == nil {
            var last = low ?? OrderKey.counter(OrderKey.firstCounter - 1)
            for _ in 0..<count {
                last = last.withUnsafeBytes { OrderKey.after($0) }
                keys.append(last)
            }
            return keys
        }
        let single: [UInt8]?
        if low == nil, count == 1 {
            single = high!.withUnsafeBytes { OrderKey.before($0) }
        } else {
            single = withOptionalBytes(low) { l in high!.withUnsafeBytes { OrderKey.between(l, $0) } }
        }
        guard let middle = single else { return nil }
        if count == 1 { return [middle] }
        // Several between two keys: the middle key extended by counters.
        for i in 1...count { keys.append(middle + OrderKey.counter(UInt64(i))) }
        return keys.last!.count > OrderKey.maxLength ? nil : keys
    }

    /// Rewrites a list's keys as consecutive counters, inserting elements.
    private func renumber(_ list: SpilledList, inserting newElements: [[UInt8]], at index: Int, remaining: Int,
                          in write: WriteTransaction) {
        var elements = listElements(list)
        elements.insert(contentsOf: newElements, at: min(index, elements.count))
        listDrop(list, in: write)
        let tree = listsTree(create: true)
        let prefix = list.prefix
        var counter = OrderKey.firstCounter
        for element in elements {
            write.put(tree, prefix + OrderKey.counter(counter), list.encoding.stored(element), "Storing a list element")
            counter += 1
        }
    }
}

private func withOptionalBytes<R>(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
    guard let bytes else { return body(nil) }
    return bytes.withUnsafeBytes { body($0) }
}
