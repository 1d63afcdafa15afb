import Foundation
import XCTest
@testable import RealmLite

/// To-one links, backlinks, nullification on delete, embedded objects.
final class LinkTests: RealmTestCase {
    func testSeedPersonDogModel() throws {
        let personId: ObjectId = try withRealm { realm in
            let person = Person()
            person.name = "Ann"
            for (name, age) in [("Rex", 3), ("Fido", 5)] {
                let dog = Dog()
                dog.name = name
                dog.age = age
                person.dogs.append(dog)
            }
            try realm.write { realm.add(person) }
            XCTAssertEqual(realm.objects(Dog.self).count, 2, "adding a person adds its dogs")
            XCTAssertEqual(person.dogs.map(\.name), ["Rex", "Fido"])
            return person._id
        }
        try withRealm { realm in
            let person = try XCTUnwrap(realm.object(ofType: Person.self, forPrimaryKey: personId))
            XCTAssertEqual(person.name, "Ann")
            XCTAssertEqual(person.dogs.map(\.age), [3, 5])
            XCTAssertEqual(person.dogs[0].owners.map(\.name), ["Ann"])
        }
    }

    func testToOneLinkAndBacklinks() throws {
        let realm = try openRealm()
        let owner = Owner()
        owner.id = 1
        let rex = Pet()
        rex.name = "Rex"
        owner.best = rex
        try realm.write { realm.add(owner) }
        XCTAssertEqual(owner.best?.name, "Rex")
        XCTAssertTrue(owner.best!.isSameObject(as: rex))
        XCTAssertEqual(rex.favoriteOf.count, 1)
        XCTAssertEqual(rex.favoriteOf.first?.id, 1)
        XCTAssertEqual(rex.listedBy.count, 0)

        let other = Pet()
        other.name = "Other"
        try realm.write { owner.best = other }
        XCTAssertEqual(owner.best?.name, "Other")
        XCTAssertEqual(realm.objects(Pet.self).count, 2, "assigning an unmanaged object adds it")
        XCTAssertEqual(rex.favoriteOf.count, 0)
        XCTAssertEqual(other.favoriteOf.count, 1)

        try realm.write { owner.best = nil }
        XCTAssertNil(owner.best)
        XCTAssertEqual(other.favoriteOf.count, 0)
    }

    func testDeletingATargetNullifiesLinksAndRemovesFromCollections() throws {
        let realm = try openRealm()
        let owner = Owner()
        owner.id = 7
        let rex = Pet(), tom = Pet()
        rex.name = "Rex"
        tom.name = "Tom"
        owner.best = rex
        owner.pets.append(objectsIn: [rex, tom, rex])
        owner.petSet.insert(objectsIn: [rex, tom])
        owner.petMap["a"] = rex
        owner.petMap["b"] = tom
        try realm.write { realm.add(owner) }
        XCTAssertEqual(rex.listedBy.map(\.id), [7, 7], "one owner listing it twice: once per link, as in Realm")

        try realm.write { realm.delete(rex) }
        XCTAssertTrue(rex.isInvalidated)
        XCTAssertNil(owner.best)
        XCTAssertEqual(owner.pets.map(\.name), ["Tom"])
        XCTAssertEqual(owner.petSet.map(\.name), ["Tom"])
        XCTAssertEqual(owner.petMap.count, 2, "map keys stay")
        XCTAssertNil(owner.petMap["a"]!)
        XCTAssertEqual(owner.petMap["b"]??.name, "Tom")
        XCTAssertEqual(tom.listedBy.first?.id, 7)
    }

    func testDeletingASourceRemovesItsBacklinks() throws {
        let realm = try openRealm()
        let rex = Pet()
        let a = Owner(), b = Owner()
        a.id = 1
        b.id = 2
        a.pets.append(rex)
        b.pets.append(rex)
        try realm.write { realm.add([a, b]) }
        XCTAssertEqual(Set(rex.listedBy.map(\.id)), [1, 2])
        try realm.write { realm.delete(a) }
        XCTAssertEqual(rex.listedBy.map(\.id), [2])
        XCTAssertFalse(rex.isInvalidated, "deleting a source leaves targets alone")
    }

    func testCyclesAndSelfLinks() throws {
        let realm = try openRealm()
        let a = Node(), b = Node()
        a.label = "a"
        b.label = "b"
        a.next = b
        b.next = a
        try realm.write { realm.add(a) }
        XCTAssertEqual(realm.objects(Node.self).count, 2)
        XCTAssertEqual(a.next?.next?.label, "a")
        try realm.write { a.next = a }
        XCTAssertEqual(a.next?.label, "a")
        try realm.write { realm.delete(a) }
        XCTAssertNil(b.next)
        XCTAssertEqual(realm.objects(Node.self).count, 1)
    }

    func testEmbeddedObjectsAreOwnedAndCascadeDeleted() throws {
        try withRealm { realm in
            let owner = Owner()
            owner.id = 1
            let home = Address()
            home.street = "1 Main St"
            home.geo = Geo()
            home.geo?.lat = 52.5
            owner.address = home
            for street in ["Old Rd", "Older Rd"] {
                let past = Address()
                past.street = street
                owner.pastAddresses.append(past)
            }
            try realm.write { realm.add(owner) }
            XCTAssertEqual(realm.core.schemaState.byName["Address"].map { realm.core.count(of: $0) }, 3)
            XCTAssertEqual(realm.core.schemaState.byName["Geo"].map { realm.core.count(of: $0) }, 1)
            XCTAssertEqual(owner.address?.geo?.lat, 52.5)
            XCTAssertEqual(owner.pastAddresses.map(\.street), ["Old Rd", "Older Rd"])
        }
        try withRealm { realm in
            let owner = try XCTUnwrap(realm.object(ofType: Owner.self, forPrimaryKey: 1))
            XCTAssertEqual(owner.address?.street, "1 Main St")
            // Replacing an embedded object deletes the old one (and what it owns).
            try realm.write {
                let next = Address()
                next.street = "2 New St"
                owner.address = next
            }
            XCTAssertEqual(realm.core.schemaState.byName["Address"].map { realm.core.count(of: $0) }, 3)
            XCTAssertEqual(realm.core.schemaState.byName["Geo"].map { realm.core.count(of: $0) }, 0)
            // Removing from a list deletes it.
            try realm.write { owner.pastAddresses.remove(at: 0) }
            XCTAssertEqual(realm.core.schemaState.byName["Address"].map { realm.core.count(of: $0) }, 2)
            // Deleting the parent deletes everything it owns.
            try realm.write { realm.delete(owner) }
            XCTAssertEqual(realm.core.schemaState.byName["Address"].map { realm.core.count(of: $0) }, 0)
        }
    }

    func testEmbeddedObjectsCannotBeAddedAloneOrShared() throws {
        let realm = try openRealm()
        // (realm.add(Address()) does not compile: add takes an Object.)
        let a = Owner(), b = Owner()
        a.id = 1
        b.id = 2
        a.address = Address()
        try realm.write { realm.add([a, b]) }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["Address", "embedded"]) {
            try realm.write { b.address = a.address }
        }
        XCTAssertNil(b.address)
        try realm.write { a.address = a.address } // re-assigning in place is fine
        XCTAssertNotNil(a.address)
    }
}
