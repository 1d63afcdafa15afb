import Foundation
import XCTest
@testable import RealmLite

/// A class another program stored: this one declares it under a Swift name
/// the dynamic tests never open it with.
final class LegacyItem: Object {
    override class func _realmObjectName() -> String? { "Item" }
    @Persisted(primaryKey: true) var code = ""
    @Persisted var count = 0
    @Persisted var tags: List<String>
    @Persisted var parts: List<LegacyPart>
    @Persisted var main: LegacyPart?
}

final class LegacyPart: Object {
    override class func _realmObjectName() -> String? { "Part" }
    @Persisted var name = ""
    @Persisted var weight: Double?
}

/// RealmSwift's dynamic API: dynamicObjects, dynamicObject(ofType:forPrimaryKey:),
/// dynamicCreate and DynamicObject, over classes the program may not declare.
final class DynamicAPITests: RealmTestCase {
    /// The child-process entry point of the stop scenarios below.
    func testRunStopScenario() throws {
        guard let name = ProcessInfo.processInfo.environment[stopScenarioVariable] else {
            throw XCTSkip("the child-process entry point of assertStops: runs only with \(stopScenarioVariable) set")
        }
        let realm = try openRealm()
        try realm.write { realm.create(Owner.self, value: ["id": 1]) }
        switch name {
        case "unknownClass": _ = realm.dynamicObjects("Unicorn")
        case "unknownProperty": _ = realm.dynamicObjects("Owner").first!["weight"]
        case "updateWithoutPrimaryKey": try realm.write { _ = realm.dynamicCreate("Pet", value: ["name": "a"], update: .modified) }
        case "objectsOfDynamicObject": _ = realm.objects(DynamicObject.self)
        default: XCTFail("unknown scenario \(name)")
        }
    }

    private func assertDynamicStops(_ scenario: String, printing expected: String, line: UInt = #line) {
        assertStops(scenario, printing: expected, runner: "RealmLiteTests.DynamicAPITests/testRunStopScenario", line: line)
    }

    /// Writes an Owner with every kind of property through the typed model.
    private func writeOwner(_ realm: Realm) throws {
        try realm.write {
            realm.create(Owner.self, value: ["id": 1, "name": "ann", "best": ["name": "tom", "kind": "cat"],
                                             "pets": [["name": "a"], ["name": "b"]], "petSet": [["name": "s"]],
                                             "petMap": ["home": ["name": "m"]], "address": ["street": "main", "geo": ["lat": 1.5]]])
            realm.create(Bag.self, value: ["ints": [1, 2, 3], "optStrings": ["x", NSNull()], "scores": ["a": 2.5]])
        }
    }

    func testReadingWhatTheTypedModelWrote() throws {
        try writeOwner(try openRealm())
        // Opened knowing none of these classes: only the file describes them.
        let realm = try Realm(configuration: configuration([Dog.self]))
        let owners = realm.dynamicObjects("Owner")
        XCTAssertEqual(owners.count, 1)
        let owner = try XCTUnwrap(owners.first)
        XCTAssertEqual(owner["name"] as? String, "ann")
        XCTAssertEqual(owner.name as? String, "ann")
        XCTAssertEqual(owner.value(forKey: "id") as? Int, 1)
        XCTAssertEqual(owner.objectSchema.className, "Owner")
        XCTAssertEqual(owner.objectSchema.primaryKeyProperty?.name, "id")
        let best = try XCTUnwrap(owner["best"] as? DynamicObject)
        XCTAssertEqual(best["kind"] as? String, "cat")
        XCTAssertEqual(owner.dynamicList("pets").map { $0["name"] as? String }, ["a", "b"])
        XCTAssertEqual((owner["pets"] as? List<DynamicObject>)?.count, 2)
        XCTAssertEqual(owner.dynamicMutableSet("petSet").first?["name"] as? String, "s")
        let petMap: Map<String, DynamicObject?> = owner.dynamicMap("petMap")
        XCTAssertEqual(petMap["home"]??["name"] as? String, "m")
        let address = try XCTUnwrap(owner["address"] as? DynamicObject)
        XCTAssertEqual(address.objectSchema.isEmbedded, true)
        XCTAssertEqual((address["geo"] as? DynamicObject)?["lat"] as? Double, 1.5)
        XCTAssertEqual(owner.value(forKeyPath: "address.street") as? String, "main")
        // Linking objects read as DynamicObjects too.
        let pet = try XCTUnwrap(realm.dynamicObjects("Pet").filter("name == 'a'").first)
        XCTAssertEqual((pet["listedBy"] as? LinkingObjects<DynamicObject>)?.first?["id"] as? Int, 1)

        let bag = try XCTUnwrap(realm.dynamicObjects("Bag").first)
        XCTAssertEqual(Array(try XCTUnwrap(bag["ints"] as? List<Int>)), [1, 2, 3])
        XCTAssertEqual(Array(try XCTUnwrap(bag["optStrings"] as? List<String?>)), ["x", nil])
        XCTAssertEqual((bag["scores"] as? Map<String, Double>)?["a"], 2.5)

        XCTAssertEqual(realm.dynamicObject(ofType: "Owner", forPrimaryKey: 1)?["name"] as? String, "ann")
        XCTAssertNil(realm.dynamicObject(ofType: "Owner", forPrimaryKey: 2))
        XCTAssertEqual(realm.dynamicObjects("Pet").sorted(byKeyPath: "name").map { $0["name"] as? String }, ["a", "b", "m", "s", "tom"])
    }

    func testWritingAClassOnlyTheFileKnows() throws {
        let legacy = configuration([LegacyItem.self, LegacyPart.self], file: "legacy.realm")
        try autoreleasepool {
            let realm = try Realm(configuration: legacy)
            try realm.write { realm.create(LegacyItem.self, value: ["code": "a", "count": 1, "tags": ["x"]]) }
        }
        try autoreleasepool {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: legacy.fileURL, objectTypes: [Dog.self]))
            XCTAssertEqual(realm.dynamicObjects("Item").first?["count"] as? Int, 1)
            try realm.write {
                let created = realm.dynamicCreate("Item", value: ["code": "b", "count": 2, "tags": ["y", "z"],
                                                                   "parts": [["name": "p1"], ["name": "p2", "weight": 2.5]],
                                                                   "main": ["name": "m"]])
                XCTAssertEqual(created["count"] as? Int, 2)
                XCTAssertNotNil(created.realm)
                let existing = realm.dynamicObject(ofType: "Item", forPrimaryKey: "a")!
                existing["count"] = 10
                existing.setValue(created["main"], forKey: "main")
                (existing["tags"] as? List<String>)?.append("w")
                existing.dynamicList("parts").append(realm.dynamicObjects("Part").filter("name == 'p1'").first!)
                // With update: only the values given change.
                realm.dynamicCreate("Item", value: ["code": "b", "count": 3], update: .modified)
            }
            XCTAssertEqual(realm.dynamicObjects("Part").count, 3)
            XCTAssertThrowsRealmError(.primaryKeyExists, mentioning: ["Item"]) {
                try realm.write { _ = realm.dynamicCreate("Item", value: ["code": "a"]) }
            }
            XCTAssertThrowsRealmError(.invalidValue, mentioning: ["'Item'", "'Part'"]) {
                try realm.write { realm.dynamicObjects("Item").first!["main"] = realm.dynamicObjects("Item").last! }
            }
        }
        // The program that declares the classes reads what was written dynamically.
        let realm = try Realm(configuration: legacy)
        let a = try XCTUnwrap(realm.object(ofType: LegacyItem.self, forPrimaryKey: "a"))
        XCTAssertEqual(a.count, 10)
        XCTAssertEqual(Array(a.tags), ["x", "w"])
        XCTAssertEqual(a.main?.name, "m")
        XCTAssertEqual(a.parts.map(\.name), ["p1"])
        let b = try XCTUnwrap(realm.object(ofType: LegacyItem.self, forPrimaryKey: "b"))
        XCTAssertEqual(b.count, 3)
        XCTAssertEqual(Array(b.tags), ["y", "z"])
        XCTAssertEqual(b.parts.map(\.weight), [nil, 2.5])
        XCTAssertTrue(b.main!.isSameObject(as: a.main))
        // New objects took fresh keys: typed inserts do not collide with them.
        try realm.write { realm.add(LegacyPart(value: ["name": "typed"])) }
        XCTAssertEqual(realm.objects(LegacyPart.self).count, 4)
    }

    func testDynamicAndTypedObjectsOfADeclaredClassAgree() throws {
        let realm = try openRealm()
        try writeOwner(realm)
        let typed = realm.object(ofType: Owner.self, forPrimaryKey: 1)!
        let dynamic = realm.dynamicObject(ofType: "Owner", forPrimaryKey: 1)!
        try realm.write {
            dynamic["name"] = "bea"
            typed.dynamicList("pets").append(realm.dynamicCreate("Pet", value: ["name": "c"]))
            realm.dynamicCreate("Pet", value: ["d", "dog"])
            typed.pets.append(Pet(value: ["name": "e"]))
        }
        XCTAssertEqual(typed.name, "bea")
        XCTAssertTrue(dynamic == typed, "one row, read dynamically and typed")
        XCTAssertEqual(Set<ObjectBase>([dynamic, typed]).count, 1)
        // Frozen DynamicObjects read their version from any thread.
        let frozen = dynamic.freeze()
        let box = UncheckedBox(value: frozen)
        let frozenName = onOtherThread(returning: { (box.value["name"] as? String) ?? "" })
        XCTAssertEqual(frozenName, "bea")
        XCTAssertEqual(frozen.dynamicList("pets").count, 4)
        XCTAssertEqual(typed.pets.map(\.name), ["a", "b", "c", "e"])
        XCTAssertEqual(realm.objects(Pet.self).count, 8)
        XCTAssertEqual(Set(realm.objects(Pet.self).map(\.name)).count, 8, "no two objects share a key")
        // Deleting through the dynamic API clears links from typed objects.
        try realm.write { realm.delete(realm.dynamicObjects("Pet").filter("name == 'tom'").first!) }
        XCTAssertNil(typed.best)
        XCTAssertEqual(realm.objects(Pet.self).count, 7)
        // create() takes a DynamicObject as the value of its class (by name:
        // its properties are in the stored order).
        let updated = try realm.write { realm.create(Owner.self, value: dynamic, update: .modified) }
        XCTAssertTrue(updated.isSameObject(as: typed))
        XCTAssertEqual(updated.name, "bea")
        XCTAssertEqual(updated.pets.count, 4)
    }

    func testDynamicObjectsAndResultsAreObserved() throws {
        let realm = try openRealm()
        try writeOwner(realm)
        let dynamic = try XCTUnwrap(realm.dynamicObject(ofType: "Owner", forPrimaryKey: 1))
        var changes: [[String]] = []
        var newNames: [String?] = []
        let token = dynamic.observe { change in
            if case .change(_, let properties) = change {
                changes.append(properties.map(\.name))
                newNames.append(properties.first?.newValue as? String)
            }
        }
        let pets = realm.dynamicObjects("Pet")
        var counts: [Int] = []
        let resultsToken = pets.observe { change in
            if case .update(let results, _, _, _) = change { counts.append(results.count) }
        }
        nextTurn()
        try realm.write { realm.object(ofType: Owner.self, forPrimaryKey: 1)!.name = "zoe" }
        nextTurn()
        try realm.write { realm.dynamicCreate("Pet", value: ["name": "new"]) }
        nextTurn()
        XCTAssertEqual(changes, [["name"]])
        XCTAssertEqual(newNames, ["zoe"])
        XCTAssertEqual(counts, [6])
        token.invalidate()
        resultsToken.invalidate()
    }

    func testSchemaDescribesTheStoredClasses() throws {
        let realm = try openRealm()
        let owner = try XCTUnwrap(realm.schema["Owner"])
        XCTAssertEqual(owner.className, "Owner")
        XCTAssertEqual(owner.primaryKeyProperty?.name, "id")
        XCTAssertEqual(owner["best"]?.type, .object)
        XCTAssertEqual(owner["best"]?.objectClassName, "Pet")
        XCTAssertEqual(owner["best"]?.isOptional, true)
        XCTAssertEqual(owner["petSet"]?.isSet, true)
        XCTAssertEqual(realm.schema["Pet"]?["kind"]?.isIndexed, true)
        XCTAssertEqual(realm.schema["Pet"]?["listedBy"]?.type, .linkingObjects)
        XCTAssertNil(realm.schema["Unicorn"])
        try writeOwner(realm)
        XCTAssertEqual(realm.dynamicObjects("Owner").first?.objectSchema, owner)
        XCTAssertTrue(realm.dynamicObjects("Owner").first?.objectSchema.objectClass == DynamicObject.self)
    }

    func testMisuseStops() {
        assertDynamicStops("unknownClass", printing: "Object type 'Unicorn' is not stored in this Realm")
        assertDynamicStops("unknownProperty", printing: "'Owner' has no property named 'weight'")
        assertDynamicStops("updateWithoutPrimaryKey", printing: "'Pet' does not have a primary key and can not be updated")
        assertDynamicStops("objectsOfDynamicObject", printing: "DynamicObject is not a class of the schema")
    }
}
