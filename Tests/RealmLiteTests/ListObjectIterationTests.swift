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

    /// Iterates `list` with one iterator; returns what it read and the iterator.
    private func walk<E>(_ list: List<E>, _ body: (E) -> Void = { _ in }) -> ListIterator<E> {
        var iterator = list.makeIterator()
        while let element = iterator.next() { body(element) }
        return iterator
    }

    /// Links in key order are found among the rows read ahead from the
    /// targets' leaves: one seek for the whole list, with or without gaps
    /// between the keys, and the list's own entries are read a leaf at a time.
    func testLinksInKeyOrderAreReadALeafAtATime() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm, count: 2000)
        var names: [String] = []
        var iterator = walk(owner.pets) { names.append($0.name) }
        XCTAssertEqual(names, (0..<2000).map { "p\($0)" })
        XCTAssertEqual(iterator.walker.listSeeks, 1)
        XCTAssertEqual(iterator.walker.targetSeeks, 1)
        XCTAssertNil(iterator.next())

        // Every third pet: the links skip keys, still in order.
        try realm.write {
            let pets = realm.objects(TreeListPet.self)
            owner.pets.removeAll()
            owner.pets.append(objectsIn: stride(from: 0, to: 2000, by: 3).map { pets[$0] })
        }
        names = []
        iterator = walk(owner.pets) { names.append($0.name) }
        XCTAssertEqual(names, stride(from: 0, to: 2000, by: 3).map { "p\($0)" })
        XCTAssertEqual(iterator.walker.targetSeeks, 1)
    }

    /// Links in random order seek each target, and give the same objects
    /// as index access.
    func testLinksInRandomOrderSeekEachTarget() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm, count: 1000, shuffled: true)
        var names: [String] = []
        let iterator = walk(owner.pets) { names.append($0.name) }
        XCTAssertEqual(names, (0..<1000).map { owner.pets[$0].name })
        XCTAssertGreaterThan(iterator.walker.targetSeeks, 900)
        XCTAssertEqual(iterator.walker.listSeeks, 1)
    }

    /// A body that takes the Realm's cursors (index reads, other loops)
    /// makes the iterator take them again; rows it read ahead stay right.
    func testCursorClaimsInsideTheLoopReseek() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm, count: 1000)
        let pets = realm.objects(TreeListPet.self)
        var names: [String] = []
        let iterator = walk(owner.pets) { pet in
            names.append(pet.name)
            if names.count % 100 == 30 {
                XCTAssertEqual(owner.pets[999].name, "p999")
                XCTAssertEqual(pets[5].name, "p5")
                for other in owner.pets.reversed().prefix(1) { XCTAssertEqual(other.name, "p999") }
            }
        }
        XCTAssertEqual(names, (0..<1000).map { "p\($0)" })
        XCTAssertEqual(iterator.walker.listSeeks, 11, "once, then after each of the 10 bodies that took cursors")
    }

    /// A list that leaves the tree while it is iterated (emptied, refilled
    /// short) is read from the owner's record from then on.
    func testAListThatLeavesTheTreeInTheLoopIsReadFromItsRecord() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm, count: 100)
        let pets = Array(realm.objects(TreeListPet.self).prefix(3))
        var names: [String] = []
        try realm.write {
            for pet in owner.pets {
                names.append(pet.name)
                if names.count == 2 {
                    owner.pets.removeAll()
                    owner.pets.append(objectsIn: pets.reversed())
                    XCTAssertNil(owner.pets.field?.spilledList)
                }
            }
        }
        XCTAssertEqual(names, ["p0", "p1", "p0"])
    }

    /// Lists of values read their entries a leaf at a time too.
    func testListsOfValuesInTheTree() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm, count: 0)
        let numbers = (0..<3000).map { $0 % 7 == 0 ? -$0 * 1_000_003 : $0 }
        let names = (0..<500).map { $0 % 5 == 0 ? nil : "n\($0)" }
        try realm.write {
            owner.numbers.append(objectsIn: numbers)
            owner.names.append(objectsIn: names)
        }
        var read: [Int] = []
        let iterator = walk(owner.numbers) { read.append($0) }
        XCTAssertEqual(read, numbers)
        XCTAssertEqual(iterator.walker.listSeeks, 1)
        XCTAssertEqual(Array(owner.names), names)
        // Appending while iterating ends at the count when iteration started.
        var seen = 0
        try realm.write {
            for number in owner.numbers {
                seen += 1
                if seen % 500 == 0 { owner.numbers.append(number) }
            }
        }
        XCTAssertEqual(seen, 3000)
        XCTAssertEqual(owner.numbers.count, 3006)
    }
}
