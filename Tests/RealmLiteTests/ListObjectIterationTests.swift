import Foundation
@testable import RealmLite
import XCTest

/// Iterating Lists of objects in the lists tree: the targets are read with
/// a cursor of the iterator's own (Collections/LinkedObjectReader.swift).
final class ListObjectIterationTests: CollectionsTreeTestCase {
    let types: [ObjectBase.Type] = [TreeListOwner.self, TreeListPet.self, TreeListPart.self]

    /// An owner whose `pets` links `count` pets created in key order, in
    /// that order or shuffled.
    private func makeOwner(_ realm: Realm, count: Int, shuffled: Bool = false) throws -> TreeListOwner {
        try realm.write {
            let owner = realm.create(TreeListOwner.self, value: ["id": 1])
            var pets = (0..<count).map { realm.create(TreeListPet.self, value: ["name": "p\($0)"]) }
            if shuffled {
                var generator = SplitMix(seed: 7)
                pets.shuffle(using: &generator)
            }
            owner.pets.append(objectsIn: pets)
            return owner
        }
    }

    func testKeyOrderAndRandomOrderListsIterateTheirTargets() throws {
        let realm = try openRealm(types)
        for shuffled in [false, true] {
            try realm.write { realm.deleteAll() }
            let owner = try makeOwner(realm, count: 500, shuffled: shuffled)
            XCTAssertNotNil(owner.pets.field?.spilledList)
            let expected = (0..<owner.pets.count).map { owner.pets[$0].name }
            XCTAssertEqual(owner.pets.map(\.name), expected, shuffled ? "random order" : "key order")
            // Kept objects stay the objects they were.
            var kept: [TreeListPet] = []
            for pet in owner.pets { kept.append(pet) }
            XCTAssertEqual(kept.map(\.name), expected)
            XCTAssertEqual(Set(kept.map(ObjectIdentifier.init)).count, kept.count, "no accessor is reused while kept")
            XCTAssertTrue(kept.allSatisfy { $0.owners.count == 1 && !$0.isInvalidated })
        }
    }

    /// A loop that does not keep its objects gets one accessor, repointed.
    func testAnIterationThatKeepsNothingReusesOneAccessor() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm, count: 100)
        // Weak: an accessor made per element is freed by the next step.
        weak var previous: TreeListPet?
        var repointed = 0
        var names: [String] = []
        for pet in owner.pets {
            if let previous, previous === pet { repointed += 1 }
            previous = pet
            names.append(pet.name)
        }
        XCTAssertEqual(names, (0..<100).map { "p\($0)" })
        XCTAssertEqual(repointed, 99)
    }

    func testADeletedTargetLeavesTheListAndTheLoop() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm, count: 200)
        try realm.write { realm.delete(realm.objects(TreeListPet.self).filter("name == 'p100'")) }
        XCTAssertEqual(owner.pets.map(\.name), (0..<200).filter { $0 != 100 }.map { "p\($0)" })
        // Deleted while the loop runs: it goes on from the same position.
        var seen: [String] = []
        try realm.write {
            for pet in owner.pets {
                seen.append(pet.name)
                if pet.name == "p50" { realm.delete(realm.objects(TreeListPet.self).filter("name == 'p60'")) }
            }
        }
        XCTAssertEqual(seen, (0..<200).filter { $0 != 100 && $0 != 60 }.map { "p\($0)" })
    }

    /// Writes, other iterations and lookups move the Realm's cursors and
    /// records: the loop still reads the right objects.
    func testWritesAndOtherReadsInsideTheLoop() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm, count: 300)
        var seen: [String] = []
        try realm.write {
            for pet in owner.pets {
                seen.append(pet.name)
                pet.name += "!"
                if seen.count % 50 == 0 { realm.create(TreeListPet.self, value: ["name": "extra"]) }
            }
        }
        XCTAssertEqual(seen, (0..<300).map { "p\($0)" })
        XCTAssertEqual(owner.pets.map(\.name), (0..<300).map { "p\($0)!" })
        var inner = 0
        seen = []
        for pet in owner.pets {
            seen.append(pet.name)
            if seen.count % 97 == 0 {
                for other in realm.objects(TreeListPet.self) where other.name == "extra" { inner += 1 }
                for _ in owner.pets { break }
            }
        }
        XCTAssertEqual(seen, (0..<300).map { "p\($0)!" })
        XCTAssertEqual(inner, 18)
    }

    func testFrozenEmbeddedAndDynamicLists() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm, count: 120, shuffled: true)
        try realm.write { for i in 0..<50 { owner.parts.append(TreeListPart(value: ["label": "part\(i)"])) } }
        let expected = owner.pets.map(\.name)
        let frozen = owner.pets.freeze()
        try realm.write { owner.pets.removeAll() }
        XCTAssertEqual(frozen.map(\.name), expected)
        XCTAssertTrue(frozen.allSatisfy(\.isFrozen))
        XCTAssertEqual(owner.parts.map(\.label), (0..<50).map { "part\($0)" })
        let dynamic = try XCTUnwrap(realm.dynamicObject(ofType: "TreeListOwner", forPrimaryKey: 1))
        XCTAssertEqual(dynamic.dynamicList("parts").map { $0["label"] as? String ?? "" }, (0..<50).map { "part\($0)" })
    }
}
