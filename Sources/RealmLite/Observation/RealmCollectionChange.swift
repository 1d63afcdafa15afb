import CStorage

// Collection changes: what changed between the version an observer reported
// last and the current one, as deletions, insertions and modifications.

/// A collection change (RealmSwift's RealmCollectionChange). Deletions and
/// modifications are indices in the previous version, insertions in the new one.
public enum RealmCollectionChange<CollectionType> {
    /// The first notification, delivered at the next turn after `observe`: the
    /// collection as it is then, with nothing to compare against.
    case initial(CollectionType)
    /// A commit changed the collection: `deletions` and `modifications` are
    /// indexes in the previous version, `insertions` indexes in the new one (as
    /// a table view applies them). If the collection's owner was deleted, every
    /// element is reported deleted, once.
    case update(CollectionType, deletions: [Int], insertions: [Int], modifications: [Int])
    /// Kept for RealmSwift compatibility: RealmLite reports no observation
    /// errors (a misuse stops when `observe` is called instead).
    case error(Swift.Error)
}

/// How a collection observer reads its elements at a version.
struct ObservedElements {
    /// Element identities in order: object keys (as 8 bytes) or value bytes.
    let ids: [[UInt8]]
    /// For object collections: the class whose records to diff.
    let objectClass: ClassInfo?
}

extension RealmCore {
    /// Registers a collection observer whose change is found by comparing
    /// the elements of two versions (a Myers diff, on the notifier).
    /// `read(core)` gives the collection's elements as of a frozen `core`
    /// (nil: the collection is gone, e.g. its owner was deleted) and may run
    /// on any thread; `value` is the collection to hand to the block.
    func observeCollection<C>(_ what: String, keyPaths: [String]?,
                              read: @escaping (RealmCore) -> ObservedElements?,
                              value: C, handover: @escaping (RealmCore) -> Void = { _ in },
                              _ block: @escaping (RealmCollectionChange<C>) -> Void) -> NotificationToken {
        let state = Protected<ObservedElements?>(nil) // as of the version reported
        return addObserver(what: what) { base, now in
            let last = state.withLock { $0 }
            guard let elements = read(now) else {
                // The owner of the collection was deleted: report it emptied, once.
                guard let old = last, !old.ids.isEmpty else { return Delivery() }
                return Delivery(advance: { state.withLock { $0 = ObservedElements(ids: [], objectClass: old.objectClass) } },
                                notify: { live in handover(live); block(.update(value, deletions: Array(old.ids.indices), insertions: [], modifications: [])) })
            }
            let notifier = now.env.notifier
            let advance = { notifier.release(state.withLock { state in defer { state = elements }; return state }) }
            guard let old = last, let base else { return Delivery(advance: advance, notify: { live in handover(live); block(.initial(value)) }) }
            let change = now.elementsChange(from: old.ids, to: elements, base: base, keyPaths: keyPaths)
            if change.deletions.isEmpty && change.insertions.isEmpty && change.modifications.isEmpty { return Delivery(advance: advance, notify: handover) }
            return Delivery(advance: advance, notify: { live in
                handover(live)
                block(.update(value, deletions: change.deletions, insertions: change.insertions, modifications: change.modifications))
            })
        }
    }

    /// The change from `old` (the ids read at `base`) to `elements` (read
    /// at this frozen core), by comparing them.
    func elementsChange(from old: [[UInt8]], to elements: ObservedElements, base: RealmCore, keyPaths: [String]?)
        -> (deletions: [Int], insertions: [Int], modifications: [Int]) {
        let changed = elements.objectClass.map { changedKeys($0, from: base, keyPaths: keyPaths) } ?? []
        var ids = elements.ids
        if let info = elements.objectClass, info.keyedByPrimaryKey {
            // A key deleted and added again is another object: a deletion and an insertion.
            let deleted = deletedKeys(info, since: base)
            if deleted?.isEmpty != true {
                ids = ids.map { deleted?.contains($0) ?? true ? $0 + [0xFF] : $0 }
            }
        }
        return collectionChange(old: old, new: ids) { changed.contains($0) }
    }

    /// Keys of `info`'s objects whose record differs between `old` and this
    /// core's version (only in `keyPaths`' top-level properties, if given), and
    /// with key paths through links, whose linked objects changed there.
    func changedKeys(_ info: ClassInfo, from old: RealmCore, keyPaths: [String]?) -> Set<[UInt8]> {
        let columns = keyPaths.map { paths in
            Set(paths.compactMap { path in info.columns.firstIndex { $0.name == path.split(separator: ".").first.map(String.init) } })
        }
        var keys = Set<[UInt8]>()
        txn.changes(from: old.txn, in: info.objectsTree, "Comparing versions for a notification") { kind, key, oldValue, newValue in
            guard kind == CS_DIFF_UPDATE else { return }
            if let columns {
                let relevant = info.withCurrentRecord(oldValue) { before in
                    info.withCurrentRecord(newValue) { after in
                        columns.contains { column in
                            let slot = info.slots[column]
                            guard slot.inRecord else { return false }
                            return before.isNull(slot) != after.isNull(slot)
                                || !sameField(slot, before.field(slot, info.layout), after.field(slot, info.layout))
                        }
                    }
                }
                if !relevant { return }
            }
            keys.insert(Array(bytes(of: key)))
        }
        // Key paths through a link ("dogs.name"): objects whose linked
        // objects changed in the rest of the path count as changed, found
        // from the changed targets through the link's backlink tree (cost
        // follows the change, not the collection).
        for path in keyPaths ?? [] {
            guard let dot = path.firstIndex(of: "."),
                  let column = info.columns.first(where: { $0.name == path[..<dot] }),
                  column.isLink, let target = column.target else { continue }
            let rest = String(path[path.index(after: dot)...])
            for changedTarget in changedKeys(target, from: old, keyPaths: [rest]) {
                for source in backlinkSources(column, target: identityKey(changedTarget)) { keys.insert(keyIdentity(source)) }
            }
        }
        return keys
    }
}

/// Deletions (old indices), insertions (new indices) and modifications (old
/// indices of elements kept whose content changed) between two sequences.
func collectionChange(old: [[UInt8]], new: [[UInt8]], modified: ([UInt8]) -> Bool)
    -> (deletions: [Int], insertions: [Int], modifications: [Int]) {
    var deletions: [Int] = [], insertions: [Int] = []
    if old != new {
        for change in new.difference(from: old) {
            switch change {
            case .remove(let offset, _, _): deletions.append(offset)
            case .insert(let offset, _, _): insertions.append(offset)
            }
        }
        deletions.sort()
        insertions.sort()
    }
    // Kept elements keep their relative order: pair them up in order.
    var modifications: [Int] = []
    var newIndex = 0, deletion = 0, insertion = 0
    for oldIndex in old.indices {
        if deletion < deletions.count && deletions[deletion] == oldIndex {
            deletion += 1
            continue
        }
        while insertion < insertions.count && insertions[insertion] == newIndex {
            insertion += 1
            newIndex += 1
        }
        if modified(new[newIndex]) { modifications.append(oldIndex) }
        newIndex += 1
    }
    return (deletions, insertions, modifications)
}

/// An object key as an element identity.
func keyIdentity(_ key: UInt64) -> [UInt8] {
    withUnsafeBytes(of: key.bigEndian) { Array($0) }
}

/// The object key of an element identity made by keyIdentity.
func identityKey(_ identity: [UInt8]) -> UInt64 {
    identity.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
}

extension RealmCore {
    /// Every object key of a class, in key order.
    func allKeys(_ info: ClassInfo) -> [UInt64] {
        var keys: [UInt64] = []
        txn.withCursor(info.objectsTree) { cursor in
            var key = cursor.firstKey()
            while let current = key {
                keys.append(keyValue(current))
                key = cursor.nextKey()
            }
        }
        return keys
    }
}

extension CollectionField {
    /// The elements of this field as read through `core` (nil if the owner is gone there).
    func observedElements(in core: RealmCore) -> ObservedElements? {
        ObjectIdentity(owner).flatMap { observedElements(of: $0, in: core) }
    }

    /// The elements of this collection of the object `owner` names, as read
    /// through `core` (nil if the owner is gone there). Any thread: reads
    /// only the column and path of this field, not its owner accessor.
    func observedElements(of owner: ObjectIdentity, in core: RealmCore) -> ObservedElements? {
        guard let owner = core.counterpart(owner) else { return nil }
        let field = moved(to: owner)
        let view = field.view
        let info = owner._info.unsafelyUnwrapped
        let columnInfo = info.columns[column]
        let ids = (0..<view.count).map { index -> [UInt8] in
            let element = view.element(index)
            // Link elements hold the key little-endian (after a tag byte if
            // optional); identities use the tree's big-endian key bytes.
            guard columnInfo.isLink, element.count >= 8 else { return Array(element) }
            return keyIdentity(UInt64(littleEndian: element.loadUnaligned(fromByteOffset: element.count - 8, as: UInt64.self)))
        }
        return ObservedElements(ids: ids, objectClass: columnInfo.isLink ? columnInfo.target : nil)
    }

    func observe<C>(_ what: String, keyPaths: [String]?, value: C,
                    _ block: @escaping (RealmCollectionChange<C>) -> Void) -> NotificationToken {
        stopIfOwnerInvalidated(what)
        let info = owner._info.unsafelyUnwrapped.columns[column]
        orStop { try checkCollectionKeyPaths(keyPaths, elements: info.isLink ? info.target : nil, kind: what) }
        guard let identity = ObjectIdentity(owner) else { realmFatal(.invalidValue, "Only a managed \(what) can be observed.") }
        if (info.collection == .list || (info.collection == .set && !info.isMixed)) && !isNested {
            return observeList(what, owner: identity, keyPaths: keyPaths, value: value, block)
        }
        let field = self
        return realm.observeCollection(what, keyPaths: keyPaths, read: { field.observedElements(of: identity, in: $0) },
                                       value: value, block)
    }
}

extension CollectionField {
    /// Stops unless this field's owner can still be read: a collection of a
    /// deleted object never changes again. (Frozen ones stop in addObserver.)
    func stopIfOwnerInvalidated(_ what: String) {
        if !isFrozen, owner.isInvalidated {
            realmFatal(.invalidatedObject, "Cannot observe a \(what) of a deleted or invalidated object of type '\(type(of: owner).className())': re-fetch the object first.")
        }
    }
}
