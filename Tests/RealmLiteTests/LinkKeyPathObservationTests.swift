import Foundation
import XCTest
@testable import RealmLite

// Collection key paths through links: with `keyPaths: ["dogs.age"]` a change
// to a linked dog's age modifies the person that links to it (found through
// the backlink tree), a change to its name does not.

final class LinkKeyPathObservationTests: RealmTestCase {
    func testResultsModifiedThroughListAndToOneLinks() throws {
        let realm = try openRealm()
        let ann = Person(value: ["name": "Ann"]), bob = Person(value: ["name": "Bob"])
        let rex = Dog(value: ["name": "Rex"]), fido = Dog(value: ["name": "Fido"])
        let owner = Owner(value: ["id": 1]), tom = Pet(value: ["name": "Tom"])
        try realm.write {
            realm.add([ann, bob])
            ann.dogs.append(rex)
            bob.dogs.append(fido)
            bob.dogs.append(rex)
            realm.add(owner)
            owner.best = tom
        }
        var people: [[Int]] = [], owners: [[Int]] = []
        let tokens = [
            realm.objects(Person.self).observe(keyPaths: ["dogs.age"]) { change in
                if case .update(_, _, _, let modifications) = change { people.append(modifications) }
            },
            realm.objects(Owner.self).observe(keyPaths: ["best.name"]) { change in
                if case .update(_, _, _, let modifications) = change { owners.append(modifications) }
            },
        ]
        nextTurn()
        try realm.write { rex.name = "Max"; tom.kind = "cat" }
        nextTurn()
        XCTAssertEqual(people, [], "name is not on the key path")
        XCTAssertEqual(owners, [])
        try realm.write { fido.age = 3 }
        nextTurn()
        XCTAssertEqual(people, [[1]], "Bob lists Fido")
        try realm.write { rex.age = 4; tom.name = "Tim" }
        nextTurn()
        XCTAssertEqual(people, [[1], [0, 1]], "both list Rex")
        XCTAssertEqual(owners, [[0]])
        tokens.forEach { $0.invalidate() }
    }

    func testObjectKeyPathTwoLinksDeep() throws {
        let realm = try openRealm()
        let dog = Dog(), person = Person()
        try realm.write { realm.add(dog); realm.add(person); person.dogs.append(dog) }
        var log: [[String]] = []
        // A dog observing its owners' dogs' ages: the path goes back and forth.
        let token = dog.observe(keyPaths: ["owners.dogs.age"]) { change in
            if case .change(_, let properties) = change { log.append(properties.map(\.name)) }
        }
        nextTurn()
        let other = Dog()
        try realm.write { person.dogs.append(other) }
        nextTurn()
        log.removeAll() // the owner's list changed: "owners.dogs" counts it
        try realm.write { other.name = "x" }
        nextTurn()
        XCTAssertEqual(log, [])
        try realm.write { other.age = 7 }
        nextTurn()
        XCTAssertEqual(log, [["owners"]])
        token.invalidate()
    }

    func testSwiftKeyPathsOnCollections() throws {
        let realm = try openRealm()
        let owner = Owner(value: ["id": 1]), tom = Pet(value: ["name": "Tom"])
        let dog = Dog()
        try realm.write { realm.add(owner); realm.add(dog); owner.petMap["tom"] = tom; owner.pets.append(tom) }
        var log: [String] = []
        let tokens = [
            realm.objects(Dog.self).observe(keyPaths: [\Dog.age]) { change in
                if case .update(_, _, _, let modifications) = change { log.append("dogs \(modifications)") }
            },
            owner.petMap.observe(keyPaths: [\Pet.name]) { change in
                if case .update(_, _, _, let modifications) = change { log.append("map \(modifications)") }
            },
            owner.pets.observe(keyPaths: [\Pet.kind]) { change in
                if case .update(_, _, _, let modifications) = change { log.append("list \(modifications)") }
            },
        ]
        nextTurn()
        try realm.write { dog.name = "x"; tom.name = "Tim" }
        nextTurn()
        try realm.write { dog.age = 2; tom.kind = "cat" }
        nextTurn()
        XCTAssertEqual(log, ["map [\"tom\"]", "dogs [0]", "list [0]"])
        tokens.forEach { $0.invalidate() }
    }
}
