import CStorage

// Big MutableSets and Maps share the collections tree with big Lists
// (ListTree.swift: the same marker in the owner's field, the same id
// allocation, range deletes and rank reads), keyed by their content
// instead of an order key:
//
//   key                                          value
//   -------------------------------------------  ------------------------------
//   set id (u64 BE) ++ element bytes             element bytes
//   map id (u64 BE) ++ key UTF-8                 map entry (CollectionCodec.swift)
//
// so membership, lookup, insert and remove are one descent (O(log n)), and
// a set iterates in the order of its elements' stored bytes, a map in the
// order of its keys' bytes (as its field did). Element or key bytes longer
// than `EntryKey.directLength` are keyed by their first `directLength`
// bytes, a hash of all of them and a counter: a lookup scans the entries
// under that prefix and compares their values, so two long elements never
// collide. A set or map moves here when a change leaves it longer than
// `ListTree.threshold`, and back to its field when it becomes empty.
// AnyRealmValue sets and maps (whose elements compare by value, and may nest
// collections) stay in the record. Elements and values are as the field
// holds them at these helpers' boundary, stored as the marker's encoding
// says (TreeElementEncoding.swift): a set of Int is keyed by each element's
// varint, which is canonical, so membership still compares bytes; in new
// sets that varint sorts as the numbers, so the set iterates in numeric order.

enum EntryKey {
    /// Longer element or key bytes are keyed by a prefix, a hash and a counter.
    static let directLength = 1000

    /// The tree key of `content` in collection `id` (long content: the
    /// prefix its entries' keys start with).
    static func key(_ id: UInt64, _ content: UnsafeRawBufferPointer) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(8 + min(content.count, directLength + 12))
        appendBigEndian(id, to: &key)
        guard content.count > directLength else {
            key.appendRaw(content)
            return key
        }
        key.appendRaw(UnsafeRawBufferPointer(rebasing: content[..<directLength]))
        appendBigEndian(fnv1a(content), to: &key)
        return key
    }

    static func isLong(_ content: UnsafeRawBufferPointer) -> Bool { content.count > directLength }

    /// key() of short content lent to `body`, built on the stack (lookups allocate nothing).
    static func withKey<R>(_ id: UInt64, _ content: UnsafeRawBufferPointer, _ body: (cs_val) -> R) -> R {
        precondition(!isLong(content))
        return withUnsafeTemporaryAllocation(byteCount: 8 + content.count, alignment: 8) { key in
            key.storeBytes(of: id.bigEndian, as: UInt64.self)
            if let base = content.baseAddress { (key.baseAddress! + 8).copyMemory(from: base, byteCount: content.count) }
            return body(cs_val(data: key.baseAddress, size: key.count))
        }
    }

    /// FNV-1a: stable across processes (Swift's Hasher is seeded per run).
    static func fnv1a(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}

extension SpilledList {
    /// The bytes a set element or map entry is keyed by: the element, or the entry's key.
    static func content(of value: UnsafeRawBufferPointer, isMap: Bool) -> UnsafeRawBufferPointer {
        isMap ? MapEntry.split(value).key : value
    }
}

extension RealmCore {
    /// The value (as the field holds it) of the entry of a tree set (`isMap`
    /// false) or map whose element or map key is `content`, lent to `body`
    /// (nil if absent): one get, with no allocation unless the content is long.
    func withEntryValue<R>(_ marker: SpilledList, _ content: UnsafeRawBufferPointer, isMap: Bool,
                           _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        if EntryKey.isLong(content) {
            guard let found = findEntry(marker, Array(content), isMap: isMap) else { return body(nil) }
            return marker.encoding.withField(found.value) { body($0) }
        }
        let tree = listsTree()
        guard tree != absentTree else { return body(nil) }
        return withStoredContent(marker, content, isMap: isMap) { content in
            let stored = EntryKey.withKey(marker.id, content) { key in txn.get(tree, key, "Reading a collection entry").map { bytes(of: $0) } }
            guard let stored else { return body(nil) }
            return marker.encoding.withField(stored) { body($0) }
        }
    }

    /// The stored entry (as the tree holds it) of a tree map's `key`, nil if
    /// absent; valid until the next write. Not generic and returning no
    /// closure's result: a generic caller (Map's subscript) then passes no
    /// `Value?` through generic code, whose metadata would be looked up at
    /// run time on every read.
    func mapEntry(_ marker: SpilledList, _ key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let tree = listsTree()
        guard tree != absentTree else { return nil }
        if EntryKey.isLong(key) { return findEntry(marker, Array(key), isMap: true)?.value }
        return EntryKey.withKey(marker.id, key) { txn.get(tree, $0, "Reading a collection entry").map { bytes(of: $0) } }
    }

    /// The value (as the field holds it) of `entry`, a tree map's entry
    /// from mapEntry: in the entry, or decoded into `scratch` (16 bytes)
    /// when the tree stores Ints in another form. A scratch pointer rather
    /// than a closure: called from generic code, a closure returning the
    /// value would go through unspecialized stdlib helpers.
    func mapValueField(_ marker: SpilledList, _ entry: UnsafeRawBufferPointer, scratch: UnsafeMutableRawPointer) -> UnsafeRawBufferPointer {
        let value = MapEntry.split(entry).value
        guard let ints = marker.encoding.ints else { return value }
        return TreeElementEncoding(ints: ints, form: marker.encoding.form).fieldBytes(value, scratch: scratch)
    }

    /// A set element (`isMap` false) as its tree entries are keyed (the
    /// marker's encoding), or a map key as it is, lent to `body`.
    @inline(__always)
    private func withStoredContent<R>(_ marker: SpilledList, _ content: UnsafeRawBufferPointer, isMap: Bool,
                                      _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if isMap || marker.encoding.isPlain { return body(content) }
        return marker.encoding.withStoredElement(content, body)
    }

    /// The tree key and stored value of the entry of a tree set (`isMap`
    /// false) or map whose element or map key is `content` (as the field
    /// holds it); nil if absent. The value is valid until the next write.
    func findEntry(_ marker: SpilledList, _ content: [UInt8], isMap: Bool) -> (key: [UInt8], value: UnsafeRawBufferPointer)? {
        let tree = listsTree()
        guard tree != absentTree else { return nil }
        let keyed = isMap ? content : marker.encoding.stored(content)
        return keyed.withUnsafeBytes { content in
            let key = EntryKey.key(marker.id, content)
            if !EntryKey.isLong(content) {
                let value = withBytesKey(key) { txn.get(tree, $0, "Reading a collection entry") }
                return value.map { (key, bytes(of: $0)) }
            }
            guard let cursor = cursor(tree) else { return nil }
            var found: (key: [UInt8], value: UnsafeRawBufferPointer)?
            key.withUnsafeBytes { prefix in
                cursor.forEach(prefix: prefix) { entryKey, value in
                    guard sameBytes(SpilledList.content(of: bytes(of: value), isMap: isMap), content) else { return true }
                    found = ([UInt8](copying: bytes(of: entryKey)), bytes(of: value))
                    return false
                }
            }
            return found
        }
    }

    /// Stores `value` (a set element, or a map entry, as the field holds
    /// it) in a tree set or map, replacing the entry with the same content;
    /// returns the value replaced.
    @discardableResult
    func putEntry(_ marker: SpilledList, _ value: [UInt8], isMap: Bool, in write: WriteTransaction) -> [UInt8]? {
        let content = value.withUnsafeBytes { [UInt8](copying: SpilledList.content(of: $0, isMap: isMap)) }
        let stored = marker.encoding.stored(value)
        if let existing = findEntry(marker, content, isMap: isMap) {
            let old = marker.encoding.field(existing.value)
            write.put(listsTree(create: true), existing.key, stored, "Storing a collection entry")
            return old
        }
        let keyed = isMap ? content : stored
        write.put(listsTree(create: true), newEntryKey(marker.id, keyed), stored, "Storing a collection entry")
        return nil
    }

    /// Removes the entry whose element or map key is `content`; returns its value.
    func removeEntry(_ marker: SpilledList, _ content: [UInt8], isMap: Bool, in write: WriteTransaction) -> [UInt8]? {
        guard let existing = findEntry(marker, content, isMap: isMap) else { return nil }
        let old = marker.encoding.field(existing.value)
        write.delete(listsTree(create: true), existing.key, "Removing a collection entry")
        return old
    }

    /// Puts a set's elements or a map's entries (distinct, as in its field)
    /// of a column whose elements are of `type` into the tree under a new id.
    func storeEntries(_ values: [[UInt8]], type: TreeElementEncoding, in write: WriteTransaction) -> SpilledList {
        let marker = listStore([], type: type, in: write)
        let tree = listsTree(create: true)
        for value in values {
            let stored = marker.encoding.stored(value)
            let content = stored.withUnsafeBytes { [UInt8](copying: SpilledList.content(of: $0, isMap: type.isMap)) }
            write.put(tree, newEntryKey(marker.id, content), stored, "Storing a collection entry")
        }
        return marker.updated(count: values.count, serial: 0)
    }

    /// The key of a new entry (absent content): the content's key, or for
    /// long content its prefix and a counter past the last entry under it.
    private func newEntryKey(_ id: UInt64, _ content: [UInt8]) -> [UInt8] {
        content.withUnsafeBytes { content in
            let key = EntryKey.key(id, content)
            guard EntryKey.isLong(content) else { return key }
            var last: UInt32 = 0
            if let cursor = cursor(listsTree()) {
                key.withUnsafeBytes { prefix in
                    cursor.forEach(prefix: prefix, values: false) { entryKey, _ in
                        let raw = bytes(of: entryKey)
                        if raw.count == prefix.count + 4 {
                            last = max(last, UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: prefix.count, as: UInt32.self)))
                        }
                        return true
                    }
                }
            }
            var out = key
            withUnsafeBytes(of: (last + 1).bigEndian) { out.append(contentsOf: $0) }
            return out
        }
    }
}
