import CStorage

// The write side of the object store: inserting records, changing one
// column, deleting rows, and keeping the primary-key, index and backlink
// trees in step with the records. Entry points: Core/RealmCore+Mutations.swift.
//
// Every change goes through the WriteTransaction (Core/WriteTransaction.swift),
// which records the first failure (the write then cancels and throws it);
// each operation stops at its first error.

extension RealmCore {
    // MARK: - Raw records

    @discardableResult
    func putRecord(_ info: ClassInfo, _ key: UInt64, _ record: [UInt8], in write: WriteTransaction) -> Bool {
        record.withUnsafeBytes { putRecord(info, key, $0, in: write) }
    }

    @discardableResult
    func putRecord(_ info: ClassInfo, _ key: UInt64, _ record: UnsafeRawBufferPointer, in write: WriteTransaction) -> Bool {
        withKey(key) { k in
            write.put(info.objectsTree, k, cs_val(data: record.baseAddress, size: record.count), "Writing a '\(info.name)' object")
        }
    }

    // MARK: - Insert

    private func takeRecordScratch() -> [UInt8] {
        var buffer: [UInt8] = []
        swap(&buffer, &recordScratch)
        return buffer
    }

    /// Adds an unmanaged object (and the unmanaged objects it links to).
    /// Returns its key, or nil after recording an error.
    @discardableResult
    func insert(_ object: ObjectBase, update: UpdatePolicy, mask: Set<Int>? = nil, asEmbedded: Bool = false,
                in write: WriteTransaction) -> UInt64? {
        if let owner = object._realm {
            guard owner === self else {
                fail(Realm.Error(.wrongRealm, "Object of type '\(type(of: object).className())' is managed by another Realm; create a copy with realm.create(\(type(of: object).className()).self, value: object) instead."))
                return nil
            }
            guard !object._deleted, let info = object._info,
                  write.inserting.contains(ObjectIdentifier(object))
                    || (loadRecord(info, object._key) != nil && isSameIncarnation(object, info)) else {
                fail(.invalidated(type(of: object).className()))
                return nil
            }
            return object._key
        }
        guard let info = recording({ try (object as? DynamicObject)?.unmanagedInfo ?? classInfo(for: type(of: object)) }) else { return nil }
        if info.isEmbedded && !asEmbedded {
            fail(Realm.Error(.invalidValue, "Embedded object of type '\(info.name)' cannot be added to a Realm on its own; assign it to a property of its parent object."))
            return nil
        }
        var key: UInt64 = 0
        if info.keyedByPrimaryKey, let pk = info.primaryKeyColumn {
            // The primary key is the object key: a record under it is a duplicate.
            guard let entry = info.accessors[pk].unmanagedIndexKey(object), entry.count == 9, entry[0] == 1 else {
                fail(Realm.Error(.invalidValue, "Primary key of '\(info.name).\(info.columns[pk].name)' must be an Int."))
                return nil
            }
            key = entry.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 1, as: UInt64.self)) }
            if loadRecord(info, key) != nil {
                guard update != .error else {
                    fail(duplicatePrimaryKey(object, info, pk))
                    return nil
                }
                return updateExisting(object, info, key: key, mask: mask, in: write)
            }
        } else {
            guard let next = recording({ try newObjectKey(info, in: write) }) else { return nil }
            key = next
        }
        if !info.keyedByPrimaryKey, let pk = info.primaryKeyColumn, let entry = info.accessors[pk].unmanagedIndexKey(object) {
            if entry.count >= maxIndexedValueBytes {
                fail(Realm.Error(.invalidValue, "Primary key of '\(info.name).\(info.columns[pk].name)' is too long (at most \(maxIndexedValueBytes - 4) bytes)."))
                return nil
            }
            // Claim the primary key first: one tree descent both checks for a
            // duplicate and indexes the new object (a duplicate wastes the
            // key number, which is harmless: keys are never reused anyway).
            let claim = withKey(key) { objectKey in
                withBytesKey(entry) { write.claim(info.primaryKeyTree, $0, objectKey, "Indexing the primary key of '\(info.name)'") }
            }
            if claim == .exists, let existing = primaryKeyLookup(info, entry: entry) {
                guard update != .error else {
                    fail(duplicatePrimaryKey(object, info, pk))
                    return nil
                }
                return updateExisting(object, info, key: existing, mask: mask, in: write)
            }
            if claim != .claimed {
                if claim == .exists { fail(storageError(csExists, "Indexing the primary key of '\(info.name)'")) }
                return nil
            }
        }
        // Managed from here on, so that links back to it (cycles) resolve.
        object._attach(to: self, info, key: key)
        let mayCycle = !info.linkColumns.isEmpty || !info.mixedColumns.isEmpty
        if mayCycle { write.inserting.insert(ObjectIdentifier(object)) }
        defer { if mayCycle { write.inserting.remove(ObjectIdentifier(object)) } }
        var writer = _RecordWriter(info: info, realm: self, buffer: takeRecordScratch())
        writer.copyPlain(from: UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()), info.plainCopies,
                         ints: info.plainIntCopies)
        let encoded: Void? = recording {
            for column in info.encodedOrder {
                try info.accessors[column].encodeUnmanaged(object, column: column, into: &writer)
            }
        }
        guard encoded != nil else { return nil }
        defer { recordScratch = writer.takeBuffer() }
        let stored = writer.withBytes { raw -> Bool in
            guard putRecord(info, key, raw, in: write) else { return false }
            let view = RecordView(base: raw.baseAddress!, size: raw.count)
            for c in info.indexedColumns {
                let column = info.columns[c]
                let slot = info.slots[c]
                write.put(column.indexTree, indexEntry(column, view.isNull(slot), view.field(slot, info.layout), key), [], "Indexing '\(info.name).\(column.name)'")
            }
            indexFullText(info, key, old: nil, new: view, in: write)
            for c in info.linkColumns {
                let column = info.columns[c]
                let slot = info.slots[c]
                _ = adjustBacklinks(column, source: key, in: write, old: [], new: linkTargets(column, isNull: view.isNull(slot), view.field(slot, info.layout)))
            }
            for c in info.mixedColumns {
                let slot = info.slots[c]
                let links = mixedLinkTargets(info.columns[c], isNull: view.isNull(slot), view.field(slot, info.layout))
                if !links.isEmpty { adjustMixedBacklinks(info.columns[c], source: key, in: write, old: [], new: links) }
            }
            return true
        }
        guard stored else { return nil }
        info.bindColumns(object)
        return key
    }

    private func primaryKeyChange(_ info: ClassInfo, _ column: Column) -> Realm.Error {
        Realm.Error(.primaryKeyChange, "Primary key property '\(info.name).\(column.name)' cannot be changed after the object was added; delete the object and add a new one instead.")
    }

    private func duplicatePrimaryKey(_ object: ObjectBase, _ info: ClassInfo, _ pk: Int) -> Realm.Error {
        let value = describeValue(info.accessors[pk].value(of: object))
        return Realm.Error(.primaryKeyExists, "Attempting to create an object of type '\(info.name)' with an existing primary key value \(value) (property '\(info.name).\(info.columns[pk].name)'); use update: .modified or .all to update the existing object.")
    }

    /// add(update:) / create(update:) on an existing primary key: rewrite the
    /// columns that differ (all of them, or those in mask).
    private func updateExisting(_ object: ObjectBase, _ info: ClassInfo, key: UInt64, mask: Set<Int>?,
                                in write: WriteTransaction) -> UInt64? {
        // Managed from here on (as in insert), so that objects linking back
        // to it (a cycle) link to the existing object instead of updating it
        // again without end. Its values are still read from its fields.
        object._attach(to: self, info, key: key)
        object._recordGeneration = 0
        write.inserting.insert(ObjectIdentifier(object))
        defer { write.inserting.remove(ObjectIdentifier(object)) }
        var writer = _RecordWriter(info: info, realm: self)
        let encoded: Void? = recording {
            for column in info.storageOrder {
                if let mask, !mask.contains(column) {
                    writer.write(column, isNull: true, UnsafeRawBufferPointer(start: nil, count: 0))
                } else {
                    try info.accessors[column].encodeUnmanaged(object, column: column, into: &writer)
                }
            }
        }
        guard encoded != nil else { return nil }
        writer.bytes.withUnsafeBytes { raw in
            let view = RecordView(base: raw.baseAddress!, size: raw.count)
            for column in info.storageOrder where column != info.primaryKeyColumn && (mask?.contains(column) ?? true) {
                let slot = info.slots[column]
                updateColumn(object, column, isNull: view.isNull(slot), view.field(slot, info.layout))
            }
        }
        info.bindColumns(object)
        return key
    }

    /// The object key to store for a link to `value` (of class `target`),
    /// adding `value` if it is unmanaged. `owner` is the (column, object key)
    /// currently holding the link, for which an already managed embedded
    /// object is acceptable (re-assigning the same object).
    func linkKey(for value: ObjectBase, target: ClassInfo?, owner: (Column, UInt64)? = nil) -> UInt64? {
        guard let target else {
            fail(Realm.Error(.objectTypeNotInSchema, "Object type '\(type(of: value).className())' is not in this Realm's schema."))
            return nil
        }
        if value is DynamicObject, value._className != target.name {
            // Typed links are checked by their types; a DynamicObject's class by name.
            fail(Realm.Error(.invalidValue, "Cannot link an object of type '\(value._className)' where a '\(target.name)' is expected."))
            return nil
        }
        if value._realm === self, target.isEmbedded {
            if let (column, ownerKey) = owner, backlinkCount(column, target: value._key, source: ownerKey) > 0 { return value._key }
            fail(Realm.Error(.invalidValue, "Cannot link to an existing managed embedded object of type '\(target.name)': embedded objects have exactly one parent; assign a new unmanaged object instead."))
            return nil
        }
        let write = requireWrite("link to an object of type '\(target.name)'")
        return insert(value, update: write.updatePolicy, asEmbedded: target.isEmbedded, in: write)
    }

    // MARK: - Update one column

    /// Sets one column of a managed object, maintaining the primary key,
    /// indexes and backlinks, and deleting embedded objects it no longer holds.
    /// `linkDelta`, when the caller knows it (collection splices), is the
    /// links removed and added, sparing a scan of both old and new fields.
    func updateColumn(_ object: ObjectBase, _ c: Int, isNull: Bool, _ raw: UnsafeRawBufferPointer,
                      linkDelta: (removed: [UInt64], added: [UInt64])? = nil) {
        guard let info = object._info else { return }
        let column = info.columns[c]
        let write = requireWrite("modify property '\(info.name).\(column.name)'")
        let record = object._currentRecord()
        let slot = info.slots[c]
        if slot.width == ColumnSlot.objectKey {
            // Setting a keyed class's primary key to its current value is allowed (and does nothing).
            if !isNull && withPrimaryKeyBytes(objectKey: object._key, { sameBytes($0, raw) }) { return }
            fail(primaryKeyChange(info, column))
            return
        }
        let oldNull = record.isNull(slot)
        let oldField = record.field(slot, info.layout)
        if oldNull == isNull && (isNull || sameField(slot, oldField, raw)) { return }
        if column.isPrimary {
            fail(primaryKeyChange(info, column))
            return
        }
        var newRecord = takeRecordScratch()
        defer { recordScratch = newRecord }
        replacingColumn(record, slot, info.layout, isNull: isNull, raw, into: &newRecord)
        let oldIndex = column.isIndexed ? indexEntry(column, oldNull, oldField, object._key) : nil
        let oldTargets = column.isLink && linkDelta == nil ? resolvedLinkTargets(column, isNull: oldNull, oldField) : []
        let oldMixedLinks = column.isMixed ? mixedLinkTargets(column, isNull: oldNull, oldField) : []
        if column.isFullText {
            // Both texts are read before the index changes (the old one is in the map).
            write.updateFullText(column.fullTextTree, key: object._key, old: oldNull ? nil : oldField, new: isNull ? nil : raw,
                                 "Indexing the words of '\(info.name).\(column.name)'")
        }
        // `record` / `oldField` point into the map: not used past this line.
        if let oldIndex {
            write.delete(column.indexTree, oldIndex, "Deleting an index entry")
            write.put(column.indexTree, indexEntry(column, isNull, raw, object._key), [], "Indexing '\(info.name).\(column.name)'")
        }
        var orphans: [UInt64] = []
        if column.isLink {
            orphans = adjustBacklinks(column, source: object._key, in: write,
                                      old: linkDelta?.removed ?? oldTargets,
                                      new: linkDelta?.added ?? linkTargets(column, isNull: isNull, raw))
        }
        if column.isMixed {
            adjustMixedBacklinks(column, source: object._key, in: write, old: oldMixedLinks,
                                 new: mixedLinkTargets(column, isNull: isNull, raw))
        }
        putRecord(info, object._key, newRecord, in: write)
        if let target = column.target, target.isEmbedded, !write.becomingEmbedded.contains(ObjectIdentifier(target)) {
            for orphan in orphans { deleteRow(target, orphan, in: write) }
        }
    }

    /// updateColumn() of a field whose new bytes have its old size and whose
    /// change has no other effect (no links, index, full-text words or mixed
    /// values: a tree collection's new marker): the record is copied and
    /// the field overwritten in place. False (nothing written) otherwise.
    func overwriteField(_ object: ObjectBase, _ c: Int, _ raw: UnsafeRawBufferPointer) -> Bool {
        guard let info = object._info else { return false }
        let column = info.columns[c]
        guard !column.isLink, !column.isIndexed, !column.isFullText, !column.isMixed, !column.isPrimary else { return false }
        let write = requireWrite("modify property '\(info.name).\(column.name)'")
        let record = object._currentRecord()
        let slot = info.slots[c]
        // A Bool held in its bit reads from static storage, not the record.
        guard slot.width != ColumnSlot.bitBool else { return false }
        let field = record.field(slot, info.layout)
        guard !record.isNull(slot), field.count == raw.count, let start = field.baseAddress, let bytes = raw.baseAddress else { return false }
        var newRecord = takeRecordScratch()
        defer { recordScratch = newRecord }
        newRecord.removeAll(keepingCapacity: true)
        newRecord.append(contentsOf: UnsafeRawBufferPointer(start: record.base, count: record.size))
        let offset = start - record.base
        newRecord.withUnsafeMutableBytes { ($0.baseAddress! + offset).copyMemory(from: bytes, byteCount: raw.count) }
        putRecord(info, object._key, newRecord, in: write)
        return true
    }

    func indexEntry(_ column: Column, _ isNull: Bool, _ field: UnsafeRawBufferPointer, _ key: UInt64) -> [UInt8] {
        var entry = indexKey(column.type, isNull: isNull, field)
        appendBigEndian(key, to: &entry)
        return entry
    }

    // MARK: - Backlinks: (target key, source key) -> link count

    func backlinkCount(_ column: Column, target: UInt64, source: UInt64) -> UInt32 {
        let value = withBytesKey(backlinkKey(target, source)) { txn.get(column.backlinkTree, $0, "Reading a link of '\(column.name)'") }
        guard let value, value.size == 4 else { return 0 }
        return UnsafeRawPointer(value.data!).loadUnaligned(as: UInt32.self)
    }

    /// Applies the change old -> new of one source's targets; returns the
    /// targets this source no longer links to.
    func adjustBacklinks(_ column: Column, source: UInt64, in write: WriteTransaction, old: [UInt64], new: [UInt64]) -> [UInt64] {
        var delta: [UInt64: Int] = [:]
        for target in old { delta[target, default: 0] -= 1 }
        for target in new { delta[target, default: 0] += 1 }
        var dropped: [UInt64] = []
        for (target, change) in delta where change != 0 {
            let count = Int(backlinkCount(column, target: target, source: source)) + change
            let key = backlinkKey(target, source)
            if count <= 0 {
                write.delete(column.backlinkTree, key, "Deleting a link of '\(column.name)'")
                dropped.append(target)
            } else {
                write.put(column.backlinkTree, key, withUnsafeBytes(of: UInt32(count).littleEndian) { Array($0) }, "Recording a link of '\(column.name)'")
            }
        }
        return dropped
    }

    /// The sources linking to `target` through `column`, in key order.
    func backlinkSources(_ column: Column, target: UInt64) -> [UInt64] {
        guard let cursor = cursor(column.backlinkTree) else { return [] }
        var sources: [UInt64] = []
        withUnsafeBytes(of: target.bigEndian) { prefix in
            cursor.forEach(prefix: prefix, values: false) { key, _ in
                guard key.size == 16 else { return false }
                sources.append(keyValue(key, at: 8))
                return true
            }
        }
        return sources
    }

    /// backlinkSources() with each source repeated once per link it holds.
    func backlinkSourcesPerLink(_ column: Column, target: UInt64) -> [UInt64] {
        guard let cursor = cursor(column.backlinkTree) else { return [] }
        var sources: [UInt64] = []
        withUnsafeBytes(of: target.bigEndian) { prefix in
            cursor.forEach(prefix: prefix) { key, value in
                guard key.size == 16 else { return false }
                let links = value.size == 4 ? Int(UnsafeRawPointer(value.data!).loadUnaligned(as: UInt32.self)) : 1
                sources.append(contentsOf: repeatElement(keyValue(key, at: 8), count: max(links, 1)))
                return true
            }
        }
        return sources
    }

    // MARK: - Delete

    /// Deletes a row: nullifies links to it, drops its own links (deleting the
    /// embedded objects it owns), its primary key and index entries.
    func deleteRow(_ info: ClassInfo, _ key: UInt64, in write: WriteTransaction) {
        guard let value = loadRecord(info, key) else { return }
        let record = [UInt8](copying: bytes(of: value))
        var cascade: [(ClassInfo, UInt64)] = []
        record.withUnsafeBytes { raw in
            let view = RecordView(base: raw.baseAddress!, size: raw.count)
            for (source, c) in incomingLinks(info) {
                let column = source.columns[c]
                for sourceKey in backlinkSources(column, target: key) {
                    if source === info && sourceKey == key { continue }
                    guard let sourceValue = loadRecord(source, sourceKey) else { continue }
                    let sourceRecord = RecordView(base: UnsafeRawPointer(sourceValue.data!), size: sourceValue.size)
                    let slot = source.slots[c]
                    let field = sourceRecord.field(slot, source.layout)
                    if column.collection != .none, let list = SpilledList(field, type: TreeElementEncoding(column)) {
                        let copy = [UInt8](copying: bytes(of: sourceValue))
                        let marker = removingTreeLinks(to: key, from: list, column.collection, in: write)
                        let newRecord = copy.withUnsafeBytes { raw in
                            marker.withUnsafeBytes {
                                replacingColumn(RecordView(base: raw.baseAddress!, size: raw.count), slot, source.layout, isNull: false, $0)
                            }
                        }
                        write.delete(column.backlinkTree, backlinkKey(key, sourceKey), "Deleting a link of '\(column.name)'")
                        putRecord(source, sourceKey, newRecord, in: write)
                        continue
                    }
                    let replaced = removingLinks(to: key, column, isNull: sourceRecord.isNull(slot), field)
                    let newRecord = replaced.bytes.withUnsafeBytes {
                        replacingColumn(sourceRecord, slot, source.layout, isNull: replaced.isNull, $0)
                    }
                    write.delete(column.backlinkTree, backlinkKey(key, sourceKey), "Deleting a link of '\(column.name)'")
                    putRecord(source, sourceKey, newRecord, in: write)
                }
            }
            dropMixedLinks(from: info, key, view, in: write)
            for c in info.linkColumns {
                let column = info.columns[c]
                let slot = info.slots[c]
                for target in Set(resolvedLinkTargets(column, isNull: view.isNull(slot), view.field(slot, info.layout))) {
                    write.delete(column.backlinkTree, backlinkKey(target, key), "Deleting a link of '\(column.name)'")
                    if let targetInfo = column.target, targetInfo.isEmbedded { cascade.append((targetInfo, target)) }
                }
            }
            for c in info.treeColumns {
                if let list = SpilledList(view.field(info.slots[c], info.layout), type: .plain) { listDrop(list, in: write) }
            }
            if let pk = info.primaryKeyColumn, !info.keyedByPrimaryKey {
                let slot = info.slots[pk]
                write.delete(info.primaryKeyTree, indexKey(info.columns[pk].type, isNull: view.isNull(slot), view.field(slot, info.layout)),
                             "Deleting the primary key of a '\(info.name)' object")
            }
            for column in info.columns where column.isIndexed {
                let slot = info.slots[column.index]
                write.delete(column.indexTree, indexEntry(column, view.isNull(slot), view.field(slot, info.layout), key), "Deleting an index entry")
            }
            indexFullText(info, key, old: view, new: nil, in: write)
        }
        if !schemaState.mixedColumns.isEmpty { clearMixedLinks(to: info, key, in: write) }
        withKey(key) { write.delete(info.objectsTree, $0, "Deleting a '\(info.name)' object") }
        if info.keyedByPrimaryKey { recordDelete(info, key: key) }
        for (targetInfo, target) in cascade { deleteRow(targetInfo, target, in: write) }
    }
}
