import Foundation
import XCTest
@testable import RealmLite

/// Realm: configuration, transactions, add/create/delete, Results, lookups.
final class RealmTests: RealmTestCase {
    func testWriteCommitsAndThrownErrorCancels() throws {
        let realm = try openRealm()
        try realm.write { _ = realm.create(Dog.self, value: ["name": "Rex"]) }
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
        struct Oops: Error {}
        XCTAssertThrowsError(try realm.write {
            realm.create(Dog.self, value: ["name": "Ghost"])
            throw Oops()
        }) { XCTAssertTrue($0 is Oops) }
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(realm.objects(Dog.self).map(\.name), ["Rex"])
        XCTAssertEqual(try realm.write { 42 }, 42)
    }

    func testBeginCommitCancel() throws {
        let realm = try openRealm()
        realm.beginWrite()
        XCTAssertTrue(realm.isInWriteTransaction)
        let dog = Dog()
        realm.add(dog)
        realm.cancelWrite()
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertTrue(dog.isInvalidated, "objects added in a cancelled write are invalidated")
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        realm.beginWrite()
        let next = Dog()
        next.name = "next"
        realm.add(next)
        try realm.commitWrite()
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
        XCTAssertTrue(dog.isInvalidated, "a cancelled object's key is never handed out again")
        XCTAssertFalse(dog.isSameObject(as: next))
        XCTAssertThrowsRealmError(.wrongTransactionState) { try realm.commitWrite() }
    }

    func testNestedWriteThrows() throws {
        let realm = try openRealm()
        XCTAssertThrowsRealmError(.wrongTransactionState, mentioning: ["already in a write transaction"]) {
            try realm.write {
                try realm.write {}
            }
        }
        XCTAssertFalse(realm.isInWriteTransaction)
    }

    func testAddWithUpdatePolicies() throws {
        let realm = try openRealm()
        let first = StringKeyed()
        first.key = "k"
        first.value = 1
        first.note = "first"
        try realm.write { realm.add(first) }

        let duplicate = StringKeyed()
        duplicate.key = "k"
        XCTAssertThrowsRealmError(.primaryKeyExists, mentioning: ["StringKeyed", "key", "\"k\""]) {
            try realm.write { realm.add(duplicate) }
        }
        XCTAssertEqual(realm.objects(StringKeyed.self).count, 1)
        XCTAssertEqual(first.value, 1, "nothing changed")

        let modified = StringKeyed()
        modified.key = "k"
        modified.value = 2
        modified.note = "first"
        try realm.write { realm.add(modified, update: .modified) }
        XCTAssertEqual(realm.objects(StringKeyed.self).count, 1)
        XCTAssertEqual(first.value, 2)
        XCTAssertTrue(modified.isSameObject(as: first), "the added object now is the existing row")

        let all = StringKeyed()
        all.key = "k"
        try realm.write { realm.add(all, update: .all) }
        XCTAssertEqual(first.value, 0)
        XCTAssertEqual(first.note, "")

        try realm.write { realm.add(StringKeyed(), update: .all) }
        XCTAssertEqual(realm.objects(StringKeyed.self).count, 2, "a new key inserts")
    }

    func testCreateFromDictionaryArrayAndObject() throws {
        let realm = try openRealm()
        try realm.write {
            realm.create(StringKeyed.self, value: ["key": "a", "value": 1, "note": "n"])
            realm.create(StringKeyed.self, value: ["b", 2, "m"])
            let owner = realm.create(Owner.self, value: [
                "id": 9, "name": "Olga",
                "best": ["name": "Rex", "kind": "dog"],
                "pets": [["name": "Tom"], ["name": "Jerry"]],
                "address": ["street": "Elm", "city": "X"],
                "petMap": ["k": ["name": "Kit"]],
            ] as [String: Any])
            XCTAssertEqual(owner.best?.kind, "dog")
            XCTAssertEqual(owner.pets.map(\.name), ["Tom", "Jerry"])
            XCTAssertEqual(owner.address?.city, "X")
            XCTAssertEqual(owner.petMap["k"]??.name, "Kit")
            let copy = AllTypes()
            copy.int8 = 5
            copy.optString = "s"
            let created = realm.create(AllTypes.self, value: copy)
            XCTAssertEqual(created.int8, 5)
            XCTAssertEqual(created.optString, "s")
            realm.create(Bag.self, value: ["ints": [1, 2], "tags": ["t"], "scores": ["x": 1.5]] as [String: Any])
        }
        XCTAssertEqual(realm.objects(Pet.self).count, 4)
        XCTAssertEqual(realm.objects(Bag.self).first.map { Array($0.ints) }, [1, 2])
        XCTAssertEqual(realm.objects(Bag.self).first?.scores["x"], 1.5)

        // create with update changes only the given properties.
        try realm.write { _ = realm.create(StringKeyed.self, value: ["key": "a", "value": 5], update: .modified) }
        let a = try XCTUnwrap(realm.object(ofType: StringKeyed.self, forPrimaryKey: "a"))
        XCTAssertEqual(a.value, 5)
        XCTAssertEqual(a.note, "n")
    }

    func testCreateWithWrongValueTypesThrowsNamingClassAndProperty() throws {
        let realm = try openRealm()
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["StringKeyed.value", "String"]) {
            try realm.write { _ = realm.create(StringKeyed.self, value: ["key": "a", "value": "not a number"]) }
        }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["nosuch", "StringKeyed"]) {
            try realm.write { _ = realm.create(StringKeyed.self, value: ["nosuch": 1]) }
        }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["StringKeyed", "at most 3 values", "got 4"]) {
            try realm.write { _ = realm.create(StringKeyed.self, value: ["a", 1, "n", "extra"]) }
        }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["AllTypes.int8"]) {
            try realm.write { _ = realm.create(AllTypes.self, value: ["int8": 300]) }
        }
        XCTAssertEqual(realm.objects(StringKeyed.self).count, 0, "failed writes leave nothing behind")
    }

    func testChangingAPrimaryKeyThrows() throws {
        let realm = try openRealm()
        let object = StringKeyed()
        object.key = "a"
        try realm.write { realm.add(object) }
        XCTAssertThrowsRealmError(.primaryKeyChange, mentioning: ["StringKeyed.key"]) {
            try realm.write { object.key = "b" }
        }
        XCTAssertEqual(object.key, "a")
        try realm.write { object.key = "a" } // same value: fine
    }

    func testAddingAnObjectOfAnotherRealmThrows() throws {
        let realm = try openRealm()
        let other = try Realm(configuration: configuration(file: "other.realm"))
        let dog = Dog()
        try other.write { other.add(dog) }
        XCTAssertThrowsRealmError(.wrongRealm, mentioning: ["Dog", "another Realm"]) {
            try realm.write { realm.add(dog) }
        }
        // Copying is the way across.
        try realm.write { _ = realm.create(Dog.self, value: dog) }
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
    }

    func testTypeNotInObjectTypesThrows() throws {
        let realm = try openRealm([Dog.self, Person.self])
        XCTAssertThrowsRealmError(.objectTypeNotInSchema, mentioning: ["StringKeyed", "objectTypes"]) {
            try realm.write { realm.add(StringKeyed()) }
        }
    }

    func testClassesRegisterOnFirstUseWithoutObjectTypes() throws {
        try withRealm(nil) { realm in
            XCTAssertEqual(realm.objects(Dog.self).count, 0)
            try realm.write { realm.add(Person()) }
            XCTAssertNotNil(realm.schema["Person"])
            XCTAssertNotNil(realm.schema["Dog"], "linked classes come along")
        }
        try withRealm(nil) { realm in
            XCTAssertEqual(realm.objects(Person.self).count, 1)
        }
    }

    func testStoredSchemaMismatchListsTheDifferences() throws {
        try withRealm { realm in try realm.write { realm.add(Dog()) } }
        // Same class name, different properties.
        final class Other: Object {
            override class func className() -> String { "Dog" }
            @Persisted var name = 0
            @Persisted var weight = 0.0
        }
        XCTAssertThrowsRealmError(.schemaMismatch, mentioning: [
            "Property 'Dog.age' has been removed.",
            "Property 'Dog.weight' has been added.",
            "Property 'Dog.name' has been changed from 'string' to 'int'.",
        ]) {
            _ = try Realm(configuration: configuration([Other.self]))
        }
        XCTAssertThrowsRealmError(.schemaMismatch, mentioning: ["schema version 0", "last set version 3"]) {
            var config = configuration()
            config.schemaVersion = 3
            _ = try Realm(configuration: config)
            config.schemaVersion = 0
            _ = try Realm(configuration: config)
        }
    }

    func testResultsCountSubscriptFirstLastAndIteration() throws {
        let realm = try openRealm()
        try realm.write {
            for i in 0..<500 { realm.create(Dog.self, value: ["name": "d\(i)", "age": i]) }
        }
        let dogs = realm.objects(Dog.self)
        XCTAssertEqual(dogs.count, 500)
        XCTAssertEqual(dogs[0].age, 0)
        XCTAssertEqual(dogs[250].age, 250)
        XCTAssertEqual(dogs.first?.name, "d0")
        XCTAssertEqual(dogs.last?.name, "d499")
        XCTAssertEqual(dogs.map(\.age), Array(0..<500))
        XCTAssertEqual(dogs.index(of: dogs[123]), 123)
        // Live: the same Results sees later writes.
        try realm.write { realm.delete(dogs[0]) }
        XCTAssertEqual(dogs.count, 499)
        XCTAssertEqual(dogs.first?.name, "d1")
        // Nested iteration and writes during iteration.
        var pairs = 0
        for a in dogs.prefix(3) { for _ in dogs where a.age > 0 { pairs += 1 } }
        XCTAssertEqual(pairs, 3 * 499)
        try realm.write {
            for dog in dogs where dog.age % 2 == 0 { realm.delete(dog) }
        }
        XCTAssertEqual(dogs.count, 250)
        XCTAssertTrue(dogs.allSatisfy { $0.age % 2 == 1 })
        try realm.write { realm.delete(dogs) }
        XCTAssertTrue(dogs.isEmpty)
    }

    func testObjectForPrimaryKeyOfEachType() throws {
        let realm = try openRealm()
        let uuid = UUID()
        try realm.write {
            realm.create(StringKeyed.self, value: ["key": "héllo"])
            realm.create(UUIDKeyed.self, value: ["key": uuid, "value": 1])
            realm.create(OptionalIntKeyed.self, value: ["key": NSNull(), "value": 1])
            realm.create(OptionalIntKeyed.self, value: ["key": -5, "value": 2])
            realm.create(Owner.self, value: ["id": Int.min])
        }
        XCTAssertNotNil(realm.object(ofType: StringKeyed.self, forPrimaryKey: "héllo"))
        XCTAssertNil(realm.object(ofType: StringKeyed.self, forPrimaryKey: "hello"))
        XCTAssertEqual(realm.object(ofType: UUIDKeyed.self, forPrimaryKey: uuid)?.value, 1)
        XCTAssertEqual(realm.object(ofType: OptionalIntKeyed.self, forPrimaryKey: Int?.none)?.value, 1)
        XCTAssertEqual(realm.object(ofType: OptionalIntKeyed.self, forPrimaryKey: -5)?.value, 2)
        XCTAssertNotNil(realm.object(ofType: Owner.self, forPrimaryKey: Int.min))
        XCTAssertNil(realm.object(ofType: Owner.self, forPrimaryKey: 0))
        // After delete the key is free again.
        try realm.write { realm.delete(realm.object(ofType: Owner.self, forPrimaryKey: Int.min)!) }
        XCTAssertNil(realm.object(ofType: Owner.self, forPrimaryKey: Int.min))
        try realm.write { _ = realm.create(Owner.self, value: ["id": Int.min]) }
        XCTAssertNotNil(realm.object(ofType: Owner.self, forPrimaryKey: Int.min))
    }

    func testDeleteAllAndKeysAreNotReused() throws {
        let realm = try openRealm()
        let first = Dog()
        try realm.write { realm.add(first) }
        try realm.write { realm.deleteAll() }
        XCTAssertTrue(realm.isEmpty)
        XCTAssertTrue(first.isInvalidated)
        let second = Dog()
        try realm.write { realm.add(second) }
        XCTAssertFalse(second.isSameObject(as: first))
        XCTAssertTrue(first.isInvalidated, "a new object never takes a deleted object's key")
    }

    /// Deleting a whole class's Results clears its trees when nothing links
    /// to or from it; otherwise each object goes (links are cleaned up).
    func testDeletingEveryObjectOfAClass() throws {
        let realm = try openRealm()
        try realm.write {
            for i in 0..<300 { realm.create(StringKeyed.self, value: ["key": "k\(i)"]) }
            let person = realm.create(Person.self, value: ["_id": ObjectId.generate(), "name": "P"])
            person.dogs.append(objectsIn: [Dog(value: ["name": "a"]), Dog(value: ["name": "b"])])
        }
        let held = realm.object(ofType: StringKeyed.self, forPrimaryKey: "k7")!
        try realm.write { realm.delete(realm.objects(StringKeyed.self)) }
        XCTAssertEqual(realm.objects(StringKeyed.self).count, 0)
        XCTAssertNil(realm.object(ofType: StringKeyed.self, forPrimaryKey: "k7"))
        XCTAssertTrue(held.isInvalidated)
        try realm.write { realm.create(StringKeyed.self, value: ["key": "k7"]) }
        XCTAssertNotNil(realm.object(ofType: StringKeyed.self, forPrimaryKey: "k7"), "the primary key is free again")

        try realm.write { realm.delete(realm.objects(Dog.self)) } // linked from Person
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        XCTAssertEqual(realm.objects(Person.self).first!.dogs.count, 0, "links to deleted objects are removed")
        XCTAssertEqual(realm.objects(StringKeyed.self).count, 1, "other classes untouched")
    }

    func testInMemoryRealmsShareDataByIdentifierAndVanish() throws {
        let config = Realm.Configuration(inMemoryIdentifier: "mem-\(UUID())", objectTypes: allTestTypes)
        do {
            let a = try Realm(configuration: config)
            let b = try Realm(configuration: config)
            try a.write { a.add(Dog()) }
            b.refresh()
            XCTAssertEqual(b.objects(Dog.self).count, 1)
        }
        let c = try Realm(configuration: config)
        XCTAssertEqual(c.objects(Dog.self).count, 0)
    }

    func testReadOnlyRealm() throws {
        try withRealm { realm in try realm.write { realm.add(Dog()) } }
        var config = configuration()
        config.readOnly = true
        let realm = try Realm(configuration: config)
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
        XCTAssertThrowsRealmError(.readOnly) { try realm.write {} }
    }

    func testOneInstancePerThreadAndConfiguration() throws {
        let a = try openRealm()
        let b = try openRealm()
        XCTAssertEqual(a, b, "Realm() twice on one thread is the same instance")
        a.beginWrite()
        XCTAssertTrue(b.isInWriteTransaction)
        b.cancelWrite()
        XCTAssertFalse(a.isInWriteTransaction)
    }

    func testRefreshSeesOtherThreadsCommits() throws {
        let b = try openRealm()
        XCTAssertEqual(b.objects(Dog.self).count, 0)
        let config = configuration()
        onOtherThread {
            let a = try Realm(configuration: config)
            try a.write { a.add(Dog()) }
        }
        XCTAssertEqual(b.objects(Dog.self).count, 0, "b reads its own snapshot")
        XCTAssertTrue(b.refresh())
        XCTAssertEqual(b.objects(Dog.self).count, 1)
        XCTAssertFalse(b.refresh())
    }

    func testDefaultConfiguration() throws {
        let saved = Realm.Configuration.defaultConfiguration
        defer { Realm.Configuration.defaultConfiguration = saved }
        Realm.Configuration.defaultConfiguration = configuration()
        let realm = try Realm()
        XCTAssertEqual(realm.configuration.fileURL, fileURL)
        XCTAssertEqual(saved.fileURL?.lastPathComponent, "default.realm")
    }
}

final class ObjectInitTests: RealmTestCase {
    func testObjectInitWithValue() throws {
        let dog = Dog(value: ["name": "Rex", "age": 3])
        XCTAssertEqual(dog.name, "Rex")
        XCTAssertEqual(dog.age, 3)
        let owner = Owner(value: [1, "Olga", ["name": "Best"], [["name": "a"]], [], [:], NSNull(), []] as [Any])
        XCTAssertEqual(owner.best?.name, "Best")
        XCTAssertEqual(owner.pets.count, 1)
        let realm = try openRealm()
        try realm.write { realm.add(owner) }
        XCTAssertEqual(realm.objects(Pet.self).count, 2)
    }

    func testCatchingByCode() throws {
        var config = configuration()
        config.readOnly = true
        config.fileURL = directory.appendingPathComponent("missing.realm")
        do {
            _ = try Realm(configuration: config)
            XCTFail("expected an error")
        } catch Realm.Error.fileNotFound {
            // matched by code, as in RealmSwift
        }
    }
}

final class CrossThreadTests: RealmTestCase {
    /// Each thread opens its own Realm on the file; commits become visible
    /// to the others after refresh (full threading rules: issue 7).
    func testRealmsOnOtherThreadsShareTheFile() throws {
        let config = configuration()
        let main = try Realm(configuration: config)
        XCTAssertEqual(main.objects(Dog.self).count, 0)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do {
                let realm = try Realm(configuration: config)
                try realm.write {
                    for i in 0..<100 { realm.create(Dog.self, value: ["name": "bg\(i)", "age": i]) }
                }
            } catch {
                XCTFail("background write failed: \(error)")
            }
            done.signal()
        }
        thread.start()
        done.wait()
        XCTAssertEqual(main.objects(Dog.self).count, 0, "still on its snapshot")
        main.refresh()
        XCTAssertEqual(main.objects(Dog.self).count, 100)
        XCTAssertEqual(main.objects(Dog.self).last?.name, "bg99")
    }
}

final class SecondInstanceTests: RealmTestCase {
    func testWriteWhileAnotherInstanceOnThisThreadWritesThrows() throws {
        let a = try openRealm()
        // A configuration differing in anything but the file opens a second
        // instance on this thread.
        var other = configuration()
        other.maximumNumberOfActiveVersions = 100
        let b = try Realm(configuration: other)
        XCTAssertNotEqual(a, b)
        try a.write {
            XCTAssertThrowsRealmError(.wrongTransactionState, mentioning: ["another Realm instance"]) {
                try b.write {}
            }
        }
        try b.write { b.add(Dog()) }
        XCTAssertEqual(b.objects(Dog.self).count, 1)
    }
}
