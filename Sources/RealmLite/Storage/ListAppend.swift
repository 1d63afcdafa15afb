// One `append` to a List in the lists tree (ListTree.swift) puts one entry
// after the list's last key and writes the owner's new marker. Finding the
// last key is a seek from the tree's root; a loop of appends in one write
// would pay it per element. So the write remembers the tree key its last
// append put (`ListAppendState`) and the next append to the same list takes
// the key after it, as long as nothing at all was written in between: the
// core's generation, which every write bumps, is the one the append left,
// and the marker in the owner's record is the one it wrote. Any other write
// (another edit of this list, another list, a record, a cancelled write's
// successor) makes the next append seek again. The put itself then lands
// past the last key of a page the write just changed, which the engine's
// append hints find without a search when the list is the tree's last.

/// What the write's last append to a tree list left (WriteTransaction.listAppend).
struct ListAppendState {
    /// The list and the marker the append wrote (id, serial, count).
    var id: UInt64 = 0
    var serial: UInt32 = 0
    var count = 0
    /// The core's generation after the append; 0 while there is none.
    var generation: UInt64 = 0
    /// The tree key the append put: list id (u64 BE) ++ order key.
    var lastKey: [UInt8] = []
    /// The element bytes of the append in progress (kept for its capacity).
    var element: [UInt8] = []

    /// True if the last append was to `list` and nothing was written since.
    func continues(_ list: SpilledList, generation now: UInt64) -> Bool {
        generation == now && generation != 0 && id == list.id && serial == list.serial && count == list.count
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
    /// Puts `element` after the last entry of `list` (in the tree). `state`
    /// is the write's last append (its key is the list's last when
    /// `continues`), updated here to this one's key.
    func listAppend(_ list: SpilledList, _ element: [UInt8], continues: Bool, state: inout ListAppendState,
                    in write: WriteTransaction) {
        let tree = listsTree(create: true)
        if !continues {
            guard let cursor = write.context.cursor(tree) else { return }
            state.lastKey.removeAll(keepingCapacity: true)
            appendBigEndian(list.id, to: &state.lastKey)
            state.lastKey.append(contentsOf: lastOrderKey(list, cursor) ?? OrderKey.counter(OrderKey.firstCounter - 1))
        }
        OrderKey.advance(&state.lastKey, from: 8)
        write.put(tree, state.lastKey, element, "Storing a list element")
    }
}

extension CollectionField {
    /// `list.append(value)` of a List in the lists tree: a new marker and
    /// one put. False (nothing done) if the list is not in the tree.
    func appendToTree<E: _RealmElement>(_ value: E) -> Bool {
        guard !isNested, spilledList != nil else { return false }
        let realm = self.realm
        let write = realm.requireWrite("modify '\(name)'")
        // Taken out of the write while in use: encoding an unmanaged object
        // adds it, and that may append to other lists.
        var state = ListAppendState()
        swap(&state, &write.listAppend)
        defer { swap(&state, &write.listAppend) }
        state.element.removeAll(keepingCapacity: true)
        guard realm.recording({ try E._rlmEncodeElement(value, &state.element, realm) }) != nil else { return true }
        // Read after encoding, which may have written (the marker stays).
        guard let list = spilledList else {
            splice(elementCount..<elementCount, with: [state.element])
            return true
        }
        let before = stateForLog
        let continues = state.continues(list, generation: realm.generation)
        var delta: (removed: [UInt64], added: [UInt64]) = ([], [])
        if owner._info.unsafelyUnwrapped.columns[column].isLink,
           let target = state.element.withUnsafeBytes({ linkTarget(ofElement: $0, .list) }) {
            delta.added = [target]
        }
        // The marker first: the record just read is still current for it.
        updateMarker(list, count: list.count + 1, delta)
        realm.listAppend(list, state.element, continues: continues, state: &state, in: write)
        if write.error == nil {
            (state.id, state.serial, state.count, state.generation) = (list.id, list.serial &+ 1, list.count + 1, realm.generation)
        } else {
            state.generation = 0
        }
        logEdit(.replace(list.count..<list.count, count: 1), from: before)
        return true
    }
}
