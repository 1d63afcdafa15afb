import Foundation
@testable import RealmLite
import XCTest

/// RealmSwift's List behaviours (its ListTests), for a List in its owner's
/// record and one in the lists tree alike.
final class ListBehaviourTests: RealmTestCase {
    let types: [ObjectBase.Type] = [TreeListOwner.self, TreeListPet.self, TreeListPart.self]

    /// Runs `body` with lists kept in the record, then with every list in the tree.
    func bothLayouts(_ body: (Realm, String) throws -> Void) throws {
        for threshold in [Int.max, 0] {
            let saved = ListTree.setThreshold(threshold)
            defer { ListTree.setThreshold(saved) }
            let name = threshold == 0 ? "tree" : "record"
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "\(name)-\(UUID())", objectTypes: types))
            try body(realm, name)
        }
    }

    func testIteratingALiveListWhileAppendingSeesTheElementsItStartedWith() throws {
        try bothLayouts { realm, layout in
            try realm.write {
                let owner = realm.create(TreeListOwner.self, value: ["id": 1, "numbers": [1, 2, 3]])
                var seen: [Int] = []
                for n in owner.numbers {
                    seen.append(n)
                    owner.numbers.append(n * 10)
                }
                XCTAssertEqual(seen, [1, 2, 3], layout)
                XCTAssertEqual(Array(owner.numbers), [1, 2, 3, 10, 20, 30], layout)
            }
        }
    }

    func testReplaceSubrangeWithAnyCounts() throws {
        try bothLayouts { realm, layout in
            try realm.write {
                let list = realm.create(TreeListOwner.self, value: ["id": 1, "numbers": [0, 1, 2, 3]]).numbers
                list.replaceSubrange(1..<3, with: [7, 8, 9])
                XCTAssertEqual(Array(list), [0, 7, 8, 9, 3], layout)
                list.replaceSubrange(0..<4, with: [5])
                XCTAssertEqual(Array(list), [5, 3], layout)
                list.replaceSubrange(2..<2, with: [6, 6])
                XCTAssertEqual(Array(list), [5, 3, 6, 6], layout)
                list.replaceSubrange(0..<4, with: [])
                XCTAssertEqual(Array(list), [], layout)
            }
        }
    }

    func testMoveAndSwapAt() throws {
        try bothLayouts { realm, layout in
            try realm.write {
                let list = realm.create(TreeListOwner.self, value: ["id": 1, "numbers": [0, 1, 2, 3, 4]]).numbers
                list.move(from: 0, to: 4)
                XCTAssertEqual(Array(list), [1, 2, 3, 4, 0], layout)
                list.move(from: 3, to: 1)
                XCTAssertEqual(Array(list), [1, 4, 2, 3, 0], layout)
                list.swapAt(0, 4)
                XCTAssertEqual(Array(list), [0, 4, 2, 3, 1], layout)
                list.swapAt(2, 2)
                XCTAssertEqual(Array(list), [0, 4, 2, 3, 1], layout)
            }
        }
    }

    func testLinkingObjectsListsASourceOncePerLink() throws {
        try bothLayouts { realm, layout in
            try realm.write {
                let pet = realm.create(TreeListPet.self, value: ["name": "rex"])
                let owner = realm.create(TreeListOwner.self, value: ["id": 1])
                owner.pets.append(objectsIn: [pet, pet, pet])
                XCTAssertEqual(pet.owners.count, 3, layout)
                XCTAssertEqual(pet.owners.map(\.id), [1, 1, 1], layout)
                owner.pets.remove(at: 0)
                XCTAssertEqual(pet.owners.count, 2, layout)
            }
        }
    }

    func testRemovingEmbeddedObjectsFromAListDeletesThem() throws {
        try bothLayouts { realm, layout in
            let parts = realm.core.schemaState.byName["TreeListPart"]!
            try realm.write {
                let owner = realm.create(TreeListOwner.self, value: ["id": 1, "parts": [["label": "a"], ["label": "b"], ["label": "c"]]])
                let removed = owner.parts[1]
                owner.parts.remove(at: 1)
                XCTAssertTrue(removed.isInvalidated, layout)
                XCTAssertEqual(realm.core.count(of: parts), 2, layout)
                owner.parts.replaceSubrange(0..<1, with: [TreeListPart(value: ["label": "d"])])
                XCTAssertEqual(owner.parts.map(\.label), ["d", "c"], layout)
                XCTAssertEqual(realm.core.count(of: parts), 2, layout)
                owner.parts.removeAll()
                XCTAssertEqual(realm.core.count(of: parts), 0, layout)
            }
        }
    }
}
