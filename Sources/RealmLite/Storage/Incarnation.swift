import CStorage

// Accessors of classes keyed by their primary key (ClassInfo.keyedByPrimaryKey).
//
// Why this exists: elsewhere object keys are never reused, so "the key is in
// the snapshot" means "my object still exists". A keyed class reuses a key
// whenever an object is deleted and another is added with the same primary
// key. An accessor of the deleted object must stay invalidated (as in
// Realm), not start showing the new object.
//
// How: every accessor of a keyed class records when it was made (`_born`),
// and every delete records when it happened, in the class's `del:` tree
// (object key -> stamp; key [0] -> stamp of the last delete-everything). An
// accessor whose key was deleted after its birth is invalid, even if the key
// exists again. The check runs only when an accessor re-reads its record
// (after a write, refresh or commit) and only if the class has ever had a
// delete (the tree's O(1) count), so reads and iteration pay nothing.
//
// Stamps (Incarnation): (transaction id << 24) | serial, and the write
// attempt that made them. A read snapshot T is born at (T << 24) | 0xFFFFFF,
// after every delete committed by T. Inside a write transaction (which
// commits as T+1) the serial counts this write's deletes, so an accessor
// made after a delete is newer than it, and one made before is older. A
// cancelled write's transaction id is used again by the next write, possibly
// in another process; the write attempt (a random number per write) tells
// its accessors apart: a delete committed under their transaction id by
// another attempt came after them. The `del:` tree keeps one entry per
// deleted key (a delete of every object replaces them all with one).

/// When an accessor was made, or when a delete happened.
struct Incarnation: Equatable {
    /// (transaction id << 24) | serial.
    var stamp: UInt64
    /// The write attempt that made it; 0 for a read snapshot.
    var write: UInt64

    static let never = Incarnation(stamp: 0, write: 0)

    /// True if this delete happened after an accessor made at `born`.
    func isAfter(_ born: Incarnation) -> Bool {
        if stamp >> 24 != born.stamp >> 24 || born.write == 0 { return stamp > born.stamp }
        // Both under one transaction id: by the accessor's own write, the
        // serials order them; by another attempt, the accessor's write was
        // cancelled, and everything committed under that id came after it.
        return write != born.write || stamp > born.stamp
    }
}

extension RealmCore {
    private static let snapshotSerial: UInt64 = 0xFF_FFFF

    /// When an accessor made now is born (cached per generation: iteration
    /// materializes many objects in one generation). A frozen core is read
    /// by several threads at once, so it caches nothing: its stamp is fixed.
    @inline(__always)
    func accessorStamp() -> Incarnation {
        // Compared, not bound: binding would retain the readers per accessor.
        if frozenReaders == nil, stampGeneration == generation { return stamp }
        return accessorStampSlow()
    }

    @inline(never)
    private func accessorStampSlow() -> Incarnation {
        if let frozenReaders { return Incarnation(stamp: frozenReaders.base.id << 24 | Self.snapshotSerial, write: 0) }
        if let write {
            stamp = Incarnation(stamp: write.txn.id << 24 | write.deleteSerial, write: write.attempt)
        } else {
            stamp = Incarnation(stamp: txn.id << 24 | Self.snapshotSerial, write: 0)
        }
        stampGeneration = generation
        return stamp
    }

    /// Records the delete of `key` (nil: of every object) of a keyed class.
    func recordDelete(_ info: ClassInfo, key: UInt64?) {
        guard let write else { return }
        write.deleteSerial = min(write.deleteSerial + 1, Self.snapshotSerial - 1)
        let value = [(write.txn.id << 24 | write.deleteSerial).littleEndian, write.attempt.littleEndian]
        generation &+= 1 // accessors made from here on are newer
        let what = "Recording the delete of a '\(info.name)' object"
        if key == nil { write.clear(info.deletedTree, what) }
        if write.error != nil { return }
        value.withUnsafeBytes { value in
            let put = { (k: cs_val) in write.put(info.deletedTree, k, cs_val(data: value.baseAddress, size: value.count), what) }
            _ = key.map { withKey($0, put) } ?? withBytesKey([0], put)
        }
    }

    /// False if `object`'s key was deleted after the accessor was made (the
    /// key now holds another object, or none); the accessor then stays
    /// invalidated.
    func isSameIncarnation(_ object: ObjectBase, _ info: ClassInfo) -> Bool {
        guard info.keyedByPrimaryKey else { return true }
        if object._deleted { return false }
        if isIncarnation(info, key: object._key, bornAt: object._born) { return true }
        object._deleted = true
        return false
    }

    /// True unless `key` was deleted in this core's snapshot after `born`.
    func isIncarnation(_ info: ClassInfo, key: UInt64, bornAt born: Incarnation) -> Bool {
        guard info.keyedByPrimaryKey else { return true }
        guard txn.count(info.deletedTree, "Reading the deletes of '\(info.name)'") > 0 else { return true }
        return !deleteStamp(info, nil).isAfter(born) && !deleteStamp(info, key).isAfter(born)
    }

    /// Keys of `info` deleted (and maybe added again) between `old` and this
    /// core's snapshot, as key bytes; nil if every object was deleted.
    /// Collection changes report such a key as a deletion and an insertion.
    func deletedKeys(_ info: ClassInfo, since old: RealmCore) -> Set<[UInt8]>? {
        guard info.keyedByPrimaryKey else { return [] }
        var keys = Set<[UInt8]>()
        var all = false
        txn.changes(from: old.txn, in: info.deletedTree, "Comparing versions for a notification") { kind, key, _, _ in
            guard kind != CS_DIFF_DELETE else { return }
            let entry = Array(bytes(of: key))
            if entry == [0] { all = true } else { keys.insert(entry) }
        }
        return all ? nil : keys
    }

    /// When `key` (nil: every object) was last deleted; `never` if never.
    private func deleteStamp(_ info: ClassInfo, _ key: UInt64?) -> Incarnation {
        let txn = self.txn
        let get = { (k: cs_val) in txn.get(info.deletedTree, k, "Reading a delete of '\(info.name)'") }
        let value = key.map { withKey($0, get) } ?? withBytesKey([0], get)
        guard let value, value.size == 16, let bytes = value.data else { return .never }
        return Incarnation(stamp: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)),
                           write: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    }
}
