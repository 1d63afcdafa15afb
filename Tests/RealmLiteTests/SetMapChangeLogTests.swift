import Foundation
@testable import RealmLite
import XCTest

let setMapChangeChildVariable = "REALMLITE_SET_MAP_CHANGE_CHILD"

final class SetMapLogOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var ints: MutableSet<Int>
    @Persisted var scores: Map<String, Int?>
    @Persisted var pets: MutableSet<SetMapLogPet>
    @Persisted var petsByName: Map<String, SetMapLogPet?>
}

final class SetMapLogPet: Object {
    @Persisted var name = ""
    @Persisted var age = 0
}

/// MutableSet and Map notifications from the commits' own edits
/// (Observation/SetMapObservation.swift): every delivered change, applied to
/// what the observer saw before, gives what it sees now; the change comes
/// from the log when it can, and from comparing the versions when another
/// process committed.
final class SetMapChangeLogTests: CollectionsTreeTestCase {
    let types: [ObjectBase.Type] = [SetMapLogOwner.self, SetMapLogPet.self]
    override var spillThreshold: Int { 0 } // every non-empty set or map in the collections tree

    var counters: (folded: Int, compared: Int) {
        (CollectionChangeLog.folded.load(ordering: .relaxed), CollectionChangeLog.compared.load(ordering: .relaxed))
    }

    /// The elements a set observer saw last, and what went wrong applying changes to them.
    final class SetChecker {
        var seen: [Int] = []
        var failures: [String] = []
        var updates = 0

        func check(_ change: RealmCollectionChange<MutableSet<Int>>) {
            switch change {
            case .initial(let set):
                seen = Array(set)
            case .update(let set, let deletions, let insertions, let modifications):
                updates += 1
                let now = Array(set)
                if !modifications.isEmpty { failures.append("modifications \(modifications) in a set of values") }
                var applied = seen
                for index in deletions.sorted(by: >) {
                    guard applied.indices.contains(index) else { return failures.append("deletion \(index) of \(applied.count)") }
                    applied.remove(at: index)
                }
                for index in insertions.sorted() {
                    guard index <= applied.count, now.indices.contains(index) else { return failures.append("insertion \(index)") }
                    applied.insert(now[index], at: index)
                }
                if applied != now { failures.append("\(seen) + change = \(applied), delivered \(now)") }
                seen = now
            case .error(let error):
                failures.append("\(error)")
            }
        }
    }

    /// The entries a map observer saw last, and what went wrong applying changes to them.
    final class MapChecker {
        var seen: [String: Int?] = [:]
        var failures: [String] = []
        var updates = 0

        func check(_ change: RealmMapChange<Map<String, Int?>>) {
            switch change {
            case .initial(let map):
                seen = Dictionary(uniqueKeysWithValues: map.asKeyValueSequence().map { ($0.key, $0.value) })
            case .update(let map, let deletions, let insertions, let modifications):
                updates += 1
                let now = Dictionary(uniqueKeysWithValues: map.asKeyValueSequence().map { ($0.key, $0.value) })
                var applied = seen
                for key in deletions {
                    if applied.removeValue(forKey: key) == nil { failures.append("deleted \(key) was not there") }
                }
                for key in modifications {
                    guard seen[key] != nil, !deletions.contains(key), let value = now[key] else { return failures.append("modified \(key)") }
                    applied[key] = value
                }
                for key in insertions {
                    guard applied[key] == nil, let value = now[key] else { return failures.append("inserted \(key)") }
                    applied[key] = value
                }
                if applied.keys.sorted() != now.keys.sorted() || applied.contains(where: { now[$0.key]! != $0.value }) {
                    failures.append("\(seen) + change = \(applied), delivered \(now)")
                }
                seen = now
            case .error(let error):
                failures.append("\(error)")
            }
        }
    }

    func testRandomEditsAcrossCoalescedCommitsGiveTheRightChanges() throws {
        let realm = try openRealm(types)
        try realm.write {
            let owner = realm.create(SetMapLogOwner.self, value: ["id": 1])
            owner.ints.insert(objectsIn: 0..<50)
            for i in 0..<50 { owner.scores["k\(i)"] = i }
        }
        let owner = realm.object(ofType: SetMapLogOwner.self, forPrimaryKey: 1)!
        let set = owner.ints, map = owner.scores
        let setChecker = SetChecker(), mapChecker = MapChecker()
        let setToken = set.observe { setChecker.check($0) }
        let mapToken = map.observe { mapChecker.check($0) }
        defer { setToken.invalidate(); mapToken.invalidate() }
        nextTurn()
        let before = counters
        var generator = SystemRandomNumberGenerator()
        func element() -> Int { Int.random(in: 0..<150, using: &generator) }
        func key() -> String { "k\(Int.random(in: 0..<150, using: &generator))" }
        for _ in 0..<150 {
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                realm.beginWrite()
                for _ in 0..<Int.random(in: 1...6, using: &generator) {
                    switch Int.random(in: 0..<20, using: &generator) {
                    case 0..<4: set.insert(element())
                    case 4: set.insert(objectsIn: (0..<Int.random(in: 1...5, using: &generator)).map { _ in element() })
                    case 5..<8: set.remove(element())
                    case 8: if let present = set.randomElement() { set.remove(present) }
                    case 9: if Int.random(in: 0..<8, using: &generator) == 0 { set.removeAll() }
                    case 10..<13: map[key()] = Int.random(in: 0..<3, using: &generator) // often the same value again
                    case 13: map[key()] = .some(nil)
                    case 14..<17: map[key()] = nil
                    case 17:
                        // Removed and added again in one write: deleted and inserted.
                        let k = key()
                        map[k] = nil
                        map[k] = 7
                    case 18: if Int.random(in: 0..<8, using: &generator) == 0 { map.removeAll() }
                    default: set.subtract((0..<3).map { _ in element() })
                    }
                }
                if Int.random(in: 0..<10, using: &generator) == 0 { realm.cancelWrite() } else { try realm.commitWrite() }
            }
            nextTurn()
            XCTAssertEqual(setChecker.seen, Array(set))
        }
        XCTAssertEqual(setChecker.failures, [])
        XCTAssertEqual(mapChecker.failures, [])
        XCTAssertGreaterThan(setChecker.updates, 100)
        XCTAssertGreaterThan(mapChecker.updates, 100)
        XCTAssertGreaterThan(counters.folded - before.folded, 200, "changes folded from the log")
        XCTAssertEqual(counters.compared - before.compared, 0, "no change of a tree set or map compared versions")
    }

    func testChangesOfBigCollectionsAreFoldedWithRealmsRules() throws {
        let realm = try openRealm(types)
        try realm.write {
            let owner = realm.create(SetMapLogOwner.self, value: ["id": 1])
            owner.ints.insert(objectsIn: (0..<5000).map { $0 * 2 })
            for i in 0..<5000 { owner.scores["k\(i)"] = i }
        }
        let owner = realm.object(ofType: SetMapLogOwner.self, forPrimaryKey: 1)!
        let set = owner.ints, map = owner.scores
        var setChanges: [[[Int]]] = [], mapChanges: [[[String]]] = []
        let setToken = set.observe { change in
            if case let .update(_, deletions, insertions, modifications) = change { setChanges.append([deletions, insertions, modifications]) }
        }
        let mapToken = map.observe { change in
            if case let .update(_, deletions, insertions, modifications) = change { mapChanges.append([deletions, insertions, modifications]) }
        }
        defer { setToken.invalidate(); mapToken.invalidate() }
        nextTurn()
        let before = counters
        let removedAt = Array(set).firstIndex(of: 10)!
        try realm.write {
            set.insert(7)
            set.remove(10)
            set.insert(2) // already there: nothing
            map["k1"] = 1 // the same value: a modification, as in Realm
            map["k2"] = nil
            map["k2"] = 2 // removed and added again: deleted and inserted
            map["new"] = 1
            map["gone"] = 1
            map["gone"] = nil // added and removed: nothing
        }
        nextTurn()
        XCTAssertEqual(setChanges, [[[removedAt], [Array(set).firstIndex(of: 7)!], []]])
        XCTAssertEqual(mapChanges, [[["k2"], ["k2", "new"], ["k1"]]])
        XCTAssertEqual(counters.folded - before.folded, 2)
        XCTAssertEqual(counters.compared - before.compared, 0)
    }

    func testALinkedObjectChangeInABigSetOrMapIsAModification() throws {
        let realm = try openRealm(types)
        try realm.write {
            let owner = realm.create(SetMapLogOwner.self, value: ["id": 1])
            for i in 0..<100 {
                let pet = realm.create(SetMapLogPet.self, value: ["name": "p\(i)"])
                owner.pets.insert(pet)
                owner.petsByName["p\(i)"] = pet
            }
        }
        let owner = realm.object(ofType: SetMapLogOwner.self, forPrimaryKey: 1)!
        var setChanges: [[[Int]]] = [], mapChanges: [[[String]]] = []
        let setToken = owner.pets.observe { change in
            if case let .update(_, deletions, insertions, modifications) = change { setChanges.append([deletions, insertions, modifications]) }
        }
        let mapToken = owner.petsByName.observe { change in
            if case let .update(_, deletions, insertions, modifications) = change { mapChanges.append([deletions, insertions, modifications]) }
        }
        defer { setToken.invalidate(); mapToken.invalidate() }
        nextTurn()
        let before = counters
        let old = Array(owner.pets.map(\.name))
        let new = SetMapLogPet(value: ["name": "new"])
        try realm.write {
            // A changed pet is a modification where it is kept; where it was removed, a deletion only.
            owner.petsByName["p7"]!!.age = 1
            let eight = owner.petsByName["p8"]!!
            eight.age = 1
            owner.pets.remove(eight)
            owner.petsByName["p8"] = nil
            owner.pets.insert(new)
            owner.petsByName["new"] = new
        }
        nextTurn()
        let now = Array(owner.pets.map(\.name))
        XCTAssertEqual(setChanges, [[[old.firstIndex(of: "p8")!], [now.firstIndex(of: "new")!], [old.firstIndex(of: "p7")!]]])
        XCTAssertEqual(mapChanges, [[["p8"], ["new"], ["p7"]]])
        XCTAssertEqual(counters.folded - before.folded, 2)
    }

    /// The child-process entry point: edits the set and map of owner 1 and exits.
    func testEditFromAChildProcess() throws {
        guard let path = ProcessInfo.processInfo.environment[setMapChangeChildVariable] else {
            throw XCTSkip("the child-process entry point of SetMapChangeLogTests: runs only with \(setMapChangeChildVariable) set")
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: types))
        let owner = realm.object(ofType: SetMapLogOwner.self, forPrimaryKey: 1)!
        try realm.write {
            owner.ints.remove(0)
            owner.ints.insert(1000)
            owner.scores["k0"] = nil
            owner.scores["k1"] = 100
            owner.scores["new"] = 1
        }
        exit(0)
    }

    func testAnotherProcessesCommitIsCompared() throws {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, objectTypes: types))
        try realm.write {
            let owner = realm.create(SetMapLogOwner.self, value: ["id": 1])
            owner.ints.insert(objectsIn: 0..<100)
            for i in 0..<100 { owner.scores["k\(i)"] = i }
        }
        let owner = realm.object(ofType: SetMapLogOwner.self, forPrimaryKey: 1)!
        let setChecker = SetChecker(), mapChecker = MapChecker()
        let delivered = expectation(description: "the other process's edits")
        delivered.expectedFulfillmentCount = 2
        let setToken = owner.ints.observe { change in
            setChecker.check(change)
            if case .update = change { delivered.fulfill() }
        }
        let mapToken = owner.scores.observe { change in
            mapChecker.check(change)
            if case .update = change { delivered.fulfill() }
        }
        defer { setToken.invalidate(); mapToken.invalidate() }
        nextTurn()
        let compared = counters.compared
        guard let (child, output) = runChildTest("RealmLiteTests.SetMapChangeLogTests/testEditFromAChildProcess",
                                                 [setMapChangeChildVariable: fileURL.path]) else { return }
        XCTAssertEqual(child.terminationStatus, 0, output)
        wait(for: [delivered], timeout: 30)
        nextTurn()
        XCTAssertEqual(Set(owner.ints), Set(1..<100).union([1000]))
        XCTAssertEqual(setChecker.seen, Array(owner.ints))
        XCTAssertEqual(mapChecker.seen.count, 100)
        XCTAssertEqual(setChecker.failures, [])
        XCTAssertEqual(mapChecker.failures, [])
        XCTAssertEqual(counters.compared - compared, 2, "the other process's commit is not in this process's log")

        // A commit here after it is folded again: the log covers the range.
        let folded = counters.folded
        try realm.write {
            owner.ints.insert(-1)
            owner.scores["k5"] = 50
        }
        nextTurn()
        XCTAssertEqual(setChecker.seen, Array(owner.ints))
        XCTAssertEqual(mapChecker.seen["k5"], 50)
        XCTAssertEqual(counters.folded - folded, 2)
        XCTAssertEqual(setChecker.failures + mapChecker.failures, [])
    }
}
