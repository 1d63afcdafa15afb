import Dispatch
import Foundation
import XCTest
import RealmLite

// The code examples of Realm's threading guides, run as tests. Each keeps
// the guide's code; the only changes are the assertions, waits for work
// sent to other threads, and @Sendable on closures that Swift 6 sends to
// another queue (the guides predate strict concurrency).

extension Person {
    convenience init(name: String) {
        self.init()
        self.name = name
    }
}

/// Foundation on Linux has no autorelease pools; the guides' code keeps
/// its shape with this stand-in.
func autoreleasepool<Result>(invoking body: () throws -> Result) rethrows -> Result {
    try body()
}

/// The guide's helper: an async write on a background queue, handing the
/// object over with a ThreadSafeReference. `T: ThreadConfined` lets it take
/// objects, Results and collections alike.
extension Realm {
    func writeAsync<T: ThreadConfined>(obj: T,
                                       errorHandler: @escaping @Sendable (_ error: Swift.Error) -> Void = { _ in return },
                                       block: @escaping @Sendable (Realm, T?) -> Void) {
        let wrappedObj = ThreadSafeReference(to: obj)
        let config = self.configuration
        DispatchQueue(label: "background").async {
            autoreleasepool {
                do {
                    let realm = try Realm(configuration: config)
                    let obj = realm.resolve(wrappedObj)
                    try realm.write {
                        block(realm, obj)
                    }
                } catch {
                    errorHandler(error)
                }
            }
        }
    }
}

/// The guide's actor ("Use Realm with actors").
actor RealmActor {
    var realm: Realm!

    init(configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    var count: Int { realm.objects(Person.self).count }

    func createPerson(name: String) async throws {
        try await realm.asyncWrite {
            realm.create(Person.self, value: ["_id": ObjectId.generate(), "name": name])
        }
    }

    func getPersonName(forId id: ObjectId) -> String? {
        realm.object(ofType: Person.self, forPrimaryKey: id)?.name
    }
}

func someLongCallToGetNewName() async -> String {
    return "Janet"
}

@MainActor
func loadNameInBackground(@ThreadSafe person: Person?) async {
    let newName = await someLongCallToGetNewName()
    let realm = try! await Realm()
    try! realm.write {
        person?.name = newName
    }
}

@MainActor
func createAndUpdatePerson() async -> ObjectId {
    let realm = try! await Realm()
    let person = Person(name: "Jane")
    try! realm.write {
        realm.add(person)
    }
    await loadNameInBackground(person: person)
    return person._id
}

final class ThreadingGuideTests: RealmTestCase {
    private var savedDefault: Realm.Configuration!

    override func setUp() {
        super.setUp()
        savedDefault = Realm.Configuration.defaultConfiguration
        Realm.Configuration.defaultConfiguration = configuration([Dog.self, Person.self, Email.self])
    }

    override func tearDown() {
        Realm.Configuration.defaultConfiguration = savedDefault
        super.tearDown()
    }

    /// Waits for work sent to other threads, letting the main queue turn.
    private func waitFor(_ group: DispatchGroup) {
        let done = expectation(description: "background work")
        group.notify(queue: .main) { done.fulfill() }
        wait(for: [done], timeout: 20)
    }

    // MARK: Perform a background write

    func testWriteAsyncAddsDogsToAPerson() throws {
        let realm = try Realm()
        try realm.write { realm.add(Person(name: "Dachary")) }
        let expectation = expectation(description: "async write")

        // Query for a specific person object on the main thread
        let people = realm.objects(Person.self)
        let thisPerson = people.where {
            $0.name == "Dachary"
        }.first

        // Perform an async write to add dogs to that person's dog list.
        // No need to pass a thread-safe reference or frozen object.
        realm.writeAsync {
            thisPerson?.dogs.append(objectsIn: [
                Dog(value: ["name": "Ben", "age": 13]),
                Dog(value: ["name": "Lita", "age": 9]),
                Dog(value: ["name": "Maui", "age": 1]),
            ])
        } onComplete: { _ in
            // Confirm the three dogs were successfully added to the person's dogs list
            XCTAssertEqual(thisPerson!.dogs.count, 3)
            // Query for one of the dogs we added and see that it is present
            let dogs = realm.objects(Dog.self)
            let benDogs = dogs.where {
                $0.name == "Ben"
            }
            XCTAssertEqual(benDogs.count, 1)
            expectation.fulfill()
        }
        // Wait for async writes to complete
        XCTAssertTrue(realm.isPerformingAsynchronousWriteOperations)
        wait(for: [expectation], timeout: 10)
        XCTAssertFalse(realm.isPerformingAsynchronousWriteOperations)
    }

    func testCommitOrCancelAnAsyncWrite() throws {
        let realm = try Realm()
        let committed = expectation(description: "committed")
        let dog = Dog(value: ["name": "Wolfie", "age": 1])
        realm.beginAsyncWrite {
            // ...Create a new dog
            realm.add(dog)
            realm.commitAsyncWrite { error in
                XCTAssertNil(error)
                committed.fulfill()
            }
        }
        let asyncTransactionId = realm.beginAsyncWrite {
            realm.add(Dog(value: ["name": "Never", "age": 2]))
            realm.commitAsyncWrite()
        }
        try realm.cancelAsyncWrite(asyncTransactionId)
        wait(for: [committed], timeout: 10)
        XCTAssertEqual(realm.objects(Dog.self).map(\.name), ["Wolfie"])
    }

    // MARK: Communication across threads

    func testSerialQueueRealm() throws {
        // Initialize a serial queue, and
        // perform realm operations on it
        let serialQueue = DispatchQueue(label: "serial-queue")
        let group = DispatchGroup()
        serialQueue.async(group: group) {
            let realm = try! Realm(configuration: .defaultConfiguration, queue: serialQueue)
            // Do something with Realm on the non-main thread
            try! realm.write { realm.add(Person(name: "Queued")) }
        }
        waitFor(group)
        XCTAssertEqual(try Realm().objects(Person.self).first?.name, "Queued")
    }

    func testThreadSafeReferenceHandOver() throws {
        let person = Person(name: "Jane")
        let realm = try! Realm()

        try! realm.write {
            realm.add(person)
        }

        // Create thread-safe reference to person
        let personRef = ThreadSafeReference(to: person)

        // Pass the reference to a background thread
        let group = DispatchGroup()
        DispatchQueue(label: "background", autoreleaseFrequency: .workItem).async(group: group) {
            autoreleasepool {
                let realm = try! Realm()
                try! realm.write {
                    // Resolve within the transaction to ensure you get the latest changes from other threads
                    guard let person = realm.resolve(personRef) else {
                        return // person was deleted
                    }
                    person.name = "Jane Doe"
                }
            }
        }
        waitFor(group)
        realm.refresh()
        XCTAssertEqual(person.name, "Jane Doe")
    }

    func testThreadSafeWrapper() throws {
        let realm = try! Realm()

        let person = Person(name: "Jane")
        try! realm.write {
            realm.add(person)
        }

        // Create thread-safe reference to person
        @ThreadSafe var personRef = person

        // @ThreadSafe vars are always optional. If the referenced object is deleted,
        // the @ThreadSafe var will be nullified.
        XCTAssertEqual(personRef?.name, "Jane")

        // Pass the reference to a background thread (Swift 6 sends the
        // wrapper, which is Sendable, rather than capturing the variable).
        let wrapper = _personRef
        let group = DispatchGroup()
        DispatchQueue(label: "background", autoreleaseFrequency: .workItem).async(group: group) {
            autoreleasepool {
                let realm = try! Realm()
                try! realm.write {
                    // Resolve within the transaction to ensure you get the
                    // latest changes from other threads. If the person
                    // object was deleted, personRef will be nil.
                    guard let person = wrapper.wrappedValue else {
                        return // person was deleted
                    }
                    person.name = "Jane Doe"
                }
            }
        }
        waitFor(group)
        realm.refresh()
        XCTAssertEqual(personRef?.name, "Jane Doe")
        try realm.write { realm.delete(person) }
        XCTAssertNil(personRef)
    }

    @MainActor
    func testThreadSafeParameterOfAnAsyncFunction() async throws {
        let id = await createAndUpdatePerson()
        let realm = try await Realm()
        XCTAssertEqual(realm.object(ofType: Person.self, forPrimaryKey: id)?.name, "Janet")
    }

    func testRealmActor() async throws {
        let actor = try await RealmActor(configuration: .defaultConfiguration)
        try await actor.createPerson(name: "Actor Jane")
        let count = await actor.count
        XCTAssertEqual(count, 1)
        let config = Realm.Configuration.defaultConfiguration
        let id = try await Task.detached { try Realm(configuration: config).objects(Person.self).first!._id }.value
        let name = await actor.getPersonName(forId: id)
        XCTAssertEqual(name, "Actor Jane")
    }

    // MARK: Refresh

    func testRefreshAfterAnotherThreadsCommit() throws {
        let realm = try Realm()
        realm.autorefresh = false
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            let realm = try! Realm()
            try! realm.write { realm.add(Person(name: "Elsewhere")) }
        }
        waitFor(group)
        XCTAssertEqual(realm.objects(Person.self).count, 0, "still reads its version")
        if !realm.autorefresh {
            // Manually refresh
            XCTAssertTrue(realm.refresh())
        }
        XCTAssertEqual(realm.objects(Person.self).count, 1)
        XCTAssertFalse(realm.refresh(), "already at the latest version")
    }

    // MARK: Frozen objects

    func testFreeze() throws {
        let realm = try! Realm()
        try realm.write {
            realm.add([Person(name: "Jane"), Person(name: "John"), Person(name: "Ann")])
        }

        // Get an immutable copy of the realm that can be passed across threads
        let frozenRealm = realm.freeze()

        XCTAssertTrue(frozenRealm.isFrozen)

        let people = realm.objects(Person.self)

        // You can freeze collections
        let frozenPeople = people.freeze()

        XCTAssertTrue(frozenPeople.isFrozen)

        // You can query frozen collections
        let frozenPeopleWithNamesStartingWithJ = frozenPeople.filter("name BEGINSWITH 'J'")

        XCTAssertTrue(frozenPeopleWithNamesStartingWithJ.isFrozen)
        XCTAssertEqual(frozenPeopleWithNamesStartingWithJ.count, 2)

        // Frozen results contain frozen objects
        let frozenPerson = frozenPeopleWithNamesStartingWithJ.first!

        XCTAssertTrue(frozenPerson.isFrozen)

        // Frozen values need no hand-over: read them on another thread.
        // (Swift 6 cannot see that a frozen value is immutable, so the
        // test sends it in an unchecked box.)
        let frozen = UncheckedBox(value: (frozenPerson, frozenRealm))
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            let (frozenPerson, frozenRealm) = frozen.value
            XCTAssertEqual(frozenPerson.name, "Jane")
            XCTAssertEqual(frozenRealm.objects(Person.self).count, 3)
        }
        waitFor(group)

        // Frozen objects are not live: a later write does not change them.
        try realm.write { realm.deleteAll() }
        XCTAssertEqual(frozenPeople.count, 3)
        XCTAssertEqual(frozenPerson.name, "Jane")
        XCTAssertTrue(realm.objects(Person.self).isEmpty)
    }

    func testFrozenObjectErrors() throws {
        let realm = try Realm()
        try realm.write { realm.add(Person(name: "Jane")) }
        let frozenRealm = realm.freeze()
        // Writing to a frozen Realm is an error (Realm raises; this throws).
        XCTAssertThrowsRealmError(.frozen) { try frozenRealm.write {} }
        // Setting a property of a frozen object stops the program as in
        // Realm: StopScenarioTests.testWritingAFrozenObjectStops and
        // testAppendingToAFrozenListStops show the message.
        XCTAssertTrue(frozenRealm.objects(Person.self).first!.isFrozen)
    }

    func testThawAndModify() throws {
        let realm = try Realm()
        try realm.write { realm.add(Person(name: "Kane")) }
        let frozenRealm = realm.freeze()

        // Read from a frozen realm
        let frozenPeople = frozenRealm.objects(Person.self)

        // The collection that we pull from the frozen realm is also frozen
        XCTAssertTrue(frozenPeople.isFrozen)

        // Get an individual person from the collection
        let frozenPerson = frozenPeople.first!

        // To modify the person, you must first thaw it
        // You can also thaw collections and realms
        let thawedPerson = frozenPerson.thaw()

        // Check to make sure this person is valid. An object is
        // invalidated when it is deleted from its managing realm,
        // or when its managing realm has invalidate() called on it.
        XCTAssertEqual(thawedPerson?.isInvalidated, false)

        // Thawed objects are live, so you can write to them
        let thawedRealm = thawedPerson!.realm!
        try! thawedRealm.write {
            thawedPerson!.name = "John Michael Kane"
        }
        XCTAssertEqual(realm.objects(Person.self).first?.name, "John Michael Kane")
        XCTAssertEqual(frozenPerson.name, "Kane", "the frozen object still shows its version")
        XCTAssertTrue(frozenRealm.thaw() == realm)
        XCTAssertEqual(frozenPeople.thaw()?.isFrozen, false)
    }

    func testAppendToAFrozenCollection() throws {
        let realm = try! Realm()
        try realm.write {
            realm.add(Person(name: "Timmy"))
            realm.add(Dog(value: ["name": "Lassie", "age": 3]))
        }
        let frozenRealm = realm.freeze()

        // Get a copy of frozen objects.
        // Here, we're getting them from a frozen realm,
        // but you might also be passing them across threads.
        let frozenTimmy = frozenRealm.objects(Person.self).where {
            $0.name == "Timmy"
        }.first!
        let frozenLassie = frozenRealm.objects(Dog.self).where {
            $0.name == "Lassie"
        }.first!

        // Make sure frozen objects are frozen
        XCTAssertTrue(frozenTimmy.isFrozen)
        XCTAssertTrue(frozenLassie.isFrozen)

        // Thaw the frozen objects. You must thaw both the object
        // you want to append and the collection you want to append it to.
        let thawedTimmy = frozenTimmy.thaw()
        let thawedLassie = frozenLassie.thaw()

        try! realm.write {
            thawedTimmy?.dogs.append(thawedLassie!)
        }

        XCTAssertEqual(thawedTimmy?.dogs.first?.name, "Lassie")
        XCTAssertEqual(frozenTimmy.dogs.count, 0, "the frozen list keeps its version")
        XCTAssertEqual(thawedLassie?.owners.first?.name, "Timmy")
    }

    func testFreezeAndThawAList() throws {
        let realm = try Realm()
        try realm.write {
            let person = Person(name: "Owner")
            person.dogs.append(objectsIn: [Dog(value: ["name": "A"]), Dog(value: ["name": "B"])])
            realm.add(person)
        }
        let frozenDogs = realm.objects(Person.self).first!.dogs.freeze()
        XCTAssertTrue(frozenDogs.isFrozen)
        let box = UncheckedBox(value: frozenDogs)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            XCTAssertEqual(box.value.map(\.name), ["A", "B"])
        }
        waitFor(group)
        let liveDogs = frozenDogs.thaw()!
        try realm.write { liveDogs.append(Dog(value: ["name": "C"])) }
        XCTAssertEqual(liveDogs.count, 3)
        XCTAssertEqual(frozenDogs.count, 2)
    }

    // MARK: Stigsen: delete the emails still marked read

    func testWriteAsyncHelperDeletesReadEmails() throws {
        let realm = try! Realm()
        try realm.write {
            for i in 0..<6 { realm.create(Email.self, value: ["subject": "mail \(i)", "read": i % 2 == 0]) }
        }
        let readEmails = realm.objects(Email.self).filter("read == true")
        XCTAssertEqual(readEmails.count, 3)
        // Mail 0 is marked unread again: only mails still marked read go.
        try realm.write { realm.objects(Email.self).filter("subject == 'mail 0'").first!.read = false }

        let done = DispatchSemaphore(value: 0)
        realm.writeAsync(obj: readEmails, errorHandler: { error in
            XCTFail("\(error)")
            done.signal()
        }) { (realm, readEmails) in
            defer { done.signal() }
            guard let readEmails = readEmails else { return }
            realm.delete(readEmails)
        }
        done.wait() // the block ran; its write may still be committing:
        try realm.write {} // a write waits for the other writer's commit
        XCTAssertEqual(realm.objects(Email.self).map(\.subject).sorted(), ["mail 0", "mail 1", "mail 3", "mail 5"])
    }
}
