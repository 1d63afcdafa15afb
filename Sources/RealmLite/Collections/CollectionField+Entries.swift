// MutableSet and Map changes of a collection stored in the collections
// tree (Storage/SetMapTree.swift): one descent per element or key, and a
// new marker in the owner's record (count and serial), which carries the
// backlink change of just these elements.

extension CollectionField {
    /// The marker of a set or map that may be in the tree, or nil.
    var spilledEntries: SpilledList? {
        if isNested { return nil }
        // As spilledList, with the mixed test on the same class info: going
        // through `isMixed` took three more retain/release pairs (ClassInfo,
        // columns array, Column) on every set or map lookup.
        let record = owner._currentRecord()
        let info = owner._info.unsafelyUnwrapped
        if info.columns[column].isMixed { return nil }
        return SpilledList(record.field(info.slots[column], info.layout), type: info.columns[column].treeElements)
    }

    private var kind: _CollectionKind { owner._info.unsafelyUnwrapped.columns[column].collection }

    private func links(_ values: [[UInt8]]) -> [UInt64] {
        guard owner._info.unsafelyUnwrapped.columns[column].isLink else { return [] }
        let kind = self.kind
        return values.compactMap { $0.withUnsafeBytes { linkTarget(ofElement: $0, kind) } }
    }

    /// The value (as the field holds it) of the entry whose element or map
    /// key is `content`, lent to `body` (nil if absent).
    func withEntry<R>(_ marker: SpilledList, _ content: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        realm.withEntryValue(marker, content, isMap: kind == .map, body)
    }

    /// True if the set or map holds the element or map key `content`.
    func hasEntry(_ marker: SpilledList, _ content: UnsafeRawBufferPointer) -> Bool {
        withEntry(marker, content) { $0 != nil }
    }

    /// Stores set elements or map entries (each replacing the one with the
    /// same element or key).
    func putEntries(_ marker: SpilledList, _ values: [[UInt8]]) {
        let write = realm.requireWrite("modify '\(name)'")
        let isMap = kind == .map
        var added: [[UInt8]] = [], replaced: [[UInt8]] = [], replacedValues: [[UInt8]] = []
        let before = stateForLog
        defer { logEdit(.put(added: added, replaced: replaced), from: before) }
        for value in values {
            // The element or key, for the log (only while it notes edits).
            let content = before == nil ? [] : value.withUnsafeBytes { [UInt8](copying: SpilledList.content(of: $0, isMap: isMap)) }
            if let old = realm.putEntry(marker, value, isMap: isMap, in: write) {
                replaced.append(content)
                replacedValues.append(old)
            } else {
                added.append(content)
            }
        }
        if added.isEmpty && replacedValues.elementsEqual(values) { return }
        updateMarker(marker, count: marker.count + added.count, (links(replacedValues), links(values)))
    }

    /// Removes the entries of these elements or map keys.
    func removeEntries(_ marker: SpilledList, _ contents: [[UInt8]]) {
        let write = realm.requireWrite("modify '\(name)'")
        let isMap = kind == .map
        let before = stateForLog
        var removed: [[UInt8]] = [], removedContents: [[UInt8]] = []
        for content in contents {
            guard let value = realm.removeEntry(marker, content, isMap: isMap, in: write) else { continue }
            removed.append(value)
            removedContents.append(content)
        }
        if removed.isEmpty { return }
        defer { logEdit(.remove(removedContents), from: before) }
        updateMarker(marker, count: marker.count - removed.count, (links(removed), []))
    }

    /// Removes every entry of a set or map in the tree: one range delete.
    func removeAllEntries(_ marker: SpilledList) {
        let write = realm.requireWrite("modify '\(name)'")
        let before = stateForLog
        defer { logEdit(.removeAll, from: before) }
        let removed = owner._info.unsafelyUnwrapped.columns[column].isLink ? realm.listElements(marker) : []
        realm.listDrop(marker, in: write)
        updateMarker(marker, count: 0, (links(removed), []))
    }

    /// Moves a set or map whose field has grown past the threshold to the tree.
    func spillEntriesIfLong() {
        guard !isNested, !isMixed, spilledList == nil else { return }
        let view = self.view
        guard view.count > ListTree.threshold else { return }
        let write = realm.requireWrite("modify '\(name)'")
        let marker = realm.storeEntries(view.elements, type: treeElements, in: write)
        marker.encoded.withUnsafeBytes { realm.updateColumn(owner, column, isNull: false, $0, linkDelta: ([], [])) }
    }
}
