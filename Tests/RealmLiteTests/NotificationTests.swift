import Dispatch
import Foundation
import XCTest
@testable import RealmLite

// Change notifications: initial call at the next turn, fine-grained
// changesets after local and other threads' commits, key-path filtering,
// object property changes, silent writes, invalidation.

final class NotificationTests: RealmTestCase {
    typealias Change = (deletions: [Int], insertions: [Int], modifications: [Int])

    func record<C>(_ change: RealmCollectionChange<C>, into log: inout [String], _ updates: inout [Change]) {
        switch change {
        case .initial: log.append("initial")
        case .update(_, let deletions, let insertions, let modifications):
            log.append("update")
            updates.append((deletions, insertions, modifications))
        case .error(let error): log.append("error \(error)")
        }
    }

    func testResultsChangesets() throws {
        let realm = try openRealm()
        try realm.write { for i in 0..<5 { realm.create(Dog.self, value: ["name": "d\(i)", "age": i]) } }
        let adults = realm.objects(Dog.self).filter("age >= 2").sorted(byKeyPath: "age")
        var log: [String] = [], updates: [Change] = []
        let token = adults.observe { self.record($0, into: &log, &updates) }
        XCTAssertEqual(log, [], "the initial call comes at the next turn")
        nextTurn()
        XCTAssertEqual(log, ["initial"])

        // Insert one matching, one not; modify one; delete one.
        try realm.write {
            realm.create(Dog.self, value: ["name": "new", "age": 10])
            realm.create(Dog.self, value: ["name": "young", "age": 0])
            realm.objects(Dog.self).filter("age == 3").first!.name = "renamed"
            realm.delete(realm.objects(Dog.self).filter("age == 2").first!)
        }
        nextTurn()
        XCTAssertEqual(log, ["initial", "update"])
        XCTAssertEqual(updates.last?.deletions, [0], "age 2 was at index 0")
        XCTAssertEqual(updates.last?.insertions, [2], "age 10 sorts last of [3, 4, 10]")
        XCTAssertEqual(updates.last?.modifications, [1], "age 3 was at index 1 before")

        // A write that does not touch the results reports nothing.
        try realm.write { realm.objects(Dog.self).filter("age == 0").first!.name = "still young" }
        nextTurn()
        XCTAssertEqual(log.count, 2)

        // Another thread's commit is delivered after autorefresh.
        let config = configuration()
        onOtherThread {
            let other = try Realm(configuration: config)
            try other.write { other.create(Dog.self, value: ["name": "bg", "age": 5]) }
        }
        nextTurn()
        nextTurn()
        XCTAssertEqual(log.count, 3)
        XCTAssertEqual(updates.last?.insertions, [2], "[3, 4, 5, 10]")
        token.invalidate()
        try realm.write { realm.create(Dog.self, value: ["name": "ignored", "age": 7]) }
        nextTurn()
        XCTAssertEqual(log.count, 3, "no calls after invalidate()")
    }

    func testKeyPathFilter() throws {
        let realm = try openRealm()
        try realm.write { realm.create(Dog.self, value: ["name": "a", "age": 1]) }
        var calls = 0
        let token = realm.objects(Dog.self).observe(keyPaths: ["age"]) { change in
            if case .update = change { calls += 1 }
        }
        nextTurn()
        try realm.write { realm.objects(Dog.self).first!.name = "b" }
        nextTurn()
        XCTAssertEqual(calls, 0, "name is not observed")
        try realm.write { realm.objects(Dog.self).first!.age = 2 }
        nextTurn()
        XCTAssertEqual(calls, 1)
        token.invalidate()
    }

    func testListChangesetsIncludeLinkedObjectChanges() throws {
        let realm = try openRealm()
        let person = Person()
        try realm.write {
            realm.add(person)
            for i in 0..<3 { person.dogs.append(Dog(value: ["name": "d\(i)"])) }
        }
        var log: [String] = [], updates: [Change] = []
        let token = person.dogs.observe { self.record($0, into: &log, &updates) }
        nextTurn()
        try realm.write {
            person.dogs.remove(at: 0)
            person.dogs.append(Dog(value: ["name": "d3"]))
        }
        nextTurn()
        XCTAssertEqual(updates.last?.deletions, [0])
        XCTAssertEqual(updates.last?.insertions, [2])
        try realm.write { person.dogs[1].age = 9 }
        nextTurn()
        XCTAssertEqual(updates.last?.modifications, [1], "a linked object changed")
        XCTAssertEqual(log, ["initial", "update", "update"])
        token.invalidate()
    }

    func testObjectChangesAndDeletion() throws {
        let realm = try openRealm()
        let dog = Dog(value: ["name": "Rex", "age": 1])
        try realm.write { realm.add(dog) }
        var changes: [[String]] = [], values: [String] = [], deleted = false
        let token = dog.observe { change in
            switch change {
            case .change(let object, let properties):
                XCTAssertEqual(object.name, dog.name)
                changes.append(properties.map(\.name))
                for property in properties where property.name == "name" {
                    values.append("\(property.oldValue ?? "nil")->\(property.newValue ?? "nil")")
                }
            case .deleted: deleted = true
            case .error(let error): XCTFail("\(error)")
            }
        }
        nextTurn()
        try realm.write { dog.name = "Max" }
        nextTurn()
        try realm.write { dog.age = 2; dog.name = "Max" }
        nextTurn()
        XCTAssertEqual(changes, [["name"], ["age"]], "only properties whose value changed")
        XCTAssertEqual(values, ["Rex->Max"])
        try realm.write { realm.delete(dog) }
        nextTurn()
        XCTAssertTrue(deleted)
        token.invalidate()
    }

    func testRealmNotificationsAndSilentWrites() throws {
        let realm = try openRealm()
        var realmCalls: [Realm.Notification] = []
        let realmToken = realm.observe { notification, _ in realmCalls.append(notification) }
        var silentCalls = 0, loudCalls = 0
        let silent = realm.objects(Dog.self).observe { if case .update = $0 { silentCalls += 1 } }
        let loud = realm.objects(Dog.self).observe { if case .update = $0 { loudCalls += 1 } }
        nextTurn()
        try realm.write(withoutNotifying: [silent]) { realm.add(Dog()) }
        nextTurn()
        XCTAssertEqual(silentCalls, 0, "a UI-driven write does not notify its own token")
        XCTAssertEqual(loudCalls, 1)
        XCTAssertEqual(realmCalls, [.didChange])
        try realm.write { realm.add(Dog()) }
        nextTurn()
        XCTAssertEqual(silentCalls, 1, "later writes do")
        realmToken.invalidate()
        silent.invalidate()
        loud.invalidate()
    }

    func testObserveOnAQueue() throws {
        let realm = try openRealm()
        let queue = DispatchQueue(label: "notifications")
        let initial = expectation(description: "initial"), update = expectation(description: "update")
        let token = realm.objects(Dog.self).observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            switch change {
            case .initial(let dogs):
                XCTAssertEqual(dogs.count, 0)
                initial.fulfill()
            case .update(let dogs, _, let insertions, _):
                XCTAssertEqual(dogs.count, 1)
                XCTAssertEqual(insertions, [0])
                update.fulfill()
            case .error(let error):
                XCTFail("\(error)")
            }
        }
        wait(for: [initial], timeout: 10)
        try realm.write { realm.add(Dog()) }
        wait(for: [update], timeout: 10)
        token.invalidate()
    }

    func testRefreshRequiredWhenAutorefreshIsOff() throws {
        let realm = try openRealm()
        realm.autorefresh = false
        var calls: [Realm.Notification] = []
        let token = realm.observe { notification, _ in calls.append(notification) }
        nextTurn()
        let config = configuration()
        onOtherThread {
            let other = try Realm(configuration: config)
            try other.write { other.add(Dog()) }
        }
        nextTurn()
        XCTAssertEqual(calls, [.refreshRequired])
        realm.refresh()
        XCTAssertEqual(calls, [.refreshRequired, .didChange], "refresh() delivers at once")
        token.invalidate()
    }

    /// The version an observer starts from is the one it was registered at:
    /// a commit before its first delivery is reported (an object observer
    /// has no initial call that would cover it).
    func testACommitRightAfterRegistrationIsReported() throws {
        let realm = try openRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex", "age": 1]) }
        var log: [String] = []
        let token = dog.observe { (change: ObjectChange<Dog>) in
            if case .change(_, let properties) = change { log.append(properties.map(\.name).joined(separator: ",")) }
        }
        var realmCalls = 0
        let realmToken = realm.observe { _, _ in realmCalls += 1 }
        try realm.write { dog.age = 2 } // before either observer's first delivery
        nextTurn()
        XCTAssertEqual(log, ["age"])
        XCTAssertEqual(realmCalls, 1, "the Realm observer hears of the commit too")
        nextTurn()
        XCTAssertEqual(realmCalls, 1, "and of nothing else")
        token.invalidate()
        realmToken.invalidate()
    }
}
