import CStorage
import Dispatch

// Results observation. Results in key order (every object of a class, or
// those whose own record passes the query, unsorted) get their change from
// the engine's snapshot diff of the class's tree: the notifier reads only
// the records that changed and finds their indexes in the keys it reported
// last (KeyRanks), so a one-object commit costs the same at 500 objects as
// at 5 million. Sorted, distinct or limited Results, and queries that read
// other objects (links, backlinks, subqueries) or start from a collection,
// are evaluated again on the notifier and compared element by element.

extension Results {
    /// Calls `block` with `.initial` at the next turn, then with each change
    /// (`keyPaths`: only changes to these properties count as modifications).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> NotificationToken {
        if let queue { return RealmLite.observe(self, on: queue) { $0.observe(keyPaths: keyPaths, block) } }
        let info: ClassInfo
        var plan: QueryPlan?
        switch source {
        case .values(let values): return observeValues(values, keyPaths: keyPaths, block)
        case .all(let all): info = all
        case .query(let query):
            info = query.info
            plan = query
        }
        orStop { try checkCollectionKeyPaths(keyPaths, elements: info, kind: "Results<\(info.name)>") }
        if plan?.isInKeyOrderOverOwnRecords ?? true {
            return realmInstance.observeKeyOrdered(info, filter: plan?.compiled?.filter, plan: plan, keyPaths: keyPaths, value: self, block)
        }
        let source = self.source
        let rows = Protected<RowsHandover?>(nil)
        return realmInstance.observeCollection("Results", keyPaths: keyPaths, read: { core in
            guard let moved = source.moved(to: core) else { return nil }
            let keys: [UInt64]
            switch moved {
            case .all(let info): keys = core.allKeys(info)
            case .values: return nil
            case .query(let movedPlan):
                keys = movedPlan.keys(core)
                if let plan { rows.withLock { $0 = RowsHandover(plan, movedPlan, core) } }
            }
            return ObservedElements(ids: keys.map(keyIdentity), objectClass: info)
        }, value: self, handover: { live in rows.withLock { $0.take()?.adopt(in: live) } }, block)
    }
}

/// The rows the notifier evaluated for a queried Results at the version of
/// its change, for the live Results to adopt when the change is delivered.
struct RowsHandover: @unchecked Sendable {
    // @unchecked: the plan is used only on the observer's thread (adopt);
    // the rows are immutable, and point into a version the live core pins
    // when it adopts them (N2).
    let plan: QueryPlan
    let keys: [UInt64]
    let records: [RecordView]
    let version: UInt64

    /// nil when the class's records span generations: records read in an
    /// older layout are upgraded into memory owned by the frozen core's
    /// thread, which the live Results must not keep.
    init?(_ plan: QueryPlan, _ evaluated: QueryPlan, _ frozen: RealmCore) {
        guard plan.info.generations == nil else { return nil }
        self.plan = plan
        (keys, records) = evaluated.rows(frozen)
        version = frozen.version
    }

    func adopt(in live: RealmCore) {
        if live.version == version { plan.adopt(keys: keys, records: records, in: live) }
    }
}

extension QueryPlan {
    /// True if the matching objects are every object of the class in key
    /// order, filtered by a predicate that reads only each object's own
    /// record: then an object's membership changes only with its record.
    var isInKeyOrderOverOwnRecords: Bool {
        guard case .all = base, orderings.isEmpty else { return false }
        return predicate?.readsOnlyOwnRecord(info) ?? true
    }
}

extension QueryPredicate {
    /// No key path leaves the object's record (links followed, backlinks,
    /// subqueries, collection operators).
    func readsOnlyOwnRecord(_ info: ClassInfo) -> Bool {
        switch self {
        case .constant: return true
        case .and(let a, let b), .or(let a, let b): return a.readsOnlyOwnRecord(info) && b.readsOnlyOwnRecord(info)
        case .not(let a): return a.readsOnlyOwnRecord(info)
        case .geoWithin: return false // reads the linked point
        case .comparison(let comparison):
            return [comparison.left, comparison.right].allSatisfy { expression in
                switch expression {
                case .value, .list: return true
                case .subquery, .arithmetic: return false
                case .keyPath(let path, _):
                    guard path.count == 1, let column = info.columns.first(where: { $0.name == path[0] }) else { return false }
                    return column.type != .linkingObjects
                }
            }
        }
    }
}

extension RealmCore {
    /// Observes Results in key order (see the top of this file): the state
    /// kept between deliveries is the keys reported last.
    func observeKeyOrdered<C>(_ info: ClassInfo, filter: RowFilter?, plan: QueryPlan?, keyPaths: [String]?, value: C,
                              _ block: @escaping (RealmCollectionChange<C>) -> Void) -> NotificationToken {
        let state = Protected<KeyRanks?>(nil) // as of the version reported
        return addObserver(what: "Results") { base, now in
            // A queried Results gets the rows of the new version with its change.
            let evaluated = plan?.moved(to: now)
            let rows = plan.flatMap { plan in evaluated.flatMap { RowsHandover(plan, $0, now) } }
            guard let base, let reported = state.withLock({ $0 }) else {
                let ranks = KeyRanks(rows?.keys ?? evaluated?.keys(now) ?? now.allKeys(info))
                return Delivery(advance: { state.withLock { $0 = ranks } }, notify: { live in
                    rows?.adopt(in: live)
                    block(.initial(value))
                })
            }
            let change = now.keyOrderedChange(info, filter: filter, keyPaths: keyPaths, from: base, reported: reported)
            let advance = {
                state.withLock { ranks in
                    for key in change.removed { ranks?.remove(key) }
                    for key in change.added { ranks?.insert(key) }
                }
            }
            if change.deletions.isEmpty && change.insertions.isEmpty && change.modifications.isEmpty {
                return Delivery(advance: advance, notify: rows.map { rows in { live in rows.adopt(in: live) } })
            }
            return Delivery(advance: advance, notify: { live in
                rows?.adopt(in: live)
                block(.update(value, deletions: change.deletions, insertions: change.insertions, modifications: change.modifications))
            })
        }
    }

    /// The change of key-ordered Results from `base` (where they were
    /// `reported`) to this frozen core, and the keys that left and joined.
    func keyOrderedChange(_ info: ClassInfo, filter: RowFilter?, keyPaths: [String]?, from base: RealmCore, reported: KeyRanks)
        -> (deletions: [Int], insertions: [Int], modifications: [Int], removed: [UInt64], added: [UInt64]) {
        // Each changed object that was or is in the Results.
        var entries: [(key: UInt64, was: Bool, isIn: Bool)] = []
        txn.changes(from: base.txn, in: info.objectsTree, "Comparing versions for a notification") { kind, key, _, newValue in
            let k = keyValue(key)
            let was = reported.contains(k)
            var isIn = kind != CS_DIFF_DELETE
            if isIn, let filter {
                let record = currentRecord(info, k, newValue)
                isIn = filter(self, RecordView(base: UnsafeRawPointer(record.data!), size: record.size), k)
            }
            if was || isIn { entries.append((k, was, isIn)) }
        }
        // A key deleted and added again is another object: a deletion and an insertion.
        let reborn = deletedKeys(info, since: base)
        let changed = changedKeys(info, from: base, keyPaths: keyPaths)
        var deletions: [Int] = [], insertions: [Int] = [], modifications: [Int] = []
        var removed: [UInt64] = [], added: [UInt64] = []
        var deletedBefore = 0, insertedBefore = 0, seen = Set<UInt64>()
        for entry in entries.sorted(by: { $0.key < $1.key }) {
            seen.insert(entry.key)
            let rank = reported.rank(of: entry.key).index
            let identity = keyIdentity(entry.key)
            let replaced = entry.was && entry.isIn && (reborn?.contains(identity) ?? true)
            let leaves = entry.was && (!entry.isIn || replaced)
            let joins = entry.isIn && (!entry.was || replaced)
            if joins { insertions.append(rank - deletedBefore + insertedBefore) }
            if leaves {
                deletions.append(rank)
                deletedBefore += 1
                if !joins { removed.append(entry.key) }
            }
            if joins {
                insertedBefore += 1
                if !leaves { added.append(entry.key) }
            }
            if entry.was && entry.isIn && !replaced && changed.contains(identity) { modifications.append(rank) }
        }
        // Objects changed through a key path's link, their own record unchanged.
        for identity in changed {
            let key = identityKey(identity)
            guard !seen.contains(key) else { continue }
            let (rank, found) = reported.rank(of: key)
            if found { modifications.append(rank) }
        }
        modifications.sort()
        return (deletions, insertions, modifications, removed, added)
    }
}
