import Foundation
import XCTest
@testable import RealmLite

/// Key-value coding as RealmSwift has it: value(forKey:), setValue(_:forKey:)
/// and the subscript on objects, the same on collections (each element), and
/// keyed access on Map.
final class KeyValueCodingTests: RealmTestCase {
    /// The child-process entry point of the stop scenarios below.
    func testRunStopScenario() throws {
        guard let name = ProcessInfo.processInfo.environment[stopScenarioVariable] else {
            throw XCTSkip("the child-process entry point of assertStops: runs only with \(stopScenarioVariable) set")
        }
        let realm = try openRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["rex", 3]) }
        switch name {
        case "unknownKeyGet": _ = dog.value(forKey: "weight")
        case "unknownKeySet": try realm.write { dog.setValue(1, forKey: "weight") }
        case "unknownKeyUnmanaged": _ = Dog()["weight"]
        case "setOutsideWrite": dog.setValue("max", forKey: "name")
        case "wrongType": try realm.write { dog.setValue("old", forKey: "age") }
        default: XCTFail("unknown scenario \(name)")
        }
    }

    private func assertKVCStops(_ scenario: String, printing expected: String, line: UInt = #line) {
        assertStops(scenario, printing: expected, runner: "RealmLiteTests.KeyValueCodingTests/testRunStopScenario", line: line)
    }

    func testObjectValueForKeyAndSetValue() throws {
        let unmanaged = Dog(value: ["rex", 3])
        XCTAssertEqual(unmanaged.value(forKey: "name") as? String, "rex")
        unmanaged.setValue(4, forKey: "age")
        XCTAssertEqual(unmanaged.age, 4)
        unmanaged["name"] = "max"
        XCTAssertEqual(unmanaged.name, "max")

        let realm = try openRealm()
        try realm.write { realm.add(unmanaged) }
        XCTAssertEqual(unmanaged.value(forKey: "age") as? Int, 4)
        try realm.write {
            unmanaged.setValue(5, forKey: "age")
            unmanaged["name"] = "bo"
        }
        let stored = realm.objects(Dog.self).first!
        XCTAssertEqual(stored.age, 5)
        XCTAssertEqual(stored["name"] as? String, "bo")
        // Loosely typed values convert as in create(value:).
        try realm.write { stored.setValue(Int64(6), forKey: "age") }
        XCTAssertEqual(stored.age, 6)
    }

    func testObjectKeyPathsFollowLinksAndCollections() throws {
        let realm = try openRealm()
        let owner = try realm.write {
            realm.create(Owner.self, value: ["id": 1, "name": "ann", "best": ["name": "tom"],
                                             "pets": [["name": "a"], ["name": "b"]], "address": ["street": "main"]])
        }
        XCTAssertEqual(owner.value(forKeyPath: "best.name") as? String, "tom")
        XCTAssertEqual(owner.value(forKeyPath: "address.street") as? String, "main")
        XCTAssertEqual((owner.value(forKeyPath: "pets.name") as? [Any?])?.compactMap { $0 as? String }, ["a", "b"])
        let linked = owner.value(forKey: "best") as? Pet
        XCTAssertEqual(linked?.name, "tom")
        let other = try realm.write { realm.create(Owner.self, value: ["id": 2]) }
        XCTAssertNil(other.value(forKeyPath: "best.name"))
    }

    func testCollectionsReadAndSetEachElement() throws {
        let realm = try openRealm()
        let owner = try realm.write {
            realm.create(Owner.self, value: ["id": 1, "pets": [["name": "a"], ["name": "b"]], "petSet": [["name": "s"]]])
        }
        XCTAssertEqual((owner.pets.value(forKey: "name") as? [Any?])?.compactMap { $0 as? String }, ["a", "b"])
        try realm.write {
            owner.pets.setValue("cat", forKey: "kind")
            owner.petSet.setValue("fish", forKey: "kind")
        }
        XCTAssertEqual(owner.pets.map(\.kind), ["cat", "cat"])
        XCTAssertEqual(owner.petSet.map(\.kind), ["fish"])
        let results = realm.objects(Pet.self)
        XCTAssertEqual((results.value(forKey: "kind") as? [Any?])?.compactMap { $0 as? String }.sorted(), ["cat", "cat", "fish"])
        try realm.write { results.setValue("dog", forKey: "kind") }
        XCTAssertEqual(Set(results.map(\.kind)), ["dog"])
        let listedBy = owner.pets[0].listedBy
        XCTAssertEqual((listedBy.value(forKey: "id") as? [Any?])?.compactMap { $0 as? Int }, [1])
        XCTAssertEqual((AnyRealmCollection(results).value(forKey: "name") as? [Any?])?.count, 3)
        // A nil link reads as nil, not as an Optional inside the Any.
        try realm.write { realm.create(Owner.self, value: ["id": 2, "best": ["name": "b"]]) }
        let best = try XCTUnwrap(realm.objects(Owner.self).sorted(byKeyPath: "id").value(forKey: "best") as? [Any?])
        XCTAssertEqual(best.count, 2)
        XCTAssertNil(best[0])
        XCTAssertEqual((best[1] as? Pet)?.name, "b")
        XCTAssertNil(owner["best"])
    }

    func testMapIsKeyed() throws {
        let realm = try openRealm()
        let bag = try realm.write { realm.create(Bag.self, value: ["scores": ["a": 1.5]]) }
        XCTAssertEqual(bag.scores.value(forKey: "a") as? Double, 1.5)
        XCTAssertNil(bag.scores.value(forKey: "missing"))
        try realm.write {
            bag.scores.setValue(2.5, forKey: "b")
            bag.scores.setValue(3, forKey: "a") // an Int converts to the map's Double
        }
        XCTAssertEqual(bag.scores["b"], 2.5)
        XCTAssertEqual(bag.scores["a"], 3.0)
        try realm.write { bag.scores.setValue(nil, forKey: "a") }
        XCTAssertNil(bag.scores["a"])
        XCTAssertEqual(bag.scores.count, 1)

        let owner = try realm.write { realm.create(Owner.self, value: ["id": 1, "petMap": ["home": ["name": "tom"]]]) }
        XCTAssertEqual(owner.petMap.value(forKeyPath: "home.name") as? String, "tom")
    }

    func testSchemaOfAnObject() throws {
        let schema = Owner().objectSchema
        XCTAssertEqual(schema.className, "Owner")
        XCTAssertEqual(schema.primaryKeyProperty?.name, "id")
        XCTAssertEqual(schema["pets"]?.isArray, true)
        XCTAssertEqual(schema["pets"]?.objectClassName, "Pet")
        XCTAssertEqual(schema["petMap"]?.isMap, true)
        XCTAssertEqual(schema["name"]?.columnName, "name")
        XCTAssertTrue(schema.objectClass == Owner.self)
        XCTAssertFalse(schema.isAsymmetric)
        XCTAssertEqual(Pet().objectSchema["listedBy"]?.linkOriginPropertyName, "pets")
        let realm = try openRealm()
        XCTAssertEqual(realm.schema["Address"]?.isEmbedded, true)
        XCTAssertEqual(realm.schema["Owner"], schema)
    }

    func testUnknownKeyStopsNamingClassAndKey() {
        assertKVCStops("unknownKeyGet", printing: "'Dog' has no property named 'weight'")
        assertKVCStops("unknownKeySet", printing: "'Dog' has no property named 'weight'")
        assertKVCStops("unknownKeyUnmanaged", printing: "'Dog' has no property named 'weight'")
    }

    func testSettingOutsideAWriteStops() {
        assertKVCStops("setOutsideWrite", printing: "Cannot modify property 'Dog.name' outside of a write transaction")
        assertKVCStops("wrongType", printing: "Invalid value 'old' of type 'String' for property 'Dog.age'")
    }
}
