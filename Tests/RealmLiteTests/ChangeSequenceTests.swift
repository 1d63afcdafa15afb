import Foundation
import XCTest
@testable import RealmLite

// `changes` as an AsyncSequence: the same values as observe, coalesced for a
// slow consumer into one change since its last one (checked by applying each
// change to the snapshot the consumer saw before), ending on cancellation.

@MainActor
private func mainQueueTurn() async {
    await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
}

/// Main-queue turns until the notifier has no change in flight, then two
/// more: the delivery, and the consumer it woke.
private func settle() async {
    for _ in 0..<10_000 {
        await mainQueueTurn()
        if ChangeNotifier.inFlight.load(ordering: .acquiring) == 0 { break }
        usleep(100)
    }
    await mainQueueTurn()
    await mainQueueTurn()
}

/// The insertions of a collection's first update, read through generic code.
@MainActor
private func firstInsertions<C: RealmCollection>(_ collection: C) async -> [Int] {
    for await change in collection.changes {
        if case .update(_, _, let insertions, _) = change { return insertions }
    }
    return []
}

/// What a consumer task saw last (main actor).
@MainActor
private final class SeenSnapshot {
    var names: [String] = []
    var updates = 0
    var mismatches = 0
}

final class ChangeSequenceTests: RealmTestCase {
    @MainActor
    func testResultsChangesAndCancellation() async throws {
        let realm = try openRealm()
        try realm.write { realm.create(Dog.self, value: ["name": "a", "age": 1]) }
        let results = realm.objects(Dog.self).sorted(byKeyPath: "age")
        let seen = expectation(description: "initial and one update")
        seen.expectedFulfillmentCount = 2
        let consumer = Task { @MainActor in
            var log: [String] = []
            for await change in results.changes {
                switch change {
                case .initial(let dogs): log.append("initial \(dogs.map(\.name))")
                case .update(let dogs, let deletions, let insertions, let modifications):
                    log.append("update \(dogs.map(\.name)) -\(deletions) +\(insertions) ~\(modifications)")
                case .error(let error): log.append("error \(error)")
                }
                seen.fulfill()
            }
            return log
        }
        await settle() // the consumer has its initial change before the write (else it may fold into it)
        try realm.write { realm.create(Dog.self, value: ["name": "b", "age": 0]) }
        await fulfillment(of: [seen], timeout: 10)
        XCTAssertEqual(realm.core.observers.filter { !$0.cancelled.load(ordering: .acquiring) }.count, 1)
        consumer.cancel()
        let log = await consumer.value // ends: the loop stops on cancellation
        XCTAssertEqual(log, ["initial [\"a\"]", "update [\"b\", \"a\"] -[] +[0] ~[]"])
        XCTAssertTrue(realm.core.observers.allSatisfy { $0.cancelled.load(ordering: .acquiring) }, "the observation ended with the loop")
    }

    /// A consumer that is busy while several commits are delivered gets one
    /// change covering all of them, valid against the snapshot it saw last.
    @MainActor
    func testSlowConsumerGetsOneCoalescedChangePerStep() async throws {
        let realm = try openRealm()
        try realm.write { for i in 0..<20 { realm.create(Dog.self, value: ["name": "d\(i)", "age": i]) } }
        let results = realm.objects(Dog.self).filter("age >= 5").sorted(byKeyPath: "age")
        var generator = SystemRandomNumberGenerator()
        var previous: [String] = []
        var updates = 0, commits = 0
        var nextAge = 100
        loop: for await change in results.changes {
            switch change {
            case .initial(let dogs):
                previous = dogs.map(\.name)
            case .update(let dogs, let deletions, let insertions, let modifications):
                updates += 1
                // Applying the change to what the consumer saw gives what is there now.
                var applied = previous
                for index in deletions.reversed() { applied.remove(at: index) }
                let current = dogs.map(\.name)
                for index in insertions { applied.insert(current[index], at: index) }
                XCTAssertEqual(applied, current, "update \(updates)")
                XCTAssertTrue(modifications.allSatisfy { $0 < previous.count })
                previous = current
            case .error(let error):
                XCTFail("\(error)")
            }
            if updates == 10 { break loop }
            // Busy: three commits, each delivered (a main-queue turn) before the next `next()`.
            for _ in 0..<3 {
                try realm.write {
                    let all = realm.objects(Dog.self)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0:
                        realm.create(Dog.self, value: ["name": "n\(nextAge)", "age": Int.random(in: 0..<200, using: &generator)])
                        nextAge += 1
                    case 1: if let victim = all.randomElement(using: &generator) { realm.delete(victim) }
                    default: if let dog = all.randomElement(using: &generator) { dog.age = Int.random(in: 0..<200, using: &generator) }
                    }
                    // Something always changes in the results: an object that matches.
                    realm.create(Dog.self, value: ["name": "m\(nextAge)", "age": 5 + Int.random(in: 0..<200, using: &generator)])
                    nextAge += 1
                }
                commits += 1
                await mainQueueTurn()
            }
        }
        XCTAssertEqual(updates, 10)
        XCTAssertEqual(commits, 30, "3 commits per update: each update coalesced 3")
        XCTAssertTrue(realm.core.observers.allSatisfy { $0.cancelled.load(ordering: .acquiring) }, "leaving the loop ends the observation")
    }

    /// Writers on other threads commit while a main-actor consumer reads
    /// `changes`: every change, applied to the consumer's previous snapshot,
    /// gives the collection it delivers, and the consumer ends up at the
    /// writers' last version, having received fewer changes than commits.
    @MainActor
    func testConsumerUnderConcurrentWriters() async throws {
        let realm = try openRealm()
        try realm.write { for i in 0..<10 { realm.create(Dog.self, value: ["name": "s\(i)", "age": i]) } }
        let results = realm.objects(Dog.self).filter("age >= 3").sorted(byKeyPath: "age")
        let seen = SeenSnapshot()
        let consumer = Task { @MainActor in
            for await change in results.changes {
                switch change {
                case .initial(let dogs): seen.names = dogs.map(\.name)
                case .update(let dogs, let deletions, let insertions, _):
                    var applied = seen.names
                    for index in deletions.reversed() { applied.remove(at: index) }
                    let current = dogs.map(\.name)
                    for index in insertions { applied.insert(current[index], at: index) }
                    if applied != current { seen.mismatches += 1 }
                    seen.names = current
                    seen.updates += 1
                case .error: seen.mismatches += 1
                }
                await Task.yield() // a consumer slower than the writers
            }
        }
        let config = configuration()
        let writers = 3, commitsEach = 40
        let done = expectation(description: "writers")
        done.expectedFulfillmentCount = writers
        for writer in 0..<writers {
            Thread {
                do {
                    let realm = try Realm(configuration: config)
                    var generator = SystemRandomNumberGenerator()
                    for commit in 0..<commitsEach {
                        try realm.write {
                            let all = realm.objects(Dog.self)
                            switch Int.random(in: 0..<3, using: &generator) {
                            case 0: realm.create(Dog.self, value: ["name": "w\(writer)-\(commit)", "age": Int.random(in: 0..<50, using: &generator)])
                            case 1: if let victim = all.randomElement(using: &generator) { realm.delete(victim) }
                            default: all.randomElement(using: &generator)?.age = Int.random(in: 0..<50, using: &generator)
                            }
                        }
                    }
                } catch {
                    XCTFail("writer: \(error)")
                }
                done.fulfill()
            }.start()
        }
        await fulfillment(of: [done], timeout: 60)
        realm.refresh()
        let final = results.map(\.name)
        for _ in 0..<1000 where seen.names != final { await mainQueueTurn() }
        consumer.cancel()
        await consumer.value
        XCTAssertEqual(seen.names, final, "the consumer reaches the writers' last version")
        XCTAssertEqual(seen.mismatches, 0)
        XCTAssertGreaterThan(seen.updates, 0)
        XCTAssertLessThanOrEqual(seen.updates, writers * commitsEach)
    }

    /// Generic code over RealmCollection, and AnyRealmCollection, get
    /// `changes` and the actor form of observe too.
    @MainActor
    func testGenericAndTypeErasedCollections() async throws {
        let realm = try openRealm()
        let person = Person()
        try realm.write { realm.add(person) }
        let erased = AnyRealmCollection(person.dogs)
        let consumer = Task { @MainActor in await firstInsertions(erased) }
        let watcher = Watcher()
        let done = expectation(description: "initial and update on the actor")
        done.expectedFulfillmentCount = 2
        let initial = expectation(description: "initial on the actor")
        let token = await erased.observe(on: watcher) { watcher, change in
            if case .update(let dogs, _, let insertions, _) = change { watcher.note("\(dogs.count) +\(insertions)") }
            if case .initial = change { initial.fulfill() }
            done.fulfill()
        }
        // A write before an observer's initial change may fold into it (as
        // RealmSwift documents): write once both have had theirs.
        await fulfillment(of: [initial], timeout: 10)
        await settle()
        try realm.write { person.dogs.append(Dog()) }
        let insertions = await consumer.value
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(insertions, [0])
        let entries = await watcher.entries
        XCTAssertEqual(entries, ["1 +[0]"])
        token.invalidate()
    }

    @MainActor
    func testRealmChangesCoalesceAdvances() async throws {
        let realm = try openRealm()
        let consumer = Task { @MainActor in
            var log: [String] = []
            for await notification in realm.changes { log.append(notification.rawValue) }
            return log
        }
        await mainQueueTurn()
        // Three commits before the consumer's next turn: one advance for it.
        for i in 0..<3 { try realm.write { realm.create(Dog.self, value: ["name": "d\(i)"]) } }
        await mainQueueTurn()
        await mainQueueTurn()
        consumer.cancel()
        let log = await consumer.value
        XCTAssertEqual(log, ["RLMRealmDidChangeNotification"])
    }

    @MainActor
    func testObjectChangesEndAfterDeletion() async throws {
        let realm = try openRealm()
        let dog = Dog(value: ["name": "Rex", "age": 1])
        try realm.write { realm.add(dog) }
        let consumer = Task { @MainActor in
            var log: [String] = []
            for await change in dog.changes(keyPaths: ["age"]) {
                switch change {
                case .change(let dog, let properties): log.append("\(dog.age) \(properties.map(\.name))")
                case .deleted: log.append("deleted")
                case .error(let error): log.append("\(error)")
                }
            }
            return log
        }
        await mainQueueTurn()
        await mainQueueTurn()
        try realm.write { dog.name = "Max" }
        await mainQueueTurn()
        try realm.write { dog.age = 2 }
        await settle() // the change is computed, delivered and taken before the delete
        try realm.write { realm.delete(dog) }
        let log = await consumer.value // ends by itself after .deleted
        XCTAssertEqual(log, ["2 [\"age\"]", "deleted"])
    }

    @MainActor
    func testMapChangesCoalesceByKey() async throws {
        let realm = try openRealm()
        let bag = Bag()
        try realm.write { realm.add(bag); bag.scores["keep"] = 1; bag.scores["gone"] = 2 }
        var log: [String] = []
        for await change in bag.scores.changes {
            if case .update(_, let deletions, let insertions, let modifications) = change {
                log.append("-\(deletions) +\(insertions) ~\(modifications)")
                break
            }
            // Two commits while busy: one change by key for both.
            try realm.write { bag.scores["new"] = 3; bag.scores["gone"] = nil }
            await mainQueueTurn()
            try realm.write { bag.scores["keep"] = 10 }
            await mainQueueTurn()
        }
        XCTAssertEqual(log, ["-[\"gone\"] +[\"new\"] ~[\"keep\"]"])
    }

    /// The same values from a List, a MutableSet and LinkingObjects, consumed
    /// in an actor with its own Realm.
    func testCollectionChangesInAnActor() async throws {
        let counter = ChangeCounter()
        let log = try await counter.run(configuration())
        XCTAssertEqual(log, ["list +[0]", "set +[0]", "owners +[1]"])
    }
}

/// Consumes `changes` of its own Realm's collections (strict concurrency:
/// everything stays in the actor).
actor ChangeCounter {
    func run(_ configuration: Realm.Configuration) async throws -> [String] {
        let realm = try await Realm(configuration: configuration, actor: self)
        let owner = Owner(), pet = Pet()
        try await realm.asyncWrite { realm.add(owner); realm.add(pet) }
        var log: [String] = []
        log.append(try await firstUpdate(realm, owner.pets.changes, "list") { owner.pets.append(pet) })
        log.append(try await firstUpdate(realm, owner.petSet.changes, "set") { owner.petSet.insert(pet) })
        // pet is in owner.pets already: a second owner lists it.
        log.append(try await firstUpdate(realm, pet.listedBy.changes, "owners") { realm.create(Owner.self, value: ["id": 2]).pets.append(pet) })
        return log
    }

    /// The insertions of the first update after `write`, as "name +[...]".
    private func firstUpdate<C>(_ realm: Realm, _ sequence: ChangeSequence<RealmCollectionChange<C>>, _ name: String,
                                _ write: () -> Void) async throws -> String {
        var iterator = sequence.makeAsyncIterator()
        _ = await iterator.next(isolation: self) // initial
        try await realm.asyncWrite { write() }
        guard case .update(_, _, let insertions, _) = await iterator.next(isolation: self) else { return "\(name): no update" }
        return "\(name) +\(insertions)"
    }
}
