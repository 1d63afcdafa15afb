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
// Stamps: (transaction id << 24) | serial. A read snapshot T is born at
// (T << 24) | 0xFFFFFF, after every delete committed by T. Inside a write
// transaction (which commits as T+1) the serial counts this write's
// deletes, so an accessor made after a delete is newer than it, and one
// made before is older. Left alone: an accessor made inside a write that was
// then cancelled, whose key another writer deletes and re-adds in the next
// transaction, is not detected (the serials of the two writes are unrelated).
// The `del:` tree keeps one entry per deleted key (a delete-everything
// replaces them all with one).

extension RealmCore {
    private static let snapshotSerial: UInt64 = 0xFF_FFFF

    /// The stamp of an accessor made now (cached per generation: iteration
    /// materializes many objects in one generation). A frozen core is read
    /// by several threads at once, so it caches nothing: its stamp is fixed.
    @inline(__always)
    func accessorStamp() -> UInt64 {
        if let frozenReaders { return cs_txn_id(frozenReaders.base) << 24 | Self.snapshotSerial }
        if stampGeneration == generation { return stamp }
        return accessorStampSlow()
    }

    @inline(never)
    private func accessorStampSlow() -> UInt64 {
        if let writeTxn {
            stamp = cs_txn_id(writeTxn) << 24 | currentDeleteSerial(writeTxn)
        } else {
            stamp = cs_txn_id(txn) << 24 | Self.snapshotSerial
        }
        stampGeneration = generation
        return stamp
    }

    /// This write's delete count (kept across a cancel: the retry commits
    /// under the same transaction id).
    private func currentDeleteSerial(_ writeTxn: OpaquePointer) -> UInt64 {
        let id = cs_txn_id(writeTxn)
        if id != deleteSerialTxn {
            deleteSerialTxn = id
            deleteSerial = 0
        }
        return deleteSerial
    }

    /// Records the delete of `key` (nil: of every object) of a keyed class.
    func recordDelete(_ info: ClassInfo, key: UInt64?) {
        guard let writeTxn else { return }
        deleteSerial = min(currentDeleteSerial(writeTxn) + 1, Self.snapshotSerial - 1)
        let stamp = (cs_txn_id(writeTxn) << 24 | deleteSerial).littleEndian
        generation &+= 1 // accessors made from here on are newer
        var rc: Int32 = csOK
        if key == nil {
            rc = cs_tree_clear(writeTxn, info.deletedTree)
            if rc == csNotFound { rc = csOK }
        }
        if rc == csOK {
            rc = withUnsafeBytes(of: stamp) { value in
                let put = { (k: cs_val) in cs_put(writeTxn, info.deletedTree, k, cs_val(data: value.baseAddress, size: 8), 0) }
                if let key { return withKey(key, put) }
                return withBytesKey([0], put)
            }
        }
        if rc != csOK { fail(storageError(rc, "Recording the delete of a '\(info.name)' object")) }
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
    func isIncarnation(_ info: ClassInfo, key: UInt64, bornAt born: UInt64) -> Bool {
        guard info.keyedByPrimaryKey else { return true }
        var deletes: UInt64 = 0
        guard cs_count(txn, info.deletedTree, &deletes) == csOK, deletes > 0 else { return true }
        return deleteStamp(info, nil) <= born && deleteStamp(info, key) <= born
    }

    /// Keys of `info` deleted (and maybe added again) between `old` and this
    /// core's snapshot, as key bytes; nil if every object was deleted.
    /// Collection changes report such a key as a deletion and an insertion.
    func deletedKeys(_ info: ClassInfo, since old: RealmCore) -> Set<[UInt8]>? {
        guard info.keyedByPrimaryKey else { return [] }
        final class Collector {
            var keys = Set<[UInt8]>()
            var all = false
        }
        let collector = Collector()
        let rc = cs_tree_diff(old.txn, txn, info.deletedTree, { ctx, kind, key, _, _ in
            guard kind != CS_DIFF_DELETE else { return 0 }
            let collector = Unmanaged<Collector>.fromOpaque(ctx!).takeUnretainedValue()
            let bytes = Array(UnsafeRawBufferPointer(start: key.data, count: key.size))
            if bytes == [0] { collector.all = true } else { collector.keys.insert(bytes) }
            return 0
        }, Unmanaged.passUnretained(collector).toOpaque())
        mustSucceed(rc, "Comparing versions for a notification")
        return collector.all ? nil : collector.keys
    }

    /// When `key` (nil: every object) was last deleted; 0 if never.
    private func deleteStamp(_ info: ClassInfo, _ key: UInt64?) -> UInt64 {
        var value = cs_val()
        let txn = self.txn
        let get = { (k: cs_val) in cs_get(txn, info.deletedTree, k, &value) }
        let rc = key.map { withKey($0, get) } ?? withBytesKey([0], get)
        guard rc == csOK, value.size == 8 else { return 0 }
        return UInt64(littleEndian: UnsafeRawPointer(value.data!).loadUnaligned(as: UInt64.self))
    }
}
