import Foundation

// Observing sectioned results: the Results' change (flat indexes, computed
// by the notifier) mapped onto the sections before and after it. An element
// whose section key changed while it kept its place in the Results is moved
// (deleted from its old section, inserted in its new one). Rows of a
// section deleted or inserted as a whole are not listed again (a table view
// refuses both at once).

/// What a sectioned results observer reports (RealmSwift's
/// SectionedResultsChange). Index paths are [section, row]; deletions and
/// modifications are in the previous layout, insertions in the new one.
public enum SectionedResultsChange<Collection> {
    /// The first call: the sections as they are then.
    case initial(Collection)
    /// A commit changed the sections: rows deleted, inserted and modified,
    /// and whole sections inserted (new indexes) and deleted (old indexes).
    case update(Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
                sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)
}

extension SectionedResults {
    /// Calls `block` with `.initial` soon, then after each commit that changes
    /// the results, with the change by section and row. `keyPaths` limits
    /// which property changes count as modifications; `queue` delivers on a
    /// serial queue (the sections are handed over to that queue's Realm).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken {
        if let queue { return RealmLite.observe(self, on: queue) { $0.observe(keyPaths: keyPaths, block) } }
        var layout = SectionLayout<Key>(), count = 0
        return results.observe(keyPaths: keyPaths) { change in
            switch change {
            case .initial:
                layout = cache.current
                count = results.count
                block(.initial(self))
            case .update(_, let deletions, let insertions, let modifications):
                let now = cache.current, newCount = results.count
                block(sectionChange(from: layout, count: count, to: now, count: newCount,
                                    deletions: deletions, insertions: insertions, modifications: modifications))
                layout = now
                count = newCount
            case .error: break
            }
        }
    }

    /// `observe` delivered on `actor`: the block runs isolated to it and gets
    /// the sections as the actor's Realm reads them.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, SectionedResultsChange<SectionedResults>) -> Void) async -> NotificationToken {
        await RealmLite.observe(self, on: actor, what: "SectionedResults", isolation: _isolation) { actor, sections in
            sections.observe(keyPaths: keyPaths) { invokeIsolated(actor, block, $0) }
        }
    }

    /// The changes as an `AsyncSequence` (see ``ChangeSequence``).
    public var changes: ChangeSequence<SectionedResultsChange<SectionedResults>> { changes(keyPaths: nil) }

    /// ``changes`` counting only changes to `keyPaths` as modifications.
    public func changes(keyPaths: [String]?) -> ChangeSequence<SectionedResultsChange<SectionedResults>> {
        ChangeSequence(register: { (self.observe(keyPaths: keyPaths, $0), self.results.realmInstance) }, isLast: { _ in false })
    }

    private func sectionChange(from old: SectionLayout<Key>, count oldCount: Int, to new: SectionLayout<Key>, count newCount: Int,
                               deletions: [Int], insertions: [Int], modifications: [Int]) -> SectionedResultsChange<SectionedResults> {
        let oldPaths = old.paths(count: oldCount), newPaths = new.paths(count: newCount)
        var sectionsToDelete = IndexSet(), sectionsToInsert = IndexSet()
        for (index, key) in old.keys.enumerated() where new.sectionOf[key] == nil { sectionsToDelete.insert(index) }
        for (index, key) in new.keys.enumerated() where old.sectionOf[key] == nil { sectionsToInsert.insert(index) }
        var deleted = deletions.map { oldPaths[$0] }, inserted = insertions.map { newPaths[$0] }
        var modified = Set(modifications)
        // Kept elements pair up in order; one whose section changed moves.
        let gone = Set(deletions), added = Set(insertions)
        var newIndex = 0
        for oldIndex in 0..<oldCount where !gone.contains(oldIndex) {
            while added.contains(newIndex) { newIndex += 1 }
            guard newIndex < newCount else { break }
            if old.keys[oldPaths[oldIndex][0]] != new.keys[newPaths[newIndex][0]] {
                deleted.append(oldPaths[oldIndex])
                inserted.append(newPaths[newIndex])
                modified.remove(oldIndex)
            }
            newIndex += 1
        }
        return .update(self,
                       deletions: deleted.filter { !sectionsToDelete.contains($0[0]) }.sorted(),
                       insertions: inserted.filter { !sectionsToInsert.contains($0[0]) }.sorted(),
                       modifications: modified.map { oldPaths[$0] }.sorted(),
                       sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete)
    }
}

extension ResultsSection {
    /// Calls `block` with `.initial` soon, then after each commit that
    /// changes this section: its rows deleted, inserted and modified (index
    /// paths [section, row], the section's index in its sectioned results
    /// before and after). When the section's last element goes, every row
    /// is reported deleted and the section in `sectionsToDelete`; when its
    /// key comes back, in `sectionsToInsert` with its rows.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken {
        if let queue { return RealmLite.observe(self, on: queue) { $0.observe(keyPaths: keyPaths, block) } }
        let key = self.key, cache = self.cache
        var index: Int?, rows = 0
        return SectionedResults(cache: cache).observe(keyPaths: keyPaths) { change in
            let layout = cache.current
            let now = layout.sectionOf[key]
            let nowRows = now.map { layout.rows[$0].count } ?? 0
            defer { (index, rows) = (now, nowRows) }
            switch change {
            case .initial: block(.initial(self))
            case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
                var deleted = deletions.filter { $0[0] == index }, inserted = insertions.filter { $0[0] == now }
                var gone = IndexSet(), came = IndexSet()
                if let index, sectionsToDelete.contains(index) {
                    deleted = (0..<rows).map { IndexPath(indexes: [index, $0]) }
                    gone.insert(index)
                }
                if let now, sectionsToInsert.contains(now) {
                    inserted = (0..<nowRows).map { IndexPath(indexes: [now, $0]) }
                    came.insert(now)
                }
                let modified = modifications.filter { $0[0] == index }
                if deleted.isEmpty && inserted.isEmpty && modified.isEmpty { return }
                block(.update(self, deletions: deleted, insertions: inserted, modifications: modified,
                              sectionsToInsert: came, sectionsToDelete: gone))
            }
        }
    }
}
