import Foundation
@testable import RealmLite
import XCTest

/// Appends to a List in the lists tree that follow the write's last append
/// take the key after the one it put (Storage/ListAppend.swift): every
/// other change in between must make them find the list's last key again.
final class ListAppendTests: CollectionsTreeTestCase {
    let types: [ObjectBase.Type] = [TreeListOwner.self, TreeListPet.self, TreeListPart.self]

    func testOrderKeyAdvanceIsAfter() {
        var keys: [[UInt8]] = [[1, 0], [1, 1], [1, 254], [1, 255], [2, 1, 0], [2, 255, 255], [3, 16, 0, 0],
                               [8, 255, 255, 255, 255, 255, 255, 255, 254], [8, 255, 255, 255, 255, 255, 255, 255, 255],
                               [3, 16, 0, 0, 128], [2, 0, 5], [0, 7], [0], [3, 16, 0]]
        keys += (0..<200).map { _ in OrderKey.counter(UInt64.random(in: 0...UInt64.max >> UInt64.random(in: 0...63))) }
        for key in keys {
            var full: [UInt8] = [9, 9, 9, 9, 9, 9, 9, 9] + key
            OrderKey.advance(&full, from: 8)
            XCTAssertEqual(Array(full[..<8]), [9, 9, 9, 9, 9, 9, 9, 9])
            XCTAssertEqual(Array(full[8...]), key.withUnsafeBytes { OrderKey.after($0) }, "after \(key)")
            XCTAssertLessThan(key.withUnsafeBytes { a in full.withUnsafeBytes { compareBytes(a, UnsafeRawBufferPointer(rebasing: $0[8...])) } }, 0)
        }
    }

    /// Three appends (the last two continue the first), `edit`, three more:
    /// the list must read as the array given the same steps.
    private func assertAppendsAround(_ label: String, _ edit: (List<Int>, inout [Int], Realm) -> Void) throws {
        let realm = try openRealm(types)
        let owner = try realm.write {
            realm.deleteAll()
            return realm.create(TreeListOwner.self, value: ["id": 1, "numbers": Array(0..<10)])
        }
        var model = Array(0..<10)
        try realm.write {
            for value in 100..<103 { owner.numbers.append(value); model.append(value) }
            edit(owner.numbers, &model, realm)
            for value in 200..<203 { owner.numbers.append(value); model.append(value) }
        }
        XCTAssertEqual(Array(owner.numbers), model, label)
        XCTAssertEqual(owner.numbers.count, model.count, label)
        var spilled = 0
        for owner in realm.objects(TreeListOwner.self) {
            spilled += [owner.numbers.field!, owner.names.field!].reduce(0) { $0 + ($1.spilledList?.count ?? 0) }
        }
        XCTAssertEqual(treeEntries(realm), spilled, "\(label): one entry per element")
        try assertConsistent(realm, label)
    }

    func testAppendsAfterEveryOtherEditOfTheListMatchAnArray() throws {
        try assertAppendsAround("appended as a batch") { list, model, _ in
            list.append(objectsIn: [300, 301]); model.append(contentsOf: [300, 301])
        }
        try assertAppendsAround("the last elements replaced by more") { list, model, _ in
            list.replaceSubrange((list.count - 1)..<list.count, with: [300, 301, 302])
            model.replaceSubrange((model.count - 1)..<model.count, with: [300, 301, 302])
        }
        try assertAppendsAround("inserted at 0") { list, model, _ in list.insert(300, at: 0); model.insert(300, at: 0) }
        try assertAppendsAround("inserted before the last") { list, model, _ in
            list.insert(300, at: list.count - 1); model.insert(300, at: model.count - 1)
        }
        try assertAppendsAround("the last removed") { list, model, _ in list.removeLast(); model.removeLast() }
        try assertAppendsAround("the first removed") { list, model, _ in list.remove(at: 0); model.remove(at: 0) }
        try assertAppendsAround("the last moved first") { list, model, _ in
            list.move(from: list.count - 1, to: 0); model.insert(model.removeLast(), at: 0)
        }
        try assertAppendsAround("the first moved last") { list, model, _ in
            list.move(from: 0, to: list.count - 1); model.append(model.removeFirst())
        }
        try assertAppendsAround("swapped") { list, model, _ in list.swapAt(0, list.count - 1); model.swapAt(0, model.count - 1) }
        try assertAppendsAround("the last set") { list, model, _ in list[list.count - 1] = 300; model[model.count - 1] = 300 }
        try assertAppendsAround("emptied") { list, model, _ in list.removeAll(); model.removeAll() }
        try assertAppendsAround("emptied and refilled past the threshold") { list, model, _ in
            list.removeAll(); list.append(objectsIn: 300..<320); model = Array(300..<320)
        }
        try assertAppendsAround("another list of the owner appended to") { _, _, realm in
            realm.object(ofType: TreeListOwner.self, forPrimaryKey: 1)!.names.append(objectsIn: (0..<10).map { "n\($0)" })
        }
        try assertAppendsAround("another owner's list appended to") { _, _, realm in
            let other = realm.create(TreeListOwner.self, value: ["id": 2, "numbers": Array(0..<10)])
            for value in 0..<3 { other.numbers.append(value) }
        }
        try assertAppendsAround("the list set from an array") { _, model, realm in
            realm.object(ofType: TreeListOwner.self, forPrimaryKey: 1)!.numbers = {
                let list = List<Int>()
                list.append(objectsIn: 500..<520)
                return list
            }()
            model = Array(500..<520)
        }
    }

    func testAppendsInTwoListsInTurnMatchArrays() throws {
        let realm = try openRealm(types)
        var a = Array(0..<10), b = Array(50..<60)
        let (x, y) = try realm.write {
            (realm.create(TreeListOwner.self, value: ["id": 1, "numbers": a]),
             realm.create(TreeListOwner.self, value: ["id": 2, "numbers": b]))
        }
        try realm.write {
            for i in 0..<50 {
                if i % 3 == 0 { y.numbers.append(i); b.append(i) } else { x.numbers.append(i); a.append(i) }
            }
        }
        XCTAssertEqual(Array(x.numbers), a)
        XCTAssertEqual(Array(y.numbers), b)
        try assertConsistent(realm, "two lists")
    }

    func testAppendsAfterACancelledWriteMatchTheCommittedList() throws {
        let realm = try openRealm(types)
        let owner = try realm.write { realm.create(TreeListOwner.self, value: ["id": 1, "numbers": Array(0..<10)]) }
        realm.beginWrite()
        for value in 100..<110 { owner.numbers.append(value) }
        realm.cancelWrite()
        realm.beginWrite()
        for value in 200..<203 { owner.numbers.append(value) }
        try realm.commitWrite()
        XCTAssertEqual(Array(owner.numbers), Array(0..<10) + Array(200..<203))
        try assertConsistent(realm, "after the cancelled write")
    }

    /// A list deleted with its owner leaves its id free: the next list
    /// spilled takes it, and may reach the same serial and count as the
    /// deleted one had after its last append, with other keys. That write
    /// changed other records in between, so the append must seek.
    func testAnAppendToAListThatReusedADeletedListsIdSeeks() throws {
        let realm = try openRealm(types)
        try realm.write {
            let first = realm.create(TreeListOwner.self, value: ["id": 1, "numbers": Array(0..<10)])
            for value in 10..<15 { first.numbers.append(value) }
            let state = realm.core.write!.listAppend
            let id = try XCTUnwrap(first.numbers.field?.spilledList?.id)
            realm.delete(first)
            // In the tree from the first removal (serial 0, keys
            // counter...counter+15), the second makes serial 1: the same id,
            // serial and count as the deleted list's last run of appends.
            let second = realm.create(TreeListOwner.self, value: ["id": 2, "numbers": Array(100..<117)])
            second.numbers.removeFirst()
            second.numbers.removeFirst()
            let marker = try XCTUnwrap(second.numbers.field?.spilledList)
            XCTAssertEqual([marker.id, UInt64(marker.serial), UInt64(marker.count)], [id, UInt64(state.serial), UInt64(state.count)])
            second.numbers.append(7)
            XCTAssertEqual(Array(second.numbers), Array(102..<117) + [7])
        }
        XCTAssertEqual(treeEntries(realm), 16)
        try assertConsistent(realm, "after the reused id")
    }

    func testAppendsOfObjectsKeepBacklinksAndEmbeddedOwners() throws {
        let realm = try openRealm(types)
        let owner = try realm.write { realm.create(TreeListOwner.self, value: ["id": 1]) }
        try realm.write {
            let pet = realm.create(TreeListPet.self, value: ["name": "rex"])
            for i in 0..<10 {
                owner.pets.append(i % 2 == 0 ? pet : TreeListPet(value: ["name": "p\(i)"]))
                owner.parts.append(TreeListPart(value: ["label": "l\(i)"]))
            }
            XCTAssertEqual(pet.owners.count, 5, "one backlink per link")
        }
        XCTAssertEqual(owner.pets.map(\.name), (0..<10).map { $0 % 2 == 0 ? "rex" : "p\($0)" })
        XCTAssertEqual(owner.parts.map(\.label), (0..<10).map { "l\($0)" })
        let parts = realm.core.schemaState.byName["TreeListPart"]!
        XCTAssertEqual(realm.core.count(of: parts), 10)
        try realm.write { owner.parts.removeAll() }
        XCTAssertEqual(realm.core.count(of: parts), 0, "removed embedded objects are deleted")
        try assertConsistent(realm, "links")
    }
}
