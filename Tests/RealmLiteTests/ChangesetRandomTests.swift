import Foundation
import XCTest
@testable import RealmLite

// Changesets under concurrent writers: each delivered change, applied to the
// elements the observer saw last, must give exactly the collection as it is
// delivered, for each kind of observable (Results in key order, filtered in
// key order, sorted, a List, a class keyed by primary key whose objects are
// deleted and added again) while several commits coalesce; and no observer
// sees a version older than one it saw.

final class ChangesetRandomTests: RealmTestCase {
    /// One observer's view: the elements as last delivered, as identity
    /// and content ("id:name"): a kept element whose content changed must
    /// be reported modified.
    final class Tracker {
        var seen: [String] = []
        var updates = 0
        var failures: [String] = []
        var lastVersion: UInt64 = 0

        func check<C: Collection>(_ change: RealmCollectionChange<C>, _ names: (C) -> [String], version: UInt64, _ what: String) {
            if version < lastVersion { failures.append("\(what): version \(version) after \(lastVersion)") }
            lastVersion = version
            switch change {
            case .initial(let collection):
                seen = names(collection)
            case .update(let collection, let deletions, let insertions, let modifications):
                updates += 1
                let now = names(collection)
                var applied = seen
                if Set(modifications).intersection(deletions).count > 0 { failures.append("\(what): an index both modified and deleted") }
                if modifications.contains(where: { $0 >= seen.count }) { failures.append("\(what): a modification out of range") }
                let identity = { (element: String) in element.split(separator: ":").first.map(String.init) ?? element }
                // Kept elements, by old index, then the change applied to identities.
                var kept = Array(seen.indices)
                for index in deletions.sorted(by: >) {
                    guard applied.indices.contains(index) else { failures.append("\(what): deletion \(index) of \(applied.count)"); return }
                    applied.remove(at: index)
                    kept.remove(at: index)
                }
                var origin: [Int?] = kept
                for index in insertions.sorted() {
                    guard index <= applied.count, now.indices.contains(index) else { failures.append("\(what): insertion \(index)"); return }
                    applied.insert(now[index], at: index)
                    origin.insert(nil, at: index)
                }
                if applied.map(identity) != now.map(identity) { failures.append("\(what): \(seen) + change = \(applied), delivered \(now)") }
                for (index, old) in origin.enumerated() {
                    if let old, seen[old] != now[index], !modifications.contains(old) {
                        failures.append("\(what): \(seen[old]) became \(now[index]) without a modification")
                    }
                }
                seen = now
            case .error(let error):
                failures.append("\(what): \(error)")
            }
        }
    }

    func testChangesetsUnderConcurrentWriters() throws {
        try checkChangesetsUnderConcurrentWriters()
    }

    /// The same with the List in the lists tree: its changes are folded from
    /// the writers' edits (CollectionChangeLog.swift), or compared when a dog's
    /// deletion removed it from the list.
    func testChangesetsUnderConcurrentWritersWithTheListInTheTree() throws {
        let saved = ListTree.setThreshold(0)
        defer { ListTree.setThreshold(saved) }
        let folded = CollectionChangeLog.folded.load(ordering: .relaxed)
        try checkChangesetsUnderConcurrentWriters()
        XCTAssertGreaterThan(CollectionChangeLog.folded.load(ordering: .relaxed), folded, "some List changes were folded")
    }

    func checkChangesetsUnderConcurrentWriters() throws {
        let realm = try openRealm()
        var serial = 0
        func nextName() -> String { serial += 1; return "d\(serial)" }
        try realm.write {
            let person = realm.create(Person.self, value: ["_id": ObjectId.generate(), "name": "p"])
            for _ in 0..<40 { person.dogs.append(realm.create(Dog.self, value: ["name": nextName(), "age": Int.random(in: 0..<50)])) }
            for id in 0..<20 { realm.create(Owner.self, value: ["id": id, "name": "o\(id)"]) }
        }
        let person = realm.objects(Person.self).first!
        let all = realm.objects(Dog.self)
        let filtered = all.filter("age >= 25")
        let sorted = filtered.sorted(byKeyPath: "age")
        let owners = realm.objects(Owner.self)
        let dogNames = { (c: Results<Dog>) in c.map { "\($0.name):\($0.age)" } }
        let trackers = (0..<5).map { _ in Tracker() }
        let version = { realm.core.version }
        let tokens = [
            all.observe { trackers[0].check($0, dogNames, version: version(), "all") },
            filtered.observe { trackers[1].check($0, dogNames, version: version(), "filtered") },
            sorted.observe { trackers[2].check($0, dogNames, version: version(), "sorted") },
            person.dogs.observe { trackers[3].check($0, { $0.map { "\($0.name):\($0.age)" } }, version: version(), "list") },
            owners.observe { trackers[4].check($0, { $0.map { "\($0.id):\($0.name)" } }, version: version(), "owners") },
        ]
        nextTurn()
        let configuration = realm.configuration
        let writers = 2, commitsEach = 60
        let done = expectation(description: "writers")
        done.expectedFulfillmentCount = writers
        for writer in 0..<writers {
            Thread {
                do {
                    let realm = try Realm(configuration: configuration)
                    var generator = SystemRandomNumberGenerator()
                    for commit in 0..<commitsEach {
                        try realm.write {
                            let dogs = realm.objects(Dog.self), list = realm.objects(Person.self).first!.dogs
                            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                                switch Int.random(in: 0..<7, using: &generator) {
                                case 0:
                                    let dog = realm.create(Dog.self, value: ["name": "w\(writer)-\(commit)-\(Int.random(in: 0..<1_000_000, using: &generator))",
                                                                             "age": Int.random(in: 0..<50, using: &generator)])
                                    if Bool.random(using: &generator) { list.append(dog) }
                                case 1: if let victim = dogs.randomElement(using: &generator) { realm.delete(victim) }
                                case 2: dogs.randomElement(using: &generator)?.age = Int.random(in: 0..<50, using: &generator)
                                case 3: if !list.isEmpty { list.move(from: Int.random(in: 0..<list.count, using: &generator), to: Int.random(in: 0..<list.count, using: &generator)) }
                                case 4: if !list.isEmpty { list.remove(at: Int.random(in: 0..<list.count, using: &generator)) }
                                case 5:
                                    // A primary key deleted and added again: another object.
                                    let id = Int.random(in: 0..<20, using: &generator)
                                    if let owner = realm.object(ofType: Owner.self, forPrimaryKey: id) { realm.delete(owner) }
                                    realm.create(Owner.self, value: ["id": id, "name": "o\(id)-\(writer)-\(commit)"])
                                default: realm.objects(Owner.self).randomElement(using: &generator)?.name = "renamed-\(writer)-\(commit)"
                                }
                            }
                        }
                    }
                } catch {
                    XCTFail("writer: \(error)")
                }
                done.fulfill()
            }.start()
        }
        wait(for: [done], timeout: 120)
        nextTurn()
        realm.refresh()
        nextTurn()
        XCTAssertEqual(trackers[0].seen, dogNames(all), "all reaches the last version")
        XCTAssertEqual(trackers[1].seen, dogNames(filtered))
        XCTAssertEqual(trackers[2].seen, dogNames(sorted))
        XCTAssertEqual(trackers[3].seen, person.dogs.map { "\($0.name):\($0.age)" })
        XCTAssertEqual(trackers[4].seen, owners.map { "\($0.id):\($0.name)" })
        for (index, tracker) in trackers.enumerated() {
            XCTAssertEqual(tracker.failures, [], "observer \(index)")
            XCTAssertGreaterThan(tracker.updates, 0, "observer \(index) saw changes")
        }
        tokens.forEach { $0.invalidate() }
    }
}
