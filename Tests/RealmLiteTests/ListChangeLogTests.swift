import Foundation
@testable import RealmLite
import XCTest

let listChangeChildVariable = "REALMLITE_LIST_CHANGE_CHILD"

/// List notifications folded from the commits' edits (Observation/CollectionChangeLog.swift):
/// every delivered change, applied to the elements seen before, gives the
/// list delivered; the change comes from the log when it can, and from
/// comparing the versions when another process committed.
final class ListChangeLogTests: CollectionsTreeTestCase {
    let types: [ObjectBase.Type] = [TreeListOwner.self, TreeListPet.self, TreeListPart.self]
    override var spillThreshold: Int { 0 } // every non-empty list in the lists tree

    /// The elements an observer saw last, and what went wrong applying changes to them.
    final class Checker {
        var seen: [Int] = []
        var failures: [String] = []
        var updates = 0

        func check(_ change: RealmCollectionChange<List<Int>>) {
            switch change {
            case .initial(let list):
                seen = Array(list)
            case .update(let list, let deletions, let insertions, let modifications):
                updates += 1
                let now = Array(list)
                var applied = seen
                var origin: [Int?] = Array(seen.indices)
                if !Set(modifications).isDisjoint(with: deletions) { failures.append("an index both modified and deleted") }
                if modifications.contains(where: { !seen.indices.contains($0) }) { failures.append("modification out of range") }
                for index in deletions.sorted(by: >) {
                    guard applied.indices.contains(index) else { return failures.append("deletion \(index) of \(applied.count)") }
                    applied.remove(at: index)
                    origin.remove(at: index)
                }
                for index in insertions.sorted() {
                    guard index <= applied.count, now.indices.contains(index) else { return failures.append("insertion \(index)") }
                    applied.insert(now[index], at: index)
                    origin.insert(nil, at: index)
                }
                guard applied.count == now.count else { return failures.append("\(seen) + change has \(applied.count) elements, delivered \(now.count)") }
                for (index, old) in origin.enumerated() {
                    guard let old else { continue }
                    if modifications.contains(old) {
                        applied[index] = now[index]
                    } else if seen[old] != now[index] {
                        failures.append("\(seen[old]) became \(now[index]) without a modification")
                    }
                }
                if applied != now { failures.append("\(seen) + change = \(applied), delivered \(now)") }
                seen = now
            case .error(let error):
                failures.append("\(error)")
            }
        }
    }

    func testRandomEditsAcrossCoalescedCommitsFoldIntoTheRightChanges() throws {
        let realm = try openRealm(types)
        try realm.write { realm.create(TreeListOwner.self, value: ["id": 1]).numbers.append(objectsIn: 0..<50) }
        let list = realm.object(ofType: TreeListOwner.self, forPrimaryKey: 1)!.numbers
        let checker = Checker()
        let token = list.observe { checker.check($0) }
        defer { token.invalidate() }
        nextTurn()
        let (folded, compared) = (CollectionChangeLog.folded.load(ordering: .relaxed), CollectionChangeLog.compared.load(ordering: .relaxed))
        var generator = SystemRandomNumberGenerator()
        var next = 1000
        func value() -> Int { next += 1; return next }
        for _ in 0..<150 {
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                realm.beginWrite()
                for _ in 0..<Int.random(in: 1...5, using: &generator) {
                    let count = list.count
                    switch Int.random(in: 0..<20, using: &generator) {
                    case 0..<4: list.insert(value(), at: Int.random(in: 0...count, using: &generator))
                    case 4..<7: list.append(value())
                    case 7: list.append(objectsIn: (0..<Int.random(in: 1...5, using: &generator)).map { _ in value() })
                    case 8..<11: if count > 0 { list.remove(at: Int.random(in: 0..<count, using: &generator)) }
                    case 11..<13:
                        if count > 0 { list.move(from: Int.random(in: 0..<count, using: &generator), to: Int.random(in: 0..<count, using: &generator)) }
                    case 13..<15: if count > 0 { list[Int.random(in: 0..<count, using: &generator)] = value() }
                    case 15: if count > 0 { list.swapAt(Int.random(in: 0..<count, using: &generator), Int.random(in: 0..<count, using: &generator)) }
                    case 16..<18:
                        let low = Int.random(in: 0...count, using: &generator), high = Int.random(in: low...count, using: &generator)
                        list.replaceSubrange(low..<high, with: (0..<Int.random(in: 0...3, using: &generator)).map { _ in value() })
                    case 18: if Int.random(in: 0..<4, using: &generator) == 0 { list.removeAll() }
                    default: break
                    }
                }
                if Int.random(in: 0..<10, using: &generator) == 0 { realm.cancelWrite() } else { try realm.commitWrite() }
            }
            nextTurn()
            XCTAssertEqual(checker.seen, Array(list))
        }
        XCTAssertEqual(checker.failures, [])
        XCTAssertGreaterThan(checker.updates, 100)
        XCTAssertGreaterThan(CollectionChangeLog.folded.load(ordering: .relaxed) - folded, 100, "changes folded from the log")
        XCTAssertEqual(CollectionChangeLog.compared.load(ordering: .relaxed) - compared, 0, "no change of a tree list compared versions")
    }

    func testAnAppendToABigListIsFoldedNotCompared() throws {
        let realm = try openRealm(types)
        try realm.write { realm.create(TreeListOwner.self, value: ["id": 1]).numbers.append(objectsIn: 0..<5000) }
        let list = realm.object(ofType: TreeListOwner.self, forPrimaryKey: 1)!.numbers
        var changes: [[[Int]]] = []
        let token = list.observe { change in
            if case let .update(_, deletions, insertions, modifications) = change { changes.append([deletions, insertions, modifications]) }
        }
        defer { token.invalidate() }
        nextTurn()
        let (folded, compared) = (CollectionChangeLog.folded.load(ordering: .relaxed), CollectionChangeLog.compared.load(ordering: .relaxed))
        try realm.write { list.append(-1) }
        nextTurn()
        try realm.write { list[10] = -2; list.remove(at: 0) }
        nextTurn()
        XCTAssertEqual(changes, [[[], [5000], []], [[0], [], [10]]])
        XCTAssertEqual(CollectionChangeLog.folded.load(ordering: .relaxed) - folded, 2)
        XCTAssertEqual(CollectionChangeLog.compared.load(ordering: .relaxed) - compared, 0)
    }

    /// A removal followed in the same write by an insertion where it was is
    /// a deletion and an insertion, as when the versions are compared; only
    /// a set by index is a modification. (Two such edits once merged into
    /// one "replace in place".)
    func testARemovalThenAnInsertionThereIsNotAModification() throws {
        let realm = try openRealm(types)
        try realm.write {
            realm.create(TreeListOwner.self, value: ["id": 1]).numbers.append(objectsIn: [1, 2, 3])
            realm.create(TreeListOwner.self, value: ["id": 2]).numbers.append(7)
        }
        let list = realm.object(ofType: TreeListOwner.self, forPrimaryKey: 1)!.numbers
        let single = realm.object(ofType: TreeListOwner.self, forPrimaryKey: 2)!.numbers
        var changes: [[[Int]]] = [], singleChanges: [[[Int]]] = []
        let tokens = [
            list.observe { change in
                if case let .update(_, deletions, insertions, modifications) = change { changes.append([deletions, insertions, modifications]) }
            },
            single.observe { change in
                if case let .update(_, deletions, insertions, modifications) = change { singleChanges.append([deletions, insertions, modifications]) }
            },
        ]
        defer { tokens.forEach { $0.invalidate() } }
        nextTurn()
        let compared = CollectionChangeLog.compared.load(ordering: .relaxed)
        try realm.write { list.remove(at: 1); list.insert(9, at: 1) }
        nextTurn()
        try realm.write { list.remove(at: 2); list.append(8) }
        nextTurn()
        try realm.write { list[0] = 5; list.append(6) }
        nextTurn()
        // The only element removed (the list leaves the tree) and another appended.
        try realm.write { single.remove(at: 0); single.append(4) }
        nextTurn()
        XCTAssertEqual(changes, [[[1], [1], []], [[2], [2], []], [[], [3], [0]]])
        XCTAssertEqual(singleChanges, [[[0], [0], []]])
        XCTAssertEqual(Array(list), [5, 9, 8, 6])
        XCTAssertEqual(Array(single), [4])
        XCTAssertEqual(CollectionChangeLog.compared.load(ordering: .relaxed) - compared, 0, "every change folded from the log")
    }

    /// A list replaced as a whole (create with update, setValue) is
    /// reported, however many times it gets the same length.
    func testAWholeListReplacedIsReported() throws {
        let realm = try openRealm(types)
        try realm.write { realm.create(TreeListOwner.self, value: ["id": 1, "numbers": [1, 2, 3]]) }
        let owner = realm.object(ofType: TreeListOwner.self, forPrimaryKey: 1)!
        var seen: [[Int]] = []
        let token = owner.numbers.observe { change in
            switch change {
            case .initial(let list): seen.append(Array(list))
            case .update(let list, let deletions, let insertions, let modifications):
                var applied = seen.last!
                for i in deletions.sorted(by: >) { applied.remove(at: i) }
                for i in insertions.sorted() { applied.insert(list[i], at: i) }
                for i in modifications { applied[i] = list[i] }
                XCTAssertEqual(applied, Array(list), "\(seen.last!) + change")
                seen.append(Array(list))
            case .error(let error): XCTFail("\(error)")
            }
        }
        defer { token.invalidate() }
        nextTurn()
        for values in [[4, 5, 6], [7, 8, 9], [1], [2]] {
            try realm.write { realm.create(TreeListOwner.self, value: ["id": 1, "numbers": values], update: .modified) }
            nextTurn()
        }
        try realm.write { owner.setValue([3], forKey: "numbers") }
        nextTurn()
        XCTAssertEqual(seen, [[1, 2, 3], [4, 5, 6], [7, 8, 9], [1], [2], [3]])
    }

    func testALinkedObjectChangeInABigListIsAModification() throws {
        let realm = try openRealm(types)
        try realm.write {
            let owner = realm.create(TreeListOwner.self, value: ["id": 1])
            for i in 0..<100 { owner.pets.append(TreeListPet(value: ["name": "p\(i)"])) }
        }
        let pets = realm.object(ofType: TreeListOwner.self, forPrimaryKey: 1)!.pets
        var changes: [[[Int]]] = []
        let token = pets.observe { change in
            if case let .update(_, deletions, insertions, modifications) = change { changes.append([deletions, insertions, modifications]) }
        }
        defer { token.invalidate() }
        nextTurn()
        let folded = CollectionChangeLog.folded.load(ordering: .relaxed)
        try realm.write {
            pets[7].name = "renamed"
            pets.insert(TreeListPet(value: ["name": "new"]), at: 0)
        }
        nextTurn()
        XCTAssertEqual(changes, [[[], [0], [7]]])
        XCTAssertEqual(CollectionChangeLog.folded.load(ordering: .relaxed) - folded, 1)
    }

    /// The child-process entry point: edits the list of owner 1 and exits.
    func testEditListFromAChildProcess() throws {
        guard let path = ProcessInfo.processInfo.environment[listChangeChildVariable] else {
            throw XCTSkip("the child-process entry point of ListChangeLogTests: runs only with \(listChangeChildVariable) set")
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: types))
        let list = realm.object(ofType: TreeListOwner.self, forPrimaryKey: 1)!.numbers
        try realm.write {
            list.remove(at: 0)
            list.append(1000)
            list.move(from: 10, to: 20)
        }
        exit(0)
    }

    func testAnotherProcessesCommitIsCompared() throws {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, objectTypes: types))
        try realm.write { realm.create(TreeListOwner.self, value: ["id": 1, "numbers": Array(0..<100)]) }
        let list = realm.object(ofType: TreeListOwner.self, forPrimaryKey: 1)!.numbers
        let checker = Checker()
        let delivered = expectation(description: "the other process's edits")
        let token = list.observe { change in
            checker.check(change)
            if case .update = change { delivered.fulfill() }
        }
        defer { token.invalidate() }
        nextTurn()
        let compared = CollectionChangeLog.compared.load(ordering: .relaxed)
        guard let (child, output) = runChildTest("RealmLiteTests.ListChangeLogTests/testEditListFromAChildProcess",
                                                 [listChangeChildVariable: fileURL.path]) else { return }
        XCTAssertEqual(child.terminationStatus, 0, output)
        wait(for: [delivered], timeout: 30)
        nextTurn()
        var expected = Array(1..<100) + [1000]
        expected.insert(expected.remove(at: 10), at: 20)
        XCTAssertEqual(Array(list), expected)
        XCTAssertEqual(checker.seen, expected)
        XCTAssertEqual(checker.failures, [])
        XCTAssertEqual(CollectionChangeLog.compared.load(ordering: .relaxed) - compared, 1, "the other process's commit is not in this process's log")

        // A commit here after it is folded again: the log covers the range.
        let folded = CollectionChangeLog.folded.load(ordering: .relaxed)
        try realm.write { list.append(7) }
        nextTurn()
        XCTAssertEqual(checker.seen, expected + [7])
        XCTAssertEqual(CollectionChangeLog.folded.load(ordering: .relaxed) - folded, 1)
    }
}
