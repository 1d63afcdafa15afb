// Links held by AnyRealmValue columns (properties and collections of mixed
// values). A mixed column may link to any class, so its backlink tree
// `bl:C.p` is keyed by the target's class name too:
//
//   [target class name (UTF-8)] 0x00 [target key u64 BE] [source key u64 BE] -> link count (u32 LE)
//
// Deleting an object scans, for each mixed column of the schema, the prefix
// (class, key) and rewrites the sources' values to .none, as Realm does.

extension RealmCore {
    func mixedBacklinkPrefix(_ target: MixedLink) -> [UInt8] {
        var key = Array(target.className.utf8)
        key.append(0)
        appendBigEndian(target.key, to: &key)
        return key
    }

    func mixedBacklinkKey(_ target: MixedLink, source: UInt64) -> [UInt8] {
        var key = mixedBacklinkPrefix(target)
        appendBigEndian(source, to: &key)
        return key
    }

    /// Applies the change old -> new of one source's mixed links.
    func adjustMixedBacklinks(_ column: Column, source: UInt64, in write: WriteTransaction, old: [MixedLink], new: [MixedLink]) {
        var delta: [MixedLink: Int] = [:]
        for target in old { delta[target, default: 0] -= 1 }
        for target in new { delta[target, default: 0] += 1 }
        for (target, change) in delta where change != 0 {
            let key = mixedBacklinkKey(target, source: source)
            let stored = withBytesKey(key) { txn.get(column.backlinkTree, $0, "Reading a link of '\(column.name)'") }
            let current = stored.map { $0.size == 4 ? Int(UnsafeRawPointer($0.data!).loadUnaligned(as: UInt32.self)) : 0 } ?? 0
            let count = current + change
            if count <= 0 {
                write.delete(column.backlinkTree, key, "Deleting a link of '\(column.name)'")
            } else {
                write.put(column.backlinkTree, key, withUnsafeBytes(of: UInt32(count).littleEndian) { Array($0) }, "Recording a link of '\(column.name)'")
            }
        }
    }

    /// The objects whose `column` links to `target`, in key order.
    func mixedBacklinkSources(_ column: Column, target: MixedLink) -> [UInt64] {
        guard let cursor = cursor(column.backlinkTree) else { return [] }
        let prefix = mixedBacklinkPrefix(target)
        var sources: [UInt64] = []
        prefix.withUnsafeBytes { prefix in
            cursor.forEach(prefix: prefix, values: false) { key, _ in
                guard key.size == prefix.count + 8 else { return false }
                sources.append(keyValue(key, at: prefix.count))
                return true
            }
        }
        return sources
    }

    /// Deleting object `key` of `info`: every mixed value linking to it
    /// becomes .none.
    func clearMixedLinks(to info: ClassInfo, _ key: UInt64, in write: WriteTransaction) {
        let target = MixedLink(className: info.name, key: key)
        for (source, c) in schemaState.mixedColumns {
            let column = source.columns[c]
            for sourceKey in mixedBacklinkSources(column, target: target) {
                write.delete(column.backlinkTree, mixedBacklinkKey(target, source: sourceKey), "Deleting a link of '\(column.name)'")
                if source === info && sourceKey == key { continue }
                guard let value = loadRecord(source, sourceKey) else { continue }
                let record = RecordView(base: UnsafeRawPointer(value.data!), size: value.size)
                let slot = source.slots[c]
                guard let replaced = mixedFieldRemovingLink(target, column, isNull: record.isNull(slot), record.field(slot, source.layout)) else { continue }
                let newRecord = replaced.bytes.withUnsafeBytes { replacingColumn(record, slot, source.layout, isNull: replaced.isNull, $0) }
                if column.isIndexed {
                    // `record` points into the map: read the old entry before writing.
                    let old = indexEntry(column, record.isNull(slot), record.field(slot, source.layout), sourceKey)
                    write.delete(column.indexTree, old, "Deleting an index entry")
                    newRecord.withUnsafeBytes { raw in
                        let view = RecordView(base: raw.baseAddress!, size: raw.count)
                        write.put(column.indexTree, indexEntry(column, view.isNull(slot), view.field(slot, source.layout), sourceKey), [],
                                  "Indexing '\(source.name).\(column.name)'")
                    }
                }
                putRecord(source, sourceKey, newRecord, in: write)
            }
        }
    }

    /// Deleting object `key` of `info`: its own mixed links go.
    func dropMixedLinks(from info: ClassInfo, _ key: UInt64, _ record: RecordView, in write: WriteTransaction) {
        for c in info.mixedColumns {
            let column = info.columns[c]
            let slot = info.slots[c]
            for target in Set(mixedLinkTargets(column, isNull: record.isNull(slot), record.field(slot, info.layout))) {
                write.delete(column.backlinkTree, mixedBacklinkKey(target, source: key), "Deleting a link of '\(column.name)'")
            }
        }
    }
}
