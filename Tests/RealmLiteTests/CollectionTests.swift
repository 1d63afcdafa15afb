import Foundation
import XCTest
@testable import RealmLite

/// List, MutableSet and Map of values and of objects, managed and unmanaged.
final class CollectionTests: RealmTestCase {
    func testListOfValuesOperations() throws {
        try withRealm { realm in
            let bag = Bag()
            bag.ints.append(objectsIn: [1, 2, 3])
            try realm.write { realm.add(bag) }
            XCTAssertEqual(Array(bag.ints), [1, 2, 3])
            try realm.write {
                bag.ints.append(4)                  // [1, 2, 3, 4]
                bag.ints.insert(0, at: 0)           // [0, 1, 2, 3, 4]
                bag.ints.remove(at: 2)              // [0, 1, 3, 4]
                bag.ints.move(from: 0, to: 3)       // [1, 3, 4, 0]
                bag.ints.replace(index: 1, object: 30) // [1, 30, 4, 0]
                bag.ints[2] = 40                    // [1, 30, 40, 0]
                bag.ints.swapAt(0, 3)               // [0, 30, 40, 1]
            }
            XCTAssertEqual(Array(bag.ints), [0, 30, 40, 1])
            XCTAssertEqual(bag.ints.index(of: 40), 2)
            XCTAssertNil(bag.ints.index(of: 99))
            XCTAssertEqual(bag.ints.first, 0)
            XCTAssertEqual(bag.ints.last, 1)
            try realm.write {
                bag.optStrings.append(objectsIn: ["a", nil, "", "\u{0}z"])
                bag.blobs.append(Data([0, 1, 2]))
                bag.blobs.append(Data())
                bag.dates.append(.distantPast)
                bag.colors.append(objectsIn: [.blue, .red])
                bag.decimals.append("3.25")
            }
        }
        try withRealm { realm in
            let bag = try XCTUnwrap(realm.objects(Bag.self).first)
            XCTAssertEqual(Array(bag.ints), [0, 30, 40, 1])
            XCTAssertEqual(Array(bag.optStrings), ["a", nil, "", "\u{0}z"])
            XCTAssertEqual(Array(bag.blobs), [Data([0, 1, 2]), Data()])
            XCTAssertEqual(Array(bag.dates), [.distantPast])
            XCTAssertEqual(Array(bag.colors), [.blue, .red])
            XCTAssertEqual(Array(bag.decimals), ["3.25"])
            try realm.write {
                bag.ints.removeLast()
                bag.ints.removeFirst()
            }
            XCTAssertEqual(Array(bag.ints), [30, 40])
            try realm.write { bag.ints.removeAll() }
            XCTAssertTrue(bag.ints.isEmpty)
        }
    }

    func testListOfObjectsOperations() throws {
        let realm = try openRealm()
        let owner = Owner()
        owner.id = 1
        let names = ["a", "b", "c", "d"]
        let pets = names.map { name -> Pet in
            let pet = Pet()
            pet.name = name
            return pet
        }
        owner.pets.append(objectsIn: pets[0..<2])
        try realm.write { realm.add(owner) }
        try realm.write {
            owner.pets.append(pets[2])            // adds the unmanaged pet
            owner.pets.insert(pets[3], at: 0)     // d a b c
            owner.pets.move(from: 3, to: 1)       // d c a b
            owner.pets.remove(at: 2)              // d c b (a stays in the Realm)
            owner.pets.replace(index: 0, object: pets[0]) // a c b
        }
        XCTAssertEqual(owner.pets.map(\.name), ["a", "c", "b"])
        XCTAssertEqual(realm.objects(Pet.self).count, 4)
        XCTAssertEqual(owner.pets.index(of: pets[2]), 1)
        XCTAssertNil(owner.pets.index(of: pets[3]))
        XCTAssertEqual(pets[3].listedBy.count, 0)
        XCTAssertEqual(pets[0].listedBy.count, 1)
        // Assigning a list replaces its contents; assigning itself is a no-op.
        try realm.write {
            owner.pets = owner.pets
            let replacement = List<Pet>()
            replacement.append(pets[3])
            owner.pets = replacement
        }
        XCTAssertEqual(owner.pets.map(\.name), ["d"])
    }

    func testMutableSetOperations() throws {
        try withRealm { realm in
            let bag = Bag()
            bag.tags.insert(objectsIn: ["x", "y", "x"])
            XCTAssertEqual(bag.tags.count, 2, "unmanaged sets are unique too")
            try realm.write { realm.add(bag) }
            XCTAssertEqual(bag.tags.count, 2)
            try realm.write {
                bag.tags.insert("z")
                bag.tags.insert("x")
                bag.tags.remove("y")
            }
            XCTAssertEqual(Set(bag.tags), ["x", "z"])
            XCTAssertTrue(bag.tags.contains("z"))
            XCTAssertFalse(bag.tags.contains("y"))
            try realm.write {
                bag.tags.formUnion(["p", "q"])
                bag.tags.subtract(["p"])
                bag.tags.formIntersection(["q", "x", "nope"])
                let id = ObjectId.generate()
                bag.ids.insert(id)
                bag.ids.insert(id)
            }
            XCTAssertEqual(Set(bag.tags), ["q", "x"])
            XCTAssertEqual(bag.ids.count, 1)
        }
        try withRealm { realm in
            let bag = try XCTUnwrap(realm.objects(Bag.self).first)
            XCTAssertEqual(Set(bag.tags), ["q", "x"])
            try realm.write { bag.tags.removeAll() }
            XCTAssertEqual(bag.tags.count, 0)
        }
    }

    func testMutableSetOfObjects() throws {
        let realm = try openRealm()
        let owner = Owner()
        owner.id = 3
        let a = Pet(), b = Pet()
        try realm.write {
            realm.add(owner)
            owner.petSet.insert(a)
            owner.petSet.insert(a)
            owner.petSet.insert(b)
        }
        XCTAssertEqual(owner.petSet.count, 2)
        XCTAssertTrue(owner.petSet.contains(a))
        XCTAssertFalse(owner.petSet.contains(Pet()))
        try realm.write { owner.petSet.remove(a) }
        XCTAssertEqual(owner.petSet.count, 1)
        XCTAssertTrue(owner.petSet.contains(b))
    }

    func testMapOperations() throws {
        try withRealm { realm in
            let bag = Bag()
            bag.scores["b"] = 2
            bag.scores["a"] = 1
            try realm.write { realm.add(bag) }
            XCTAssertEqual(bag.scores.keys, ["a", "b"])
            try realm.write {
                bag.scores["c"] = 3.5
                bag.scores["a"] = 10          // replace
                bag.scores["b"] = nil         // remove
                bag.scores.updateValue(.nan, forKey: "nan")
                bag.optInts.updateValue(nil, forKey: "none")
                bag.optInts["one"] = 1
            }
            XCTAssertEqual(bag.scores.keys, ["a", "c", "nan"])
            XCTAssertEqual(bag.scores["a"], 10)
            XCTAssertNil(bag.scores["b"])
            XCTAssertTrue(bag.scores["nan"]!.isNaN)
            XCTAssertEqual(bag.optInts.count, 2)
            XCTAssertEqual(bag.optInts["none"], .some(nil))
        }
        try withRealm { realm in
            let bag = try XCTUnwrap(realm.objects(Bag.self).first)
            XCTAssertEqual(bag.scores.keys, ["a", "c", "nan"])
            XCTAssertEqual(bag.scores.map(\.key), ["a", "c", "nan"])
            XCTAssertEqual(bag.optInts["one"], 1)
            try realm.write {
                bag.scores.removeObject(for: "a")
                bag.scores.merge([(key: "d", value: 4.0), (key: "c", value: 1.0)]) { $0 + $1 }
            }
            XCTAssertEqual(bag.scores.keys, ["c", "d", "nan"])
            XCTAssertEqual(bag.scores["c"], 4.5)
            try realm.write { bag.scores.removeAll() }
            XCTAssertTrue(bag.scores.isEmpty)
        }
    }

    func testMapOfObjects() throws {
        let realm = try openRealm()
        let owner = Owner()
        owner.id = 4
        let cat = Pet()
        cat.name = "cat"
        owner.petMap["c"] = cat
        try realm.write { realm.add(owner) }
        XCTAssertEqual(owner.petMap["c"]??.name, "cat")
        try realm.write {
            let dog = Pet()
            dog.name = "dog"
            owner.petMap["d"] = dog
            owner.petMap.updateValue(nil, forKey: "none")
        }
        XCTAssertEqual(owner.petMap.count, 3)
        XCTAssertEqual(realm.objects(Pet.self).count, 2)
        XCTAssertEqual(owner.petMap.values.compactMap { $0?.name }, ["cat", "dog"])
    }

    func testCollectionMutationOutsideWriteStops() {
        assertStops("listAppendOutsideWrite", printing: "outside of a write transaction")
    }
}
