// Folds a List's positional edits, in commit order, into one collection
// change (deletions in old indices, insertions in new ones, modifications
// in old ones), with Realm's rules: an element modified and then removed is
// a deletion only, one inserted and then modified an insertion only, and a
// moved element is removed and inserted.
//
// The list is kept as runs: a run of elements that were there before the
// first edit (a range of old indices) or of elements inserted since. Edits
// only split and drop runs of old elements, never reorder them, so kept old
// indices ascend through the runs and the gaps between them are the
// deletions. The cost follows the number of edits (runs), not the length.

struct ListChangeFold {
    private enum Run {
        case kept(start: Int, count: Int)
        case inserted(count: Int)

        var count: Int {
            switch self {
            case .kept(_, let count), .inserted(let count): return count
            }
        }
    }

    /// Past this many runs the edits are too scattered to be worth folding:
    /// comparing the two versions costs less.
    static let maxRuns = 4096

    private var runs: [Run]
    private var modified = Set<Int>()
    private let oldCount: Int

    init(oldCount: Int) {
        self.oldCount = oldCount
        runs = oldCount > 0 ? [.kept(start: 0, count: oldCount)] : []
    }

    /// False once the runs are too many (the fold is then abandoned).
    var isWorthFolding: Bool { runs.count <= Self.maxRuns }

    /// Applies one edit (indices as the list was just before it); false
    /// for an edit that is not a List's.
    mutating func apply(_ edit: CollectionEdit.Operation) -> Bool {
        switch edit {
        case .replace(let range, let count):
            let common = min(range.count, count)
            for position in range.lowerBound..<(range.lowerBound + common) { modify(at: position) }
            if range.count > count {
                remove((range.lowerBound + count)..<range.upperBound)
            } else {
                insert(at: range.upperBound, count: count - range.count)
            }
        case .move(let from, let to):
            remove(from..<(from + 1))
            insert(at: to, count: 1)
        case .swap(let a, let b):
            modify(at: a)
            modify(at: b)
        case .put, .remove, .removeAll:
            return false
        }
        return true
    }

    /// The run index a run boundary at `position` starts (after splitting
    /// the run that spans it); runs.count at the end.
    private mutating func split(at position: Int) -> Int {
        var offset = 0
        for i in runs.indices {
            if position == offset { return i }
            let count = runs[i].count
            if position < offset + count {
                let head = position - offset
                switch runs[i] {
                case .kept(let start, let count):
                    runs[i] = .kept(start: start, count: head)
                    runs.insert(.kept(start: start + head, count: count - head), at: i + 1)
                case .inserted(let count):
                    runs[i] = .inserted(count: head)
                    runs.insert(.inserted(count: count - head), at: i + 1)
                }
                return i + 1
            }
            offset += count
        }
        return runs.count
    }

    private mutating func insert(at position: Int, count: Int) {
        guard count > 0 else { return }
        let i = split(at: position)
        if i > 0, case .inserted(let before) = runs[i - 1] {
            runs[i - 1] = .inserted(count: before + count)
        } else {
            runs.insert(.inserted(count: count), at: i)
        }
    }

    private mutating func remove(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        let first = split(at: range.lowerBound)
        let end = split(at: range.upperBound)
        runs.removeSubrange(first..<end)
    }

    /// An element replaced in place: modified if it was there before.
    private mutating func modify(at position: Int) {
        var offset = 0
        for run in runs {
            if position < offset + run.count {
                if case .kept(let start, _) = run { modified.insert(start + position - offset) }
                return
            }
            offset += run.count
        }
    }

    /// The change folded so far.
    func change() -> (deletions: [Int], insertions: [Int], modifications: [Int]) {
        var deletions: [Int] = [], insertions: [Int] = []
        var position = 0, nextOld = 0
        for run in runs {
            switch run {
            case .kept(let start, let count):
                deletions.append(contentsOf: nextOld..<start)
                nextOld = start + count
            case .inserted(let count):
                insertions.append(contentsOf: position..<(position + count))
            }
            position += run.count
        }
        deletions.append(contentsOf: nextOld..<oldCount)
        return (deletions, insertions, modified.filter(isKept).sorted())
    }

    /// The old index of each element at `newIndexes` (ascending) that was
    /// there before the edits; elements inserted since are left out.
    func oldIndexes(ofNew newIndexes: [Int]) -> [Int] {
        var result: [Int] = []
        var position = 0, run = 0
        for index in newIndexes {
            while run < runs.count && index >= position + runs[run].count {
                position += runs[run].count
                run += 1
            }
            guard run < runs.count else { break }
            if case .kept(let start, _) = runs[run] { result.append(start + index - position) }
        }
        return result
    }

    private func isKept(_ old: Int) -> Bool {
        runs.contains { run in
            if case .kept(let start, let count) = run { return (start..<(start + count)).contains(old) }
            return false
        }
    }
}
