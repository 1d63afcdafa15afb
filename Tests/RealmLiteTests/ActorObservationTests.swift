import Foundation
import XCTest
@testable import RealmLite

// observe(keyPaths:on: actor): each observable kind, observed from the main
// actor and delivered isolated to another actor. The block reads what it is
// given (a value confined to the actor's Realm): delivered anywhere else,
// that read would stop the test process.

/// An actor that keeps what its observation blocks saw.
actor Watcher {
    private(set) var entries: [String] = []
    func note(_ entry: String) { entries.append(entry) }
}

final class ActorObservationTests: RealmTestCase {
    /// An expectation fulfilled by `count` notifications.
    private func notifications(_ count: Int) -> XCTestExpectation {
        let done = expectation(description: "\(count) notifications")
        done.expectedFulfillmentCount = count
        return done
    }


    @MainActor
    func testResultsOnAnActor() async throws {
        let realm = try openRealm()
        try realm.write { realm.create(Dog.self, value: ["name": "a", "age": 1]) }
        let watcher = Watcher()
        let done = notifications(2), initial = expectation(description: "initial")
        let token = await realm.objects(Dog.self).filter("age > 0").observe(on: watcher) { watcher, change in
            watcher.assertIsolated()
            watcher.note(describe(change)) // reads the Results: only valid on the actor's Realm
            if case .initial = change { initial.fulfill() }
            done.fulfill()
        }
        // A write before the initial call may fold into it (as RealmSwift
        // documents): write once it has come.
        await fulfillment(of: [initial], timeout: 10)
        try realm.write { realm.create(Dog.self, value: ["name": "b", "age": 2]) }
        await fulfillment(of: [done], timeout: 10)
        let entries = await watcher.entries
        XCTAssertEqual(entries.first, "initial 1")
        XCTAssertEqual(entries.last, "update 2 -[] +[1] ~[]")
        token.invalidate()
    }

    @MainActor
    func testListSetAndLinkingObjectsOnAnActor() async throws {
        let realm = try openRealm()
        let owner = Owner(), pet = Pet(value: ["name": "Rex"])
        try realm.write { realm.add(owner); realm.add(pet) }
        let watcher = Watcher()
        let done = notifications(6), initials = notifications(3)
        let tokens = [
            await owner.pets.observe(on: watcher) { watcher, change in
                watcher.note("list " + describe(change)); done.fulfill(); if case .initial = change { initials.fulfill() }
            },
            await owner.petSet.observe(on: watcher) { watcher, change in
                watcher.note("set " + describe(change)); done.fulfill(); if case .initial = change { initials.fulfill() }
            },
            await pet.listedBy.observe(on: watcher) { watcher, change in
                watcher.note("backlinks " + describe(change)); done.fulfill(); if case .initial = change { initials.fulfill() }
            },
        ]
        await fulfillment(of: [initials], timeout: 10) // a write before them may fold into them
        try realm.write {
            owner.pets.append(pet)
            owner.petSet.insert(pet)
        }
        await fulfillment(of: [done], timeout: 10)
        let entries = Set(await watcher.entries)
        XCTAssertEqual(entries, ["list initial 0", "set initial 0", "backlinks initial 0",
                                 "list update 1 -[] +[0] ~[]", "set update 1 -[] +[0] ~[]", "backlinks update 1 -[] +[0] ~[]"])
        tokens.forEach { $0.invalidate() }
    }

    @MainActor
    func testMapOnAnActor() async throws {
        let realm = try openRealm()
        let bag = Bag()
        try realm.write { realm.add(bag) }
        let watcher = Watcher()
        let done = notifications(2), initial = expectation(description: "initial")
        let token = await bag.scores.observe(on: watcher) { watcher, change in
            switch change {
            case .initial(let map):
                watcher.note("initial \(map.count)")
                initial.fulfill()
            case .update(let map, _, let insertions, _): watcher.note("update \(map.count) \(insertions)")
            case .error: break
            }
            done.fulfill()
        }
        await fulfillment(of: [initial], timeout: 10) // a write before it may fold into it
        try realm.write { bag.scores["x"] = 1 }
        await fulfillment(of: [done], timeout: 10)
        let entries = await watcher.entries
        XCTAssertEqual(entries, ["initial 0", "update 1 [\"x\"]"])
        token.invalidate()
    }

    @MainActor
    func testObjectAndRealmOnAnActor() async throws {
        let realm = try openRealm()
        let dog = Dog(value: ["name": "Rex", "age": 1])
        try realm.write { realm.add(dog) }
        let watcher = Watcher()
        let done = notifications(4)
        let objectToken = await dog.observe(keyPaths: [\Dog.age], on: watcher) { watcher, change in
            if case .change(let dog, let properties) = change {
                watcher.note("dog \(dog.age) \(properties.map(\.name))")
            }
            done.fulfill()
        }
        let stringToken = await dog.observe(keyPaths: ["name"], on: watcher) { watcher, change in
            if case .change(let dog, _) = change { watcher.note("name \(dog.name)") }
            done.fulfill()
        }
        let owner = Owner(value: ["id": 1])
        try realm.write { realm.add(owner); owner.address = Address(value: ["city": "Oslo"]) }
        let addressToken = await owner.address!.observe(on: watcher) { watcher, change in
            if case .change(let address, _) = change { watcher.note("address \(address.city)") }
            done.fulfill()
        }
        let realmToken = await realm.observe(on: watcher) { watcher, notification, realm in
            watcher.note("realm \(notification.rawValue) \(realm.objects(Dog.self).first?.age ?? -1)")
            done.fulfill()
        }
        try realm.write { dog.age = 2; dog.name = "Max"; owner.address!.city = "Rome" }
        await fulfillment(of: [done], timeout: 10)
        let entries = Set(await watcher.entries)
        XCTAssertEqual(entries, ["dog 2 [\"age\"]", "name Max", "address Rome", "realm RLMRealmDidChangeNotification 2"])
        [objectToken, stringToken, addressToken, realmToken].forEach { $0.invalidate() }
    }

    @MainActor
    func testACancelledTaskGetsAnInvalidatedToken() async throws {
        let realm = try openRealm()
        try realm.write { realm.create(Dog.self, value: ["name": "a"]) }
        let watcher = Watcher()
        let results = realm.objects(Dog.self)
        let task = Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }
            return await results.observe(on: watcher) { watcher, _ in watcher.note("called") }
        }
        let token = await task.value
        // A second observer on the same actor's Realm: once it has seen the
        // write, the first would have been called too (one delivery pass).
        let initial = expectation(description: "initial")
        let done = notifications(2)
        let second = await results.observe(on: watcher) { watcher, change in
            watcher.note(describe(change))
            if case .initial = change { initial.fulfill() }
            done.fulfill()
        }
        // A write before the initial call may be folded into it (as in
        // RealmSwift): write once it has come.
        await fulfillment(of: [initial], timeout: 10)
        try realm.write { realm.create(Dog.self, value: ["name": "b"]) }
        await fulfillment(of: [done], timeout: 10)
        let entries = await watcher.entries
        XCTAssertEqual(entries, ["initial 1", "update 2 -[] +[1] ~[]"], "the cancelled task's block is never called")
        token.invalidate()
        second.invalidate()
    }
}

/// Generic code over RealmCollection, observing with Swift key paths on an actor.
@MainActor
private func observeNames<C: RealmCollection & SendableMetatype>(_ collection: C, on watcher: Watcher, initial: XCTestExpectation,
                                                                  update: XCTestExpectation) async -> NotificationToken
    where C.Element == Dog {
    await collection.observe(keyPaths: [\Dog.name], on: watcher) { watcher, change in
        watcher.note("generic " + describe(change))
        if case .initial = change { initial.fulfill() } else { update.fulfill() }
    }
}

extension ActorObservationTests {
    @MainActor
    func testKeyPathFormsOnAnActorForGenericCollectionsAndEmbeddedObjects() async throws {
        let realm = try openRealm()
        let owner = Owner(value: ["id": 1])
        try realm.write {
            realm.add(owner)
            owner.address = Address(value: ["city": "Oslo", "street": "A"])
            realm.create(Dog.self, value: ["name": "Rex", "age": 1])
        }
        let watcher = Watcher()
        let initial = expectation(description: "initial"), done = expectation(description: "changes")
        done.expectedFulfillmentCount = 2
        let collectionToken = await observeNames(AnyRealmCollection(realm.objects(Dog.self)), on: watcher, initial: initial, update: done)
        let addressToken = await owner.address!.observe(keyPaths: [\Address.city], on: watcher) { watcher, change in
            if case .change(let address, let properties) = change { watcher.note("address \(address.city) \(properties.map(\.name))") }
            done.fulfill()
        }
        await fulfillment(of: [initial], timeout: 10)
        try realm.write { realm.objects(Dog.self).first!.age = 5; owner.address!.street = "B" } // neither key path
        try realm.write { realm.objects(Dog.self).first!.name = "Max"; owner.address!.city = "Rome" }
        await fulfillment(of: [done], timeout: 10)
        try await Task.sleep(nanoseconds: 50_000_000)
        let entries = await watcher.entries
        XCTAssertEqual(Set(entries), ["generic initial 1", "generic update 1 -[] +[] ~[0]", "address Rome [\"city\"]"])
        XCTAssertEqual(entries.count, 3, "changes outside the key paths are not reported")
        collectionToken.invalidate()
        addressToken.invalidate()
    }
}

private func describe<C: Collection>(_ change: RealmCollectionChange<C>) -> String {
    switch change {
    case .initial(let collection): "initial \(collection.count)"
    case .update(let collection, let deletions, let insertions, let modifications):
        "update \(collection.count) -\(deletions) +\(insertions) ~\(modifications)"
    case .error(let error): "error \(error)"
    }
}
