import Foundation
import XCTest
@testable import RealmLite

// Places where RealmSwift's own tests expect behaviour RealmLite did not
// have: short value arrays, deleting a deleted object, objects(Object.self).

/// A keyed class that can link to itself (cycles with existing objects).
final class KeyedNode: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var label = ""
    @Persisted var next: KeyedNode?
}

/// RealmSwift's ThreadSafeWrapperTests: @ThreadSafe as a struct's stored
/// property, set through the memberwise initializer.
struct ThreadSafeDogHolder {
    @ThreadSafe var dog: Dog?
}

final class RealmSwiftBehaviourTests: RealmTestCase {
    func testShortArrayGivesTheRemainingPropertiesTheirDefaults() throws {
        let realm = try openRealm()
        let created = try realm.write { realm.create(StringKeyed.self, value: ["a"]) }
        XCTAssertEqual(created.key, "a")
        XCTAssertEqual(created.value, 0)
        XCTAssertEqual(created.note, "")
        let partial = try realm.write { realm.create(StringKeyed.self, value: ["b", 7]) }
        XCTAssertEqual([partial.value, realm.objects(StringKeyed.self).count], [7, 2])

        let unmanaged = StringKeyed(value: ["c"])
        XCTAssertEqual(unmanaged.key, "c")
        XCTAssertEqual(unmanaged.value, 0)

        // With update, only the values given change.
        try realm.write {
            realm.objects(StringKeyed.self).filter("key == 'b'").first!.note = "kept"
            realm.create(StringKeyed.self, value: ["b", 8], update: .modified)
        }
        let b = realm.object(ofType: StringKeyed.self, forPrimaryKey: "b")!
        XCTAssertEqual(b.value, 8)
        XCTAssertEqual(b.note, "kept")
    }

    func testTooManyValuesIsAnError() throws {
        let realm = try openRealm()
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["StringKeyed", "at most 3 values", "got 4"]) {
            try realm.write { _ = realm.create(StringKeyed.self, value: ["a", 1, "n", "extra"]) }
        }
        XCTAssertEqual(realm.objects(StringKeyed.self).count, 0)
    }

    func testDeletingADeletedObjectIsAnError() throws {
        let realm = try openRealm()
        let dog = Dog()
        try realm.write { realm.add(dog) }
        let sameDog = realm.objects(Dog.self).first!
        try realm.write { realm.delete(dog) }
        XCTAssertThrowsRealmError(.invalidatedObject, mentioning: ["Dog", "already deleted"]) {
            try realm.write { realm.delete(dog) }
        }
        XCTAssertThrowsRealmError(.invalidatedObject, mentioning: ["Dog", "already deleted"]) {
            try realm.write { realm.delete(sameDog) }
        }
        XCTAssertThrowsRealmError(.invalidatedObject, mentioning: ["Dog"]) {
            try realm.write { realm.delete([dog]) }
        }
    }

    func testDeletingAListThatHoldsAnObjectTwiceDeletesItOnce() throws {
        let realm = try openRealm()
        let person = Person(), dog = Dog()
        try realm.write {
            realm.add(person)
            person.dogs.append(objectsIn: [dog, dog])
        }
        try realm.write { realm.delete(person.dogs) }
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        XCTAssertTrue(dog.isInvalidated)
    }

    func testObjectsOfTheBaseClassStops() {
        assertStops("objectsOfObject", printing: "is the base class of models, not a model")
    }

    // RealmTests.testInvalidate: objects read before invalidate() stay
    // invalidated, also after later writes; new reads are valid.
    func testInvalidateInvalidatesWhatWasReadBefore() throws {
        let realm = try openRealm()
        let owner = Owner(value: ["id": 1, "pets": [["name": "a"]]])
        try realm.write { realm.add(owner) }
        let pets = owner.pets, petMap = owner.petMap, listedBy = owner.pets[0].listedBy
        let read = realm.objects(Owner.self).first!
        realm.invalidate()
        XCTAssertTrue(owner.isInvalidated)
        XCTAssertTrue(read.isInvalidated)
        XCTAssertTrue(pets.isInvalidated)
        XCTAssertTrue(petMap.isInvalidated)
        XCTAssertTrue(listedBy.isInvalidated)
        try realm.write { realm.add(Owner(value: ["id": 2])) }
        XCTAssertEqual(realm.objects(Owner.self).count, 2)
        XCTAssertTrue(owner.isInvalidated)
        let again = realm.object(ofType: Owner.self, forPrimaryKey: 1)!
        XCTAssertFalse(again.isInvalidated)
        XCTAssertEqual(again.pets.count, 1)
    }

    func testReadingAnObjectAfterInvalidateStops() {
        assertStops("readAfterInvalidate", printing: "Object of type 'Owner' has been deleted or invalidated",
                    runner: "RealmLiteTests.RealmSwiftBehaviourTests/testRunStopScenario")
    }

    /// The child-process entry point of the stop scenarios here.
    func testRunStopScenario() throws {
        guard let name = ProcessInfo.processInfo.environment[stopScenarioVariable] else {
            throw XCTSkip("the child-process entry point of assertStops: runs only with \(stopScenarioVariable) set")
        }
        let realm = try openRealm()
        switch name {
        case "readAfterInvalidate":
            let owner = try realm.write { realm.create(Owner.self, value: ["id": 1]) }
            realm.invalidate()
            _ = owner.name
        case "referenceToObjectCreatedInWrite":
            realm.beginWrite()
            let owner = realm.create(Owner.self, value: ["id": 1])
            _ = ThreadSafeReference(to: owner.pets)
        default:
            XCTFail("unknown scenario \(name)")
        }
    }

    // ThreadSafeReferenceTests: a reference may be made inside a write; it
    // refers to the last committed version.
    func testThreadSafeReferenceInsideAWrite() throws {
        let realm = try openRealm()
        let owner = try realm.write { realm.create(Owner.self, value: ["id": 1, "name": "before"]) }
        var reference: ThreadSafeReference<Owner>!
        var listReference: ThreadSafeReference<List<Pet>>!
        try realm.write {
            owner.name = "in write"
            reference = ThreadSafeReference(to: owner)
            listReference = ThreadSafeReference(to: owner.pets)
            owner.pets.append(Pet(value: ["name": "p"]))
        }
        let ref = reference!, listRef = listReference!
        let config = configuration()
        let (name, pets) = try XCTUnwrap(onOtherThread(returning: { () -> (String, Int) in
            let other = try Realm(configuration: config)
            let resolved = try XCTUnwrap(other.resolve(ref))
            return (resolved.name, try XCTUnwrap(other.resolve(listRef)).count)
        }))
        // Resolved at or after the reference's version: the committed write is seen.
        XCTAssertEqual(name, "in write")
        XCTAssertEqual(pets, 1)
    }

    // ThreadSafeReferenceTests.testInvalidThreadSafeReferenceUsage makes a
    // reference to an object created in the write it is made in.
    func testThreadSafeReferenceToAnObjectCreatedInTheWrite() throws {
        let realm = try openRealm()
        realm.beginWrite()
        let owner = realm.create(Owner.self, value: ["id": 1, "name": "new"])
        let reference = ThreadSafeReference(to: owner)
        try realm.commitWrite()
        realm.beginWrite()
        let cancelled = ThreadSafeReference(to: realm.create(Owner.self, value: ["id": 2]))
        realm.cancelWrite()
        let config = configuration()
        let names = try XCTUnwrap(onOtherThread(returning: { () -> [String?] in
            let other = try Realm(configuration: config)
            return [other.resolve(reference)?.name, other.resolve(cancelled)?.name]
        }))
        XCTAssertEqual(names, ["new", nil], "resolved after the commit; a cancelled write's object is nil")
    }

    func testThreadSafeReferenceToAListOfAnObjectCreatedInTheWriteStops() {
        assertStops("referenceToObjectCreatedInWrite", printing: "whose object was created in it: commit first",
                    runner: "RealmLiteTests.RealmSwiftBehaviourTests/testRunStopScenario")
    }

    // ObjectCreationTests.testCreateWithObjectsFromAnotherRealm and
    // testUpdateWithObjectsFromAnotherRealm: create copies, add refuses.
    func testCreateCopiesObjectsOfAnotherRealm() throws {
        let realm = try openRealm()
        let other = try Realm(configuration: configuration(file: "other.realm"))
        let source = try other.write {
            other.create(Owner.self, value: ["id": 1, "name": "ann", "best": ["name": "tom"],
                                             "pets": [["name": "a"], ["name": "b"]], "petSet": [["name": "s"]],
                                             "petMap": ["k": ["name": "m"]], "address": ["street": "main", "geo": ["lat": 1.0]],
                                             "pastAddresses": [["street": "old"]]])
        }
        let copy = try realm.write { realm.create(Owner.self, value: source) }
        XCTAssertFalse(copy.isSameObject(as: source))
        XCTAssertEqual(copy.realm, realm)
        XCTAssertEqual(copy.name, "ann")
        XCTAssertEqual(copy.best?.name, "tom")
        XCTAssertEqual(copy.best?.realm, realm)
        XCTAssertEqual(copy.pets.map(\.name), ["a", "b"])
        XCTAssertEqual(copy.petSet.first?.name, "s")
        XCTAssertEqual(copy.petMap["k"]??.name, "m")
        XCTAssertEqual(copy.address?.geo?.lat, 1.0)
        XCTAssertEqual(copy.pastAddresses.first?.street, "old")
        XCTAssertEqual(realm.objects(Pet.self).count, 5)
        XCTAssertEqual(other.objects(Pet.self).count, 5)

        // With update: the existing object takes the other Realm's values.
        let updated = try realm.write { realm.create(Owner.self, value: source, update: .all) }
        XCTAssertTrue(updated.isSameObject(as: copy))
        XCTAssertEqual(realm.objects(Owner.self).count, 1)

        XCTAssertThrowsRealmError(.wrongRealm, mentioning: ["Owner", "managed by another Realm"]) {
            try realm.write { realm.add(source) }
        }
    }

    func testCreateCopiesACycleOfAnotherRealmOnce() throws {
        let realm = try openRealm()
        let other = try Realm(configuration: configuration(file: "other.realm"))
        let a = try other.write { () -> Node in
            let a = other.create(Node.self, value: ["label": "a", "next": ["label": "b"]])
            a.next!.next = a
            return a
        }
        let copy = try realm.write { realm.create(Node.self, value: a) }
        XCTAssertEqual(realm.objects(Node.self).count, 2)
        XCTAssertEqual(copy.next?.label, "b")
        XCTAssertTrue(copy.next!.next!.isSameObject(as: copy))
        // A DynamicObject of another Realm is copied too.
        let dynamicCopy = try realm.write { realm.dynamicCreate("Node", value: other.dynamicObjects("Node").filter("label == 'b'").first!) }
        XCTAssertEqual((dynamicCopy["next"] as? DynamicObject)?["label"] as? String, "a")
        XCTAssertEqual(realm.objects(Node.self).count, 4)
    }

    // add/create with update of a cycle whose objects exist: each object is
    // updated once (this recursed without end).
    func testUpdatingACycleOfExistingObjects() throws {
        let realm = try Realm(configuration: configuration([KeyedNode.self]))
        try realm.write { realm.create(KeyedNode.self, value: ["id": 1, "label": "old"]) }
        let a = KeyedNode(value: ["id": 1, "label": "a"]), b = KeyedNode(value: ["id": 2, "label": "b"])
        a.next = b
        b.next = a
        try realm.write { realm.add(a, update: .modified) }
        XCTAssertEqual(realm.objects(KeyedNode.self).count, 2)
        let stored = try XCTUnwrap(realm.object(ofType: KeyedNode.self, forPrimaryKey: 1))
        XCTAssertEqual(stored.label, "a")
        XCTAssertEqual(stored.next?.label, "b")
        XCTAssertTrue(stored.next!.next!.isSameObject(as: stored))

        let other = try Realm(configuration: configuration([KeyedNode.self], file: "other.realm"))
        let source = try other.write { () -> KeyedNode in
            let x = other.create(KeyedNode.self, value: ["id": 1, "label": "x", "next": ["id": 2, "label": "y"]])
            x.next!.next = x
            return x
        }
        try realm.write { realm.create(KeyedNode.self, value: source, update: .modified) }
        XCTAssertEqual(realm.objects(KeyedNode.self).map(\.label), ["x", "y"])
        XCTAssertTrue(stored.next!.next!.isSameObject(as: stored))
    }

    // ObjectCreationTests.testCreateEmbeddedFromManagedObjectInSameRealm:
    // embedded objects are copied; linking one elsewhere is an error.
    func testCreateCopiesEmbeddedObjectsOfTheSameRealm() throws {
        let realm = try openRealm()
        let parent = try realm.write {
            realm.create(Owner.self, value: ["id": 1, "best": ["name": "tom"], "address": ["street": "a", "geo": ["lat": 2.0]],
                                             "pastAddresses": [["street": "b"], ["street": "c"]]])
        }
        let copy = try realm.write { realm.create(Owner.self, value: ["id": 2, "best": parent.best!, "address": parent.address!,
                                                                       "pastAddresses": parent.pastAddresses]) }
        XCTAssertEqual(copy.address?.street, "a")
        XCTAssertEqual(copy.address?.geo?.lat, 2.0)
        XCTAssertFalse(copy.address!.isSameObject(as: parent.address))
        XCTAssertEqual(copy.pastAddresses.map(\.street), ["b", "c"])
        XCTAssertEqual(parent.pastAddresses.count, 2)
        // Top-level objects of the same Realm are linked, not copied.
        XCTAssertTrue(copy.best!.isSameObject(as: parent.best))
        XCTAssertEqual(realm.objects(Pet.self).count, 1)
    }

    func testReusingAManagedEmbeddedObjectIsAnError() throws {
        let realm = try openRealm()
        let owner = try realm.write { realm.create(Owner.self, value: ["id": 1, "address": ["street": "a"]]) }
        let other = try realm.write { realm.create(Owner.self, value: ["id": 2]) }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["Cannot link to an existing managed embedded object of type 'Address'"]) {
            try realm.write { other.address = owner.address }
        }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["embedded objects have exactly one parent"]) {
            try realm.write { other.pastAddresses.append(owner.address!) }
        }
        XCTAssertNil(other.address)
    }

    // RealmTests.testInitFailable / testFileFormatUpgradeRequired...: a file
    // that is not a Realm file is `invalidDatabase`, not an upgrade.
    func testOpeningAFileThatIsNotARealmIsInvalidDatabase() throws {
        let text = directory.appendingPathComponent("notes.realm")
        try Data(String(repeating: "not a realm file\n", count: 1000).utf8).write(to: text)
        XCTAssertThrowsRealmError(.invalidDatabase, mentioning: ["notes.realm", "not a Realm file", "fileURL"]) {
            _ = try Realm(configuration: configuration(file: "notes.realm"))
        }
        var readOnly = configuration(file: "notes.realm")
        readOnly.readOnly = true
        XCTAssertThrowsRealmError(.invalidDatabase) { _ = try Realm(configuration: readOnly) }

        var generator = SystemRandomNumberGenerator()
        let noise = directory.appendingPathComponent("noise.realm")
        try Data((0..<65536).map { _ in UInt8.random(in: 1...255, using: &generator) }).write(to: noise)
        XCTAssertThrowsRealmError(.invalidDatabase) { _ = try Realm(configuration: configuration(file: "noise.realm")) }
        do {
            _ = try Realm(configuration: configuration(file: "noise.realm"))
        } catch Realm.Error.invalidDatabase {
        }
        // A missing directory is reported as before (not invalidDatabase).
        let missing = Realm.Configuration(fileURL: directory.appendingPathComponent("nowhere/x.realm"))
        XCTAssertThrowsError(try Realm(configuration: missing)) { error in
            XCTAssertNotEqual((error as? Realm.Error)?.code, .invalidDatabase)
        }
    }

    // RealmSwift: "Realm at path ... already opened with
    // different read permissions": one file, one readOnly setting per process.
    func testOpeningAFileWithDifferentReadPermissionsIsAnError() throws {
        do {
            let writable = try openRealm()
            try writable.write { writable.add(Dog()) }
            var readOnly = configuration()
            readOnly.readOnly = true
            XCTAssertThrowsRealmError(.fileAccess, mentioning: ["test.realm", "already opened with different read permissions"]) {
                _ = try Realm(configuration: readOnly)
            }
            XCTAssertEqual(writable.objects(Dog.self).count, 1)
        }
        XCTAssertFalse(SharedEnv.isOpen(path: fileURL.path))
        var readOnly = configuration()
        readOnly.readOnly = true
        let reader = try Realm(configuration: readOnly)
        XCTAssertEqual(reader.objects(Dog.self).count, 1)
        XCTAssertThrowsRealmError(.fileAccess, mentioning: ["already opened with different read permissions"]) {
            _ = try openRealm()
        }
    }

    // RealmSwift: `try! Realm().beginWrite()`, later
    // `try! Realm().commitWrite()` on the same thread (RealmSwift's
    // autorelease pool keeps the instance): the writing instance stays the
    // thread's until the write ends.
    func testBeginWriteThroughATemporaryRealmThenCommitThroughAnother() throws {
        let config = configuration()
        try Realm(configuration: config).beginWrite()
        XCTAssertTrue(try Realm(configuration: config).isInWriteTransaction)
        try Realm(configuration: config).add(Dog())
        try Realm(configuration: config).commitWrite()
        XCTAssertFalse(try Realm(configuration: config).isInWriteTransaction)
        XCTAssertFalse(SharedEnv.isOpen(path: fileURL.path), "the hold ends with the write")
        XCTAssertEqual(try Realm(configuration: config).objects(Dog.self).count, 1)

        // cancelWrite() and invalidate() end it too.
        try Realm(configuration: config).beginWrite()
        try Realm(configuration: config).add(Dog())
        try Realm(configuration: config).cancelWrite()
        XCTAssertFalse(SharedEnv.isOpen(path: fileURL.path))
        try Realm(configuration: config).beginWrite()
        try Realm(configuration: config).invalidate()
        XCTAssertFalse(SharedEnv.isOpen(path: fileURL.path))
        XCTAssertEqual(try Realm(configuration: config).objects(Dog.self).count, 1)
    }

    // A thread that exits with a write open on its instance: the write is
    // cancelled and the writer lock released.
    func testAThreadThatExitsWithAWriteOpenReleasesIt() throws {
        let config = configuration()
        let begun = expectation(description: "began a write and exited")
        let thread = Thread {
            try! Realm(configuration: config).beginWrite()
            try! Realm(configuration: config).add(Dog())
            XCTAssertTrue(try! Realm(configuration: config).isInWriteTransaction)
            begun.fulfill()
        }
        thread.start()
        wait(for: [begun], timeout: 10)
        for _ in 0..<1000 where SharedEnv.isOpen(path: fileURL.path) { usleep(1000) }
        XCTAssertFalse(SharedEnv.isOpen(path: fileURL.path), "the exited thread's instance is gone")
        let realm = try Realm(configuration: config)
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        try realm.write { realm.add(Dog()) } // the writer lock is free
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
    }

    func testThreadSafeAsAStructPropertyWithAMemberwiseInitializer() throws {
        let realm = try openRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
        let holder = ThreadSafeDogHolder(dog: dog)
        XCTAssertEqual(holder.dog?.name, "Rex")
        let config = configuration()
        let read = expectation(description: "read on another thread")
        let thread = Thread {
            XCTAssertEqual(holder.dog?.name, "Rex")
            XCTAssertEqual(holder.dog?.realm?.configuration.fileURL, config.fileURL)
            read.fulfill()
        }
        thread.start()
        wait(for: [read], timeout: 10)
        let empty = ThreadSafeDogHolder(dog: nil)
        XCTAssertNil(empty.dog)

        // Made inside the write that creates the object, read on a queue
        // after the commit; set again (the wrapper is a class, as RealmSwift's,
        // so a `let` struct may set it).
        realm.beginWrite()
        let inWrite = ThreadSafeDogHolder(dog: realm.create(Dog.self, value: ["name": "Pup"]))
        XCTAssertEqual(inWrite.dog?.name, "Pup")
        try realm.commitWrite()
        let snapshot = inWrite
        let names = try XCTUnwrap(onOtherThread(returning: { () -> [String?] in [snapshot.dog?.name, holder.dog?.name] }))
        XCTAssertEqual(names, ["Pup", "Rex"])
        inWrite.dog = dog
        XCTAssertEqual(inWrite.dog?.name, "Rex")
    }
}
