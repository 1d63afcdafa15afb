// MutableSet and Map changes from their own edits, when they are in the
// collections tree (Storage/SetMapTree.swift): the commits' edits
// (CollectionChangeLog.swift) folded by element or key
// (EntryChangeFold.swift). A set's positions are ranks in the tree (a set
// in the tree iterates in its entries' key order), found with one descent
// each, in the old version for deletions and modifications and in the new
// one for insertions: a one-element insert costs the same at 1k elements as
// at 1M. A map's change is its keys, so it needs no positions at all.
// Otherwise (a collection in the record, or edits the log cannot vouch for)
// the observers compare the two versions (ListObservation.swift,
// MapChange.swift).
//
// Linked objects: an element or kept key whose object changed (in
// `keyPaths`, if given) is a modification, as when the versions are
// compared. A set finds the changed objects' elements by descent; a map has
// no index by value, so its entries are read, only when an object it links
// to changed.

/// A set's or map's edits, folded.
enum FoldedEntries {
    /// The collection was emptied on the way: every element before is
    /// deleted, every element now inserted.
    case emptied
    case edited(EntryChangeFold)
}

extension RealmCore {
    /// The position of the entry whose element (`isMap` false) or map key
    /// is `content`, in its collection's order; nil if absent. O(log n).
    func entryRank(_ marker: SpilledList, _ content: [UInt8], isMap: Bool) -> Int? {
        guard let entry = findEntry(marker, content, isMap: isMap), let cursor = cursor(listsTree()) else { return nil }
        let base = listBaseRank(marker, cursor)
        guard withBytesKey(entry.key, { cursor.seek($0) }) != nil else { return nil }
        return cursor.index() - base
    }

    /// A set's or map's edits from state `from` (at `base`) to `to` (this
    /// core's); nil if the log does not hold them all or they do not chain.
    func foldEntries(_ key: CollectionEditKey, from base: RealmCore, _ from: CollectionState, _ to: CollectionState) -> FoldedEntries? {
        guard let edits = env.collectionChanges.edits(of: key, after: base.version, through: version) else { return nil }
        var fold = EntryChangeFold()
        var state: CollectionState? = from
        for edit in edits {
            guard edit.before == state else { return nil }
            if edit.after == .empty { return .emptied } // what follows does not matter
            guard fold.apply(edit.operation) else { return nil }
            state = edit.after
        }
        return state == to ? .edited(fold) : nil
    }

    /// The change of a set in the tree from `base` to this core, both not
    /// empty, from its edits; nil if they must be compared.
    func setChange(_ key: CollectionEditKey, _ owner: ObjectIdentity, column: Int, from base: RealmCore,
                   _ from: CollectionState, _ to: CollectionState, keyPaths: [String]?)
        -> (deletions: [Int], insertions: [Int], modifications: [Int])? {
        guard case .tree(let oldID, let oldSerial, let oldCount) = from,
              case .tree(let newID, let newSerial, let newCount) = to,
              let folded = foldEntries(key, from: base, from, to) else { return nil }
        guard case .edited(let fold) = folded else { return (Array(0..<oldCount), Array(0..<newCount), []) }
        let type = TreeElementEncoding(owner.info.columns[column])
        let old = SpilledList(count: oldCount, id: oldID, serial: oldSerial, type: type)
        let new = SpilledList(count: newCount, id: newID, serial: newSerial, type: type)
        var deletions: [Int] = [], insertions: [Int] = []
        for element in fold.deleted {
            guard let position = base.entryRank(old, element, isMap: false) else { return nil }
            deletions.append(position)
        }
        for element in fold.inserted {
            guard let position = entryRank(new, element, isMap: false) else { return nil }
            insertions.append(position)
        }
        let columnInfo = owner.info.columns[column]
        var modifications: [Int] = []
        if columnInfo.isLink, let target = columnInfo.target {
            for identity in changedKeys(target, from: base, keyPaths: keyPaths) {
                let element = withLinkBytes(identityKey(identity)) { Array($0) }
                if fold.isKept(element), let position = base.entryRank(old, element, isMap: false) { modifications.append(position) }
            }
        }
        return (deletions.sorted(), insertions.sorted(), modifications.sorted())
    }

    /// The keys deleted, inserted and modified of a map from `base` to this
    /// core, from its edits; nil if they must be compared.
    func mapChangeFromLog(_ field: CollectionField, _ owner: ObjectIdentity, _ key: CollectionEditKey, from base: RealmCore,
                          keyPaths: [String]?) -> (deletions: [[UInt8]], insertions: [[UInt8]], modifications: [[UInt8]])? {
        guard !field.isNested, let baseOwner = base.counterpart(owner), let nowOwner = counterpart(owner) else { return nil }
        let old = field.moved(to: baseOwner), new = field.moved(to: nowOwner)
        let oldCount = old.elementCount, newCount = new.elementCount
        if oldCount == 0 || newCount == 0 { return (old.mapKeys, new.mapKeys, []) }
        guard let from = CollectionState(old), let to = CollectionState(new),
              let folded = foldEntries(key, from: base, from, to) else { return nil }
        guard case .edited(let fold) = folded else { return (old.mapKeys, new.mapKeys, []) }
        var modifications = fold.stored
        let column = owner.info.columns[field.column]
        if column.isLink, let target = column.target, case .tree(let id, let serial, let count) = to {
            let changed = changedKeys(target, from: base, keyPaths: keyPaths)
            let linkedHere = changed.contains { backlinkSources(column, target: identityKey($0)).contains(owner.key) }
            if linkedHere {
                var modified = Set(modifications)
                for entry in listElements(SpilledList(count: count, id: id, serial: serial, type: TreeElementEncoding(column))) {
                    let (mapKey, linked) = entry.withUnsafeBytes { ([UInt8](copying: MapEntry.split($0).key), linkTarget(ofElement: $0, .map)) }
                    if let linked, changed.contains(keyIdentity(linked)), fold.isKept(mapKey) { modified.insert(mapKey) }
                }
                modifications = modified.sorted { $0.lexicographicallyPrecedes($1) }
            }
        }
        return (fold.deleted, fold.inserted, modifications)
    }
}

extension CollectionField {
    /// A map's keys, in order.
    var mapKeys: [[UInt8]] {
        let view = self.view
        return (0..<view.count).map { [UInt8](copying: MapEntry.split(view.element($0)).key) }
    }
}
