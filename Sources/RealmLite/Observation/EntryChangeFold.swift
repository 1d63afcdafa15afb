// Folds a MutableSet's or Map's edits, in commit order, into what happened
// to each element or key, with Realm's rules: an element or key present
// before and removed is a deletion, even if it was added again (then it is
// an insertion too); one added and then removed is nothing; a map key whose
// value was stored again (even the same value) and kept is a modification,
// one added and then stored again an insertion only. The cost follows the
// number of elements or keys edited, not the collection's size.

struct EntryChangeFold {
    private enum Presence {
        /// The element or key present before the edits, still there.
        case old
        /// Added by the edits.
        case added
        case absent
    }

    private struct Entry {
        var presence: Presence
        var oldRemoved = false
        var oldStored = false
    }

    private var entries: [[UInt8]: Entry] = [:]

    /// Applies one edit; false for an edit that is not a set's or a map's
    /// (removeAll empties the collection: the caller does not fold past it).
    mutating func apply(_ edit: CollectionEdit.Operation) -> Bool {
        switch edit {
        case .put(let added, let replaced):
            for content in added { entries[content, default: Entry(presence: .absent)].presence = .added }
            for content in replaced {
                // Stored again while present: present before unless added by the edits.
                var entry = entries[content] ?? Entry(presence: .old)
                if entry.presence == .old { entry.oldStored = true }
                entries[content] = entry
            }
        case .remove(let removed):
            for content in removed {
                var entry = entries[content] ?? Entry(presence: .old)
                if entry.presence == .old { entry.oldRemoved = true }
                entry.presence = .absent
                entries[content] = entry
            }
        case .replace, .move, .swap, .removeAll:
            return false
        }
        return true
    }

    /// Elements or keys there before and removed since, in byte order.
    var deleted: [[UInt8]] { select { $0.oldRemoved } }
    /// Elements or keys added and there now, in byte order.
    var inserted: [[UInt8]] { select { $0.presence == .added } }
    /// Map keys there before and now whose value was stored again, in byte order.
    var stored: [[UInt8]] { select { $0.presence == .old && $0.oldStored } }

    /// True if the element or key, if it was there before, is still the same one.
    func isKept(_ content: [UInt8]) -> Bool {
        entries[content].map { $0.presence == .old } ?? true
    }

    private func select(_ include: (Entry) -> Bool) -> [[UInt8]] {
        entries.compactMap { include($0.value) ? $0.key : nil }.sorted { $0.lexicographicallyPrecedes($1) }
    }
}
