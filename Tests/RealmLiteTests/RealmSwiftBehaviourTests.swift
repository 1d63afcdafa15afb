import Foundation
import XCTest
@testable import RealmLite

// Places where RealmSwift's own tests expect behaviour RealmLite did not
// have: short value arrays, deleting a deleted object, objects(Object.self).

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
}
