import Foundation
import Synchronization

// What each commit of this process did to Lists in the lists tree, by
// position, so that a List observer's change is folded from the edits
// (ListChangeFold.swift) instead of found by reading and comparing the
// whole list at two versions (ListObservation.swift).
//
// Each write collects its edits per list (owner and column) in its
// WriteTransaction; the commit files them in its env's log under the
// version it made. Each edit names the list's state before and after it: a
// tree list's marker (id, serial, count; the serial changes with every
// mutation) or empty. A change is folded only if the log holds every
// version in the range and the edits chain from the list's state at the
// older version to its state at the newer one. So anything the log did not
// see breaks the chain and the versions are compared instead: a commit by
// another process or before the env was opened (a version missing), a
// version range older than the log keeps, a list changed by a path that
// does not log (an element removed because its object was deleted), a list
// kept in its owner's record (no marker; those are short), a write that
// registered classes (a migration).

/// A List's state as an edit chain sees it: nil for a non-empty list kept
/// in its owner's record (which has no marker to check).
enum ListState: Equatable, Sendable {
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

/// One List mutation, by position.
struct ListEdit: Sendable {
    enum Operation: Sendable {
        /// Elements `range` replaced by `count` new ones (insert, remove,
        /// set by index, removeAll: those in place are modified).
        case replace(Range<Int>, count: Int)
        case move(from: Int, to: Int)
        case swap(Int, Int)
    }
    let before: ListState
    let after: ListState?
    let operation: Operation
}

/// A List: its owner and column.
struct ListEditKey: Hashable, Sendable {
    let className: String
    let key: UInt64
    let column: Int
}

/// The edits of the commits this process made on one file, newest last.
final class ListChangeLog: Sendable {
    struct Commit: Sendable {
        let version: UInt64
        let edits: [ListEditKey: [ListEdit]]
        var editCount: Int { edits.values.reduce(0) { $0 + $1.count } }
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
    private let state = Protected(State())

    /// Files a commit's edits (commits may arrive out of order: a writer
    /// files after the lock is released).
    func record(_ commit: Commit) {
        state.withLock { state in
            let at = state.commits.lastIndex { $0.version < commit.version }.map { $0 + 1 } ?? 0
            state.commits.insert(commit, at: at)
            state.edits += commit.editCount
            while state.commits.count > Self.maxCommits || (state.edits > Self.maxEdits && state.commits.count > 1) {
                state.edits -= state.commits.removeFirst().editCount
            }
        }
    }

    /// The edits of `list` in the versions after `base` up to `now`, in
    /// order; nil unless the log holds every one of those versions.
    func edits(of list: ListEditKey, after base: UInt64, through now: UInt64) -> [ListEdit]? {
        guard now > base else { return now == base ? [] : nil }
        return state.withLock { state in
            guard let first = state.commits.firstIndex(where: { $0.version == base + 1 }),
                  first + Int(now - base) <= state.commits.count,
                  state.commits[first + Int(now - base) - 1].version == now else { return nil }
            var edits: [ListEdit] = []
            for commit in state.commits[first..<(first + Int(now - base))] {
                if let listEdits = commit.edits[list] { edits.append(contentsOf: listEdits) }
            }
            return edits
        }
    }
}

/// The edits one write collected.
struct ListEditsOfWrite {
    var edits: [ListEditKey: [ListEdit]] = [:]
    /// A List was edited while no List was observed, so nothing was noted:
    /// the commit is not filed (an observer added meanwhile compares).
    var skipped = false

    /// Live List observers in the process: edits are noted only while
    /// there are some, so writes pay nothing for the log otherwise.
    static let observers = Atomic<Int>(0)

    /// REALMLITE_LIST_CHANGE_LOG=0 notes no edits, so every List change is
    /// found by comparing versions (benchmarks compare the two ways).
    static let enabled = ProcessInfo.processInfo.environment["REALMLITE_LIST_CHANGE_LOG"] != "0"

    mutating func append(_ edit: ListEdit, to key: ListEditKey) {
        // Consecutive appends (or inserts one after another) are one edit:
        // a million appends in one write are not a million edits.
        if case .replace(let range, let count)? = edits[key]?.last?.operation, case .replace(let next, let added) = edit.operation,
           next.isEmpty, next.lowerBound == range.lowerBound + count, edits[key]?.last?.after == edit.before {
            let first = edits[key]!.removeLast()
            edits[key]!.append(ListEdit(before: first.before, after: edit.after, operation: .replace(range, count: count + added)))
            return
        }
        edits[key, default: []].append(edit)
    }
}

extension WriteTransaction {
    /// This write's edits as a commit of the version it makes; nil if the
    /// log must not vouch for it (edits went unnoted, or it registered
    /// classes: a migration).
    var listChangeCommit: ListChangeLog.Commit? {
        guard registeredClasses.isEmpty, !listEdits.skipped else { return nil }
        return ListChangeLog.Commit(version: txn.id, edits: listEdits.edits)
    }
}

extension CollectionField {
    /// The state to log an edit from: nil if this list's edits are not
    /// logged (not a List column, nested, or a non-empty list in the record).
    var listStateForLog: ListState? {
        guard let write = realm.write, !isNested, owner._info.unsafelyUnwrapped.columns[column].collection == .list else { return nil }
        guard ListEditsOfWrite.enabled, ListEditsOfWrite.observers.load(ordering: .relaxed) > 0 else {
            write.listEdits.skipped = true
            return nil
        }
        return ListState(self)
    }

    /// Notes an edit the current write made, from `before` to the list's state now.
    func logListEdit(_ operation: ListEdit.Operation, from before: ListState?) {
        guard let before, let write = realm.write else { return }
        let key = ListEditKey(className: owner._info.unsafelyUnwrapped.name, key: owner._key, column: column)
        write.listEdits.append(ListEdit(before: before, after: ListState(self), operation: operation), to: key)
    }
}
