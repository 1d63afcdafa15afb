import CStorage

// One `append` to a List in the lists tree (ListTree.swift) puts one entry
// after the list's last key and changes the owner's marker. A loop of
// appends in one write would pay per element a seek from the tree's root
// for the last key and a rewrite of the owner's record, so the write keeps
// the state of its last append (`ListAppendState`) and a run of appends to
// one list, with nothing else written in between (the core's generation,
// which every write bumps, is the one the last append left), costs one put
// per element:
//
// - the next append takes the tree key after the one the last append put,
//   without a seek; the engine's append hints find the page without a
//   search when the list is the tree's last;
// - for a list of values, the run's marker (count, serial bumped once per
//   run) stays pending in this state and is written to the owner's record
//   when anything else reaches the engine: WriteTransaction.context, which
//   every read and write of the transaction goes through, writes it first
//   (so a read of the record, the list, a query, another write, or the
//   commit sees it), and cancel drops it. A pointer read before the run is
//   stale anyway (the run's puts bumped the generation), and iterators
//   re-seek through the core when the generation moved. The run is one
//   change-log edit, noted when the marker is written.
//
// A list of links writes its marker with every append: the marker carries
// the backlink change.

/// What the write's last append to a tree list left (WriteTransaction.listAppend).
struct ListAppendState {
    /// The list: its owner (nil when there is no run) and column.
    var owner: ObjectBase?
    var column = 0
    /// The list's marker as the run leaves it (its record holds it unless `deferred`).
    var id: UInt64 = 0
    var serial: UInt32 = 0
    var count = 0
    /// How the list's entries hold elements (its marker's).
    var encoding = TreeElementEncoding.plain
    /// The marker is pending (WriteTransaction's hot state says so too).
    var deferred = false
    /// The count when the run began, and the list's state then for the
    /// change log (nil: its edits are not noted).
    var startCount = 0
    var logBefore: CollectionState?
    /// The core's generation after the append; 0 while there is none.
    var generation: UInt64 = 0
    /// The tree key the append put: list id (u64 BE) ++ order key.
    var lastKey: [UInt8] = []
    /// The element bytes of the append in progress (kept for its capacity).
    var element: [UInt8] = []

    /// True if the last append was to this list and nothing was written since.
    @inline(__always)
    func continues(_ owner: ObjectBase, _ column: Int, generation now: UInt64) -> Bool {
        guard generation == now, generation != 0, self.column == column, let last = self.owner else { return false }
        return last === owner || (last._key == owner._key && last._info === owner._info)
    }
}

extension OrderKey {
    /// Replaces the order key at the end of `key` (after `offset` bytes)
    /// with the next one, as `after` would make it; in place when it is a
    /// counter (every key appends make), without allocating.
    static func advance(_ key: inout [UInt8], from offset: Int) {
        let length = key.count - offset - 1
        if length >= 1, length <= 8, Int(key[offset]) == length, key[offset + 1] != 0 || length == 1 {
            var value: UInt64 = 0
            for i in 1...length { value = value << 8 | UInt64(key[offset + i]) }
            if value < .max {
                let next = value + 1
                let newLength = max(1, (64 - next.leadingZeroBitCount + 7) / 8)
                if newLength != length {
                    key.removeLast(length + 1)
                    key.append(UInt8(newLength))
                    for _ in 0..<newLength { key.append(0) }
                }
                key[offset] = UInt8(newLength)
                for i in 0..<newLength { key[offset + newLength - i] = UInt8(truncatingIfNeeded: next >> (8 * UInt64(i))) }
                return
            }
        }
        let next = key.withUnsafeBytes { OrderKey.after(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
        key.removeLast(key.count - offset)
        key.append(contentsOf: next)
    }
}

extension RealmCore {
    /// Puts `element` (as the field holds it) after the last entry of `list` (in the tree): after
    /// the write's last append's key when `continues`, else after the key
    /// a seek finds. The key put is left in `write.listAppend.lastKey`.
    func listAppend(_ list: SpilledList, _ element: [UInt8], continues: Bool, in write: WriteTransaction) {
        let tree = listsTree(create: true)
        var key: [UInt8] = []
        swap(&key, &write.listAppend.lastKey)
        defer { swap(&key, &write.listAppend.lastKey) }
        if !continues {
            guard let cursor = write.context.cursor(tree) else { return }
            key.removeAll(keepingCapacity: true)
            appendBigEndian(list.id, to: &key)
            key.append(contentsOf: lastOrderKey(list, cursor) ?? OrderKey.counter(OrderKey.firstCounter - 1))
        }
        OrderKey.advance(&key, from: 8)
        write.put(tree, key, list.encoding.stored(element), "Storing a list element")
    }
}

extension WriteTransaction {
    /// The next append of a run of a list of values: one put after the
    /// run's last key; the marker stays pending.
    @inline(__always)
    func continueAppendRun(_ element: [UInt8], tree: cs_tree, generation: () -> UInt64) {
        OrderKey.advance(&listAppend.lastKey, from: 8)
        let encoding = listAppend.encoding
        let stored = listAppend.lastKey.withUnsafeBytes { key in
            element.withUnsafeBytes { field in
                encoding.withStoredElement(field) { value in
                    putInAppendRun(tree, cs_val(data: key.baseAddress, size: key.count), cs_val(data: value.baseAddress, size: value.count),
                                   "Storing a list element")
                }
            }
        }
        // A failed put leaves the count and the run as they were (commit throws its error).
        if _fastPath(stored) {
            listAppend.count += 1
            listAppend.generation = generation()
        }
    }

    /// Writes the pending marker of a run of appends to its owner's record
    /// and notes the run in the change log. Every engine access of the
    /// transaction calls it first while one is pending (`context`).
    @inline(never)
    func flushListAppend() {
        hot.pointee.listAppendPending = false
        guard listAppend.deferred, let owner = listAppend.owner else { return }
        listAppend.deferred = false
        listAppend.owner = nil
        let state = listAppend
        let field = CollectionField(owner: owner, column: state.column)
        field.writeMarker(SpilledList(count: state.count, id: state.id, serial: state.serial, type: state.encoding))
        if let before = state.logBefore {
            field.logEdit(.replace(state.startCount..<state.startCount, count: state.count - state.startCount), from: before)
        }
    }

    /// Forgets a pending marker (the write is being cancelled).
    func discardListAppend() {
        hot.pointee.listAppendPending = false
        listAppend.deferred = false
        listAppend.owner = nil
    }
}

extension CollectionField {
    /// `list.append(value)` of a List in the lists tree: one put, and a
    /// new marker now (links) or when the run ends (values). False
    /// (nothing done) if the list is not in the tree.
    func appendToTree<E: _RealmElement>(_ value: E) -> Bool {
        guard !isNested else { return false }
        let realm = self.realm
        let write = realm.requireWrite("modify '\(name)'")
        let continuing = write.listAppend.continues(owner, column, generation: realm.generation)
        if !continuing, spilledList == nil { return false }
        var element: [UInt8] = []
        swap(&element, &write.listAppend.element)
        defer { swap(&element, &write.listAppend.element) }
        element.removeAll(keepingCapacity: true)
        // Encoding may write (an unmanaged object is added): checked again after it.
        guard realm.recording({ try E._rlmEncodeElement(value, &element, realm) }) != nil else { return true }
        if continuing, write.listAppend.deferred, write.listAppend.continues(owner, column, generation: realm.generation) {
            write.continueAppendRun(element, tree: realm.listsTreeHandle) { realm.generation }
            return true
        }
        // Reading the marker writes any pending one (this list's too).
        guard let list = spilledList else {
            splice(elementCount..<elementCount, with: [element])
            return true
        }
        let state = write.listAppend
        let keyContinues = state.continues(owner, column, generation: realm.generation)
            && state.id == list.id && state.serial == list.serial && state.count == list.count
        let before = stateForLog
        let isLink = owner._info.unsafelyUnwrapped.columns[column].isLink
        if isLink {
            var delta: (removed: [UInt64], added: [UInt64]) = ([], [])
            if let target = element.withUnsafeBytes({ linkTarget(ofElement: $0, .list) }) { delta.added = [target] }
            // The marker first: the record just read is still current for it.
            updateMarker(list, count: list.count + 1, delta)
        }
        realm.listAppend(list, element, continues: keyContinues, in: write)
        guard write.error == nil else {
            write.listAppend.owner = nil
            return true
        }
        write.listAppend.owner = owner
        write.listAppend.column = column
        (write.listAppend.id, write.listAppend.serial, write.listAppend.count) = (list.id, list.serial &+ 1, list.count + 1)
        write.listAppend.encoding = list.encoding
        write.listAppend.generation = realm.generation
        if isLink {
            write.listAppend.deferred = false
            logEdit(.replace(list.count..<list.count, count: 1), from: before)
        } else {
            write.listAppend.deferred = true
            write.listAppend.startCount = list.count
            write.listAppend.logBefore = before
            write.hot.pointee.listAppendPending = true
        }
        return true
    }
}
