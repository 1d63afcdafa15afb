import Synchronization

// List and MutableSet observation. A List in the collections tree gets its
// change from the edits the commits in between made to it
// (CollectionChangeLog.swift, folded by ListChangeFold.swift): a one-element
// append costs the same at 1k elements as at 1M; a MutableSet in the tree
// from its edits by element (SetMapObservation.swift). A collection that
// was or is empty needs nothing read (all inserted or all deleted).
// Otherwise (a collection kept in its owner's record, or a chain the log
// cannot vouch for) the elements of the two versions are compared, as for
// other collections (RealmCollectionChange.swift).
//
// Linked objects: a List of objects also reports as modified the kept
// elements whose object changed (in `keyPaths`, if given); their positions
// are looked up only when an object this list links to changed.

/// Counts live List, MutableSet and Map observers
/// (CollectionEditsOfWrite.observers) for as long as an observer's compute
/// closure holds it.
final class CollectionObserverPresence: Sendable {
    init() { CollectionEditsOfWrite.observers.add(1, ordering: .relaxed) }
    deinit { CollectionEditsOfWrite.observers.subtract(1, ordering: .relaxed) }
}

extension CollectionField {
    /// Observes this List or MutableSet (not nested in a mixed value); see the top of this file.
    func observeList<C>(_ what: String, owner identity: ObjectIdentity, keyPaths: [String]?, value: C,
                        _ block: @escaping (RealmCollectionChange<C>) -> Void) -> NotificationToken {
        let field = self
        let key = CollectionEditKey(className: identity.info.name, key: identity.key, column: column)
        let presence = CollectionObserverPresence()
        // Whether the initial call was made, and the elements at the version
        // reported if they were read then (a list in the record: the next
        // comparison reads only the new version).
        let state = Protected<(delivered: Bool, version: UInt64, elements: ObservedElements?)>((false, 0, nil))
        return realm.addObserver(what: what) { base, now in
            _ = presence
            let last = state.withLock { $0 }
            let notifier = now.env.notifier
            guard let nowOwner = now.counterpart(identity) else {
                // The owner was deleted: report the list emptied, once.
                guard last.delivered, let base, let baseOwner = base.counterpart(identity) else { return Delivery() }
                let count = field.moved(to: baseOwner).elementCount
                let advance = { notifier.release(state.withLock { state in defer { state = (true, now.version, nil) }; return state }) }
                if count == 0 { return Delivery(advance: advance) }
                return Delivery(advance: advance, notify: { _ in block(.update(value, deletions: Array(0..<count), insertions: [], modifications: [])) })
            }
            let new = field.moved(to: nowOwner)
            // Elements are kept only for a list in the record (short).
            let keep = { new.spilledList == nil ? new.observedElements(of: identity, in: now) : nil }
            guard last.delivered, let base else {
                let elements = keep()
                return Delivery(advance: { state.withLock { $0 = (true, now.version, elements) } }, notify: { _ in block(.initial(value)) })
            }
            let change: (deletions: [Int], insertions: [Int], modifications: [Int])
            var elements: ObservedElements?
            if let folded = now.positionalChangeFromLog(field, identity, key, from: base, keyPaths: keyPaths) {
                CollectionChangeLog.folded.add(1, ordering: .relaxed)
                change = folded
                elements = keep()
            } else {
                CollectionChangeLog.compared.add(1, ordering: .relaxed)
                let old = (last.version == base.version ? last.elements : nil)
                    ?? field.observedElements(of: identity, in: base)
                let current = field.observedElements(of: identity, in: now) ?? ObservedElements(ids: [], objectClass: nil)
                change = now.elementsChange(from: old?.ids ?? [], to: current, base: base, keyPaths: keyPaths)
                elements = new.spilledList == nil ? current : nil
            }
            let advance = { notifier.release(state.withLock { state in defer { state = (true, now.version, elements) }; return state }) }
            if change.deletions.isEmpty && change.insertions.isEmpty && change.modifications.isEmpty { return Delivery(advance: advance) }
            return Delivery(advance: advance, notify: { _ in
                block(.update(value, deletions: change.deletions, insertions: change.insertions, modifications: change.modifications))
            })
        }
    }
}

extension RealmCore {
    /// The change of a List or MutableSet from `base` to this frozen core
    /// without comparing its elements; nil if it must be compared (see the
    /// top of this file and CollectionChangeLog.swift).
    func positionalChangeFromLog(_ field: CollectionField, _ owner: ObjectIdentity, _ key: CollectionEditKey, from base: RealmCore,
                                 keyPaths: [String]?) -> (deletions: [Int], insertions: [Int], modifications: [Int])? {
        guard let baseOwner = base.counterpart(owner), let nowOwner = counterpart(owner) else { return nil }
        let old = field.moved(to: baseOwner), new = field.moved(to: nowOwner)
        guard !field.isNested else { return nil }
        let oldCount = old.elementCount, newCount = new.elementCount
        if oldCount == 0 { return ([], Array(0..<newCount), []) }
        if newCount == 0 { return (Array(0..<oldCount), [], []) }
        guard let from = CollectionState(old), let to = CollectionState(new) else { return nil }
        if owner.info.columns[field.column].collection == .set {
            return setChange(key, owner, column: field.column, from: base, from, to, keyPaths: keyPaths)
        }
        guard let edits = env.collectionChanges.edits(of: key, after: base.version, through: version) else { return nil }
        var fold = ListChangeFold(oldCount: oldCount)
        var state: CollectionState? = from
        for edit in edits {
            guard edit.before == state, fold.apply(edit.operation) else { return nil }
            guard fold.isWorthFolding else { return nil }
            state = edit.after
        }
        guard state == to else { return nil }
        var change = fold.change()
        // Kept elements whose linked object changed.
        let column = owner.info.columns[field.column]
        guard column.isLink, let target = column.target, case .tree(let id, let serial, let count) = to else { return change }
        let changed = changedKeys(target, from: base, keyPaths: keyPaths)
        let linkedHere = changed.contains { identity in
            backlinkSources(column, target: identityKey(identity)).contains(owner.key)
        }
        guard linkedHere else { return change }
        var positions: [Int] = []
        for (index, element) in listElements(SpilledList(count: count, id: id, serial: serial, type: TreeElementEncoding(column))).enumerated() {
            let linked = element.withUnsafeBytes { linkTarget(ofElement: $0, .list) }
            if let linked, changed.contains(keyIdentity(linked)) { positions.append(index) }
        }
        let modified = Set(change.modifications).union(fold.oldIndexes(ofNew: positions))
        change.modifications = modified.sorted()
        return change
    }
}
