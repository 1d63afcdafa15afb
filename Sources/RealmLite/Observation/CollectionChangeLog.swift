import Foundation
import Synchronization

// What each commit of this process did to the Lists, MutableSets and Maps
// in the collections tree, so that an observer's change is folded from the
// edits (ListChangeFold.swift by position, EntryChangeFold.swift by element
// or key) instead of found by reading and comparing the whole collection at
// two versions (ListObservation.swift, MapChange.swift).
//
// Each write collects its edits per collection (owner and column) in its
// WriteTransaction; the commit files them in its env's log under the
// version it made. Each edit names the collection's state before and after
// it: a tree collection's marker (id, serial, count; the serial changes
// with every mutation) or empty. A change is folded only if the log holds
// every version in the range and the edits chain from the collection's
// state at the older version to its state at the newer one. So anything the
// log did not see breaks the chain and the versions are compared instead: a
// commit by another process or before the env was opened (a version
// missing), a version range older than the log keeps, a collection changed
// by a path that does not log (an element removed because its object was
// deleted), a collection kept in its owner's record (no marker; those are
// short), a write that registered classes (a migration).

/// A collection's state as an edit chain sees it: nil for a non-empty
/// collection kept in its owner's record (which has no marker to check).
enum CollectionState: Equatable, Sendable {
    case empty
    case tree(id: UInt64, serial: UInt32, count: Int)

    init?(_ field: CollectionField) {
        if field.isNested { return nil }
        if let list = field.spilledList {
            self = .tree(id: list.id, serial: list.serial, count: list.count)
        } else if field.view.count == 0 {
            self = .empty
        } else {
            return nil
        }
    }
}

/// One mutation: of a List by position, of a MutableSet or Map by content
/// (the element's stored bytes, or the map key's).
struct CollectionEdit: Sendable {
    enum Operation: Sendable {
        /// List elements `range` replaced by `count` new ones (insert,
        /// remove, set by index, removeAll: those in place are modified).
        case replace(Range<Int>, count: Int)
        case move(from: Int, to: Int)
        case swap(Int, Int)
        /// Set elements or map keys added, and map keys whose value was
        /// stored again (even the same value: a modification, as in Realm).
        case put(added: [[UInt8]], replaced: [[UInt8]])
        /// Set elements or map keys removed.
        case remove([[UInt8]])
        /// Every entry removed (the state after is empty).
        case removeAll
    }
    let before: CollectionState
    var after: CollectionState?
    var operation: Operation

    /// What the edit counts for against the log's bound: its elements or keys.
    var weight: Int {
        switch operation {
        case .put(let added, let replaced): return max(1, added.count + replaced.count)
        case .remove(let contents): return max(1, contents.count)
        default: return 1
        }
    }
}

/// A collection: its owner and column.
struct CollectionEditKey: Hashable, Sendable {
    let className: String
    let key: UInt64
    let column: Int
}

/// The collection edits of the commits this process made on one file, newest last.
/// @unchecked Sendable: `state` is only touched with `lock` held (an NSLock
/// over a plain field rather than a Protected: every open makes one of
/// these, and Protected<State>'s generic metadata would be built then).
final class CollectionChangeLog: @unchecked Sendable {
    struct Commit: Sendable {
        let version: UInt64
        let edits: [CollectionEditKey: [CollectionEdit]]
        var editCount: Int { edits.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.weight } } }
    }

    /// Bounds on what is kept: an observer further behind compares versions.
    static let maxCommits = 1024
    static let maxEdits = 200_000

    /// Changes folded from edits and changes found by comparing versions,
    /// over the process (tests check which way a change was found).
    static let folded = Atomic<Int>(0)
    static let compared = Atomic<Int>(0)

    private struct State {
        var commits: [Commit] = []
        var edits = 0
    }
    private let lock = NSLock()
    private var state = State()

    /// Files a commit's edits (commits may arrive out of order: a writer
    /// files after the lock is released).
    func record(_ commit: Commit) {
        lock.withLock {
            let at = state.commits.lastIndex { $0.version < commit.version }.map { $0 + 1 } ?? 0
            state.commits.insert(commit, at: at)
            state.edits += commit.editCount
            while state.commits.count > Self.maxCommits || (state.edits > Self.maxEdits && state.commits.count > 1) {
                state.edits -= state.commits.removeFirst().editCount
            }
        }
    }

    /// The edits of `list` (any collection) in the versions after `base`
    /// up to `now`, in order; nil unless the log holds every one of those
    /// versions.
    func edits(of list: CollectionEditKey, after base: UInt64, through now: UInt64) -> [CollectionEdit]? {
        guard now > base else { return now == base ? [] : nil }
        return lock.withLock {
            guard let first = state.commits.firstIndex(where: { $0.version == base + 1 }),
                  first + Int(now - base) <= state.commits.count,
                  state.commits[first + Int(now - base) - 1].version == now else { return nil }
            var edits: [CollectionEdit] = []
            for commit in state.commits[first..<(first + Int(now - base))] {
                if let collectionEdits = commit.edits[list] { edits.append(contentsOf: collectionEdits) }
            }
            return edits
        }
    }
}

/// The edits one write collected.
struct CollectionEditsOfWrite {
    var edits: [CollectionEditKey: [CollectionEdit]] = [:]
    /// A collection was edited while none was observed, so nothing was noted:
    /// the commit is not filed (an observer added meanwhile compares).
    var skipped = false

    /// Live List, MutableSet and Map observers in the process: edits are noted only while
    /// there are some, so writes pay nothing for the log otherwise.
    static let observers = Atomic<Int>(0)

    /// REALMLITE_LIST_CHANGE_LOG=0 notes no edits, so every List, MutableSet
    /// and Map change is found by comparing versions (benchmarks compare
    /// the two ways).
    static let enabled = ProcessInfo.processInfo.environment["REALMLITE_LIST_CHANGE_LOG"] != "0"

    mutating func append(_ edit: CollectionEdit, to key: CollectionEditKey) {
        guard var last = edits[key]?.popLast() else { return edits[key] = [edit] }
        if last.after == edit.before, last.absorb(edit.operation) {
            last.after = edit.after
            return edits[key]!.append(last)
        }
        edits[key]!.append(contentsOf: [last, edit])
    }
}

extension CollectionEdit {
    /// Makes this edit include `next`, made right after it, if the two are
    /// one edit: consecutive appends (or inserts one after another), puts or
    /// removals. A million appends in one write are not a million edits.
    mutating func absorb(_ next: Operation) -> Bool {
        switch next {
        case .replace(let nextRange, let added):
            // Not after a removal: `count < range.count` elements deleted, then
            // inserted there, would read as modified in place.
            guard case .replace(let range, let count) = operation, nextRange.isEmpty, count >= range.count,
                  nextRange.lowerBound == range.lowerBound + count else { return false }
            operation = .replace(range, count: count + added)
        case .put(let moreAdded, let moreReplaced):
            // A key added by the first and stored again by the second is still added first.
            guard case .put(var added, var replaced) = operation else { return false }
            operation = .removeAll // the arrays are now uniquely referenced: appended in place
            added.append(contentsOf: moreAdded)
            replaced.append(contentsOf: moreReplaced)
            operation = .put(added: added, replaced: replaced)
        case .remove(let more):
            guard case .remove(var removed) = operation else { return false }
            operation = .removeAll
            removed.append(contentsOf: more)
            operation = .remove(removed)
        default:
            return false
        }
        return true
    }
}

extension WriteTransaction {
    /// This write's edits as a commit of the version it makes; nil if the
    /// log must not vouch for it (edits went unnoted, or it registered
    /// classes: a migration).
    var collectionChangeCommit: CollectionChangeLog.Commit? {
        guard registeredClasses.isEmpty, !collectionEdits.skipped else { return nil }
        return CollectionChangeLog.Commit(version: txn.id, edits: collectionEdits.edits)
    }
}

extension CollectionField {
    /// The state to log an edit from: nil if this collection's edits are
    /// not logged (nested, a non-empty list in the record, or a set or map
    /// that is not in the tree).
    var stateForLog: CollectionState? {
        guard let write = realm.write, !isNested else { return nil }
        guard owner._info.unsafelyUnwrapped.columns[column].collection == .list || spilledEntries != nil else { return nil }
        guard CollectionEditsOfWrite.enabled, CollectionEditsOfWrite.observers.load(ordering: .relaxed) > 0 else {
            write.collectionEdits.skipped = true
            return nil
        }
        return CollectionState(self)
    }

    /// Notes an edit the current write made, from `before` to the collection's state now.
    func logEdit(_ operation: CollectionEdit.Operation, from before: CollectionState?) {
        guard let before, let write = realm.write else { return }
        let key = CollectionEditKey(className: owner._info.unsafelyUnwrapped.name, key: owner._key, column: column)
        write.collectionEdits.append(CollectionEdit(before: before, after: CollectionState(self), operation: operation), to: key)
    }
}
