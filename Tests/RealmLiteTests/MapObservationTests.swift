import Dispatch
import Foundation
import XCTest
@testable import RealmLite

// Map.observe with RealmMapChange: deletions, insertions and modifications
// by key, for maps of values and of objects.

final class MapObservationTests: RealmTestCase {
    typealias KeyChange = (deletions: [String], insertions: [String], modifications: [String])

    private func record<M>(_ change: RealmMapChange<M>, _ log: inout [String], _ updates: inout [KeyChange]) where M.Key == String {
        switch change {
        case .initial: log.append("initial")
        case .update(_, let deletions, let insertions, let modifications):
            log.append("update")
            updates.append((deletions, insertions, modifications))
        case .error(let error): log.append("error \(error)")
        }
    }

    func testValueMapChangesByKey() throws {
        let realm = try openRealm()
        let bag = Bag()
        try realm.write {
            realm.add(bag)
            bag.scores["a"] = 1
            bag.scores["c"] = 3
            bag.scores["d"] = 4
        }
        var log: [String] = [], updates: [KeyChange] = []
        let token = bag.scores.observe { self.record($0, &log, &updates) }
        XCTAssertEqual(log, [])
        nextTurn()
        XCTAssertEqual(log, ["initial"])
        try realm.write {
            bag.scores["a"] = 10      // modified
            bag.scores["b"] = 2       // inserted
            bag.scores["c"] = nil     // deleted
            bag.scores["d"] = 4       // same value: not seen in a map in the record (THREADING.md)
        }
        nextTurn()
        XCTAssertEqual(log, ["initial", "update"])
        XCTAssertEqual(updates.last?.deletions, ["c"])
        XCTAssertEqual(updates.last?.insertions, ["b"])
        XCTAssertEqual(updates.last?.modifications, ["a"])

        try realm.write { bag.ints.append(1) } // another property of the owner
        nextTurn()
        XCTAssertEqual(log.count, 2, "a write that leaves the map alone reports nothing")

        try realm.write { realm.delete(bag) }
        nextTurn()
        XCTAssertEqual(updates.last?.deletions, ["a", "b", "d"], "the owner's deletion empties the map, once")
        token.invalidate()
    }

    func testObjectMapReportsChangedObjectsAsModifications() throws {
        let realm = try openRealm()
        let owner = Owner()
        let rex = Pet(value: ["name": "Rex", "kind": "dog"])
        let tom = Pet(value: ["name": "Tom", "kind": "cat"])
        try realm.write {
            realm.add(owner)
            owner.petMap["rex"] = rex
            owner.petMap["tom"] = tom
        }
        var log: [String] = [], updates: [KeyChange] = []
        let token = owner.petMap.observe(keyPaths: ["kind"]) { self.record($0, &log, &updates) }
        nextTurn()
        try realm.write { rex.name = "Max" }
        nextTurn()
        XCTAssertEqual(log, ["initial"], "name is not an observed key path")
        try realm.write { tom.kind = "lion" }
        nextTurn()
        XCTAssertEqual(log, ["initial", "update"])
        XCTAssertEqual(updates.last?.modifications, ["tom"])
        XCTAssertEqual(updates.last?.deletions, [])
        XCTAssertEqual(updates.last?.insertions, [])
        token.invalidate()
    }

    func testObservingOnAQueue() throws {
        let realm = try openRealm()
        let bag = Bag()
        try realm.write { realm.add(bag) }
        let queue = DispatchQueue(label: "map-observer")
        let log = LockedLog<String>()
        let initial = expectation(description: "initial"), update = expectation(description: "update")
        let token = bag.scores.observe(on: queue) { change in
            switch change {
            case .initial: log.add("initial"); initial.fulfill()
            case .update(let map, _, let insertions, _):
                log.add("update \(insertions) \(map.count)")
                update.fulfill()
            case .error: break
            }
        }
        wait(for: [initial], timeout: 10)
        try realm.write { bag.scores["x"] = 1 }
        wait(for: [update], timeout: 10)
        XCTAssertEqual(log.entries, ["initial", "update [\"x\"] 1"])
        token.invalidate()
    }
}
