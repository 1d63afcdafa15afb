import Foundation
@testable import RealmLite
import XCTest

/// A run of appends to a List of values leaves its marker pending and the
/// write transaction writes it before anything else reaches the engine
/// (Storage/ListAppend.swift). Each test reads the list, its owner or the
/// file through one path right after a run: with the marker unwritten at
/// that point it would see the count before the run.
final class ListAppendRunTests: CollectionsTreeTestCase {
    let types: [ObjectBase.Type] = [TreeListOwner.self, TreeListPet.self, TreeListPart.self]

    /// An owner whose list of `count` elements is in the tree (a list
    /// written with its new record stays in it until a change).
    private func makeOwner(_ realm: Realm, id: Int = 1, count: Int = 10) throws -> TreeListOwner {
        let owner = try realm.write {
            let owner = realm.create(TreeListOwner.self, value: ["id": id])
            owner.numbers.append(objectsIn: 0..<count)
            return owner
        }
        XCTAssertNotNil(owner.numbers.field?.spilledList)
        return owner
    }

    /// The marker in the owner's record as the engine holds it, read
    /// without going through the write transaction's context.
    private func storedMarker(_ realm: Realm, _ owner: TreeListOwner) throws -> SpilledList {
        let core = realm.core
        let write = try XCTUnwrap(core.write)
        let info = try XCTUnwrap(owner._info)
        let value = try XCTUnwrap(write.engineContext.txn.get(info.objectsTree, key: owner._key, "test"))
        let record = core.currentRecord(info, owner._key, value)
        let view = RecordView(base: UnsafeRawPointer(record.data!), size: record.size)
        let column = try XCTUnwrap(info.columns.firstIndex { $0.name == "numbers" })
        return try XCTUnwrap(SpilledList(view.field(info.slots[column], info.layout), type: TreeElementEncoding(info.columns[column])))
    }

    func testARunWritesItsMarkerOnceAndLeavesItPendingMeanwhile() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm)
        let before = try XCTUnwrap(owner.numbers.field?.spilledList)
        realm.beginWrite()
        for value in 100..<200 { owner.numbers.append(value) }
        XCTAssertEqual(try storedMarker(realm, owner).count, 10, "pending during the run: one put per append")
        XCTAssertEqual(owner.numbers.count, 110)
        let marker = try storedMarker(realm, owner)
        XCTAssertEqual([marker.count, Int(marker.serial)], [110, Int(before.serial) + 1], "the serial moves once per run")
        try realm.commitWrite()
        XCTAssertEqual(Array(owner.numbers), Array(0..<10) + Array(100..<200))
        try assertConsistent(realm, "one run")
    }

    func testEveryReadAfterARunSeesIt() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm)
        var model = Array(0..<10)
        let reads: [(String, (Realm) -> Int)] = [
            ("count", { _ in owner.numbers.count }),
            ("the last element", { _ in owner.numbers[owner.numbers.count - 1] }),
            ("iteration", { _ in Array(owner.numbers).count }),
            ("another accessor of the owner", { $0.object(ofType: TreeListOwner.self, forPrimaryKey: 1)!.numbers.count }),
            ("a query on the owner", { realm in
                realm.objects(TreeListOwner.self).filter("numbers.@count == %@", model.count).count * model.count }),
            ("a Results' object", { $0.objects(TreeListOwner.self).first!.numbers.count }),
            ("an aggregate", { _ in owner.numbers.max() ?? 0 }),
        ]
        try realm.write {
            for (label, read) in reads {
                for _ in 0..<3 { model.append(model.count + 1000); owner.numbers.append(model.last!) }
                let expected = label == "the last element" || label == "an aggregate" ? model.last! : model.count
                XCTAssertEqual(read(realm), expected, label)
            }
        }
        XCTAssertEqual(Array(owner.numbers), model)
        try assertConsistent(realm, "reads after runs")
    }

    func testTheCommitWritesThePendingMarker() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm)
        try realm.write { for value in 100..<105 { owner.numbers.append(value) } }
        XCTAssertEqual(owner.numbers.count, 15)
        XCTAssertEqual(owner.numbers.freeze().count, 15, "the frozen version")
        let other = try Realm(configuration: realm.configuration)
        XCTAssertEqual(other.object(ofType: TreeListOwner.self, forPrimaryKey: 1)!.numbers.count, 15)
        try assertConsistent(realm, "committed run")
    }

    func testACancelDropsThePendingMarker() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm)
        realm.beginWrite()
        for value in 100..<105 { owner.numbers.append(value) }
        realm.cancelWrite()
        XCTAssertEqual(Array(owner.numbers), Array(0..<10))
        try realm.write { owner.numbers.append(7) }
        XCTAssertEqual(Array(owner.numbers), Array(0..<10) + [7])
        try assertConsistent(realm, "after the cancelled run")
    }

    func testWritesAfterARunKeepItsMarker() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm)
        let other = try makeOwner(realm, id: 2)
        try realm.write {
            for value in 100..<103 { owner.numbers.append(value) }
            other.numbers.append(5) // another list's run: the first marker is written before it
            for value in 103..<106 { owner.numbers.append(value) }
            owner.names.append("x") // another property of the owner
            for value in 106..<109 { owner.numbers.append(value) }
        }
        XCTAssertEqual(Array(owner.numbers), Array(0..<10) + Array(100..<109))
        XCTAssertEqual(Array(other.numbers), Array(0..<10) + [5])
        XCTAssertEqual(Array(owner.names), ["x"])
        try assertConsistent(realm, "runs between writes")
    }

    func testDeletesAfterARunLeaveNoRecordBehind() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm)
        try realm.write {
            for value in 100..<105 { owner.numbers.append(value) }
            realm.delete(owner)
        }
        XCTAssertEqual(realm.objects(TreeListOwner.self).count, 0)
        XCTAssertEqual(treeEntries(realm), 0)
        let again = try makeOwner(realm, id: 3)
        try realm.write {
            for value in 100..<105 { again.numbers.append(value) }
            realm.deleteAll()
        }
        XCTAssertEqual(realm.objects(TreeListOwner.self).count, 0, "deleteAll after a run")
        XCTAssertEqual(treeEntries(realm), 0)
        try assertConsistent(realm, "deletes after runs")
    }

    func testAnObserverGetsARunAsItsInsertions() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm)
        var changes: [[[Int]]] = []
        let token = owner.numbers.observe { change in
            if case let .update(_, deletions, insertions, modifications) = change { changes.append([deletions, insertions, modifications]) }
        }
        defer { token.invalidate() }
        nextTurn()
        let (folded, compared) = (CollectionChangeLog.folded.load(ordering: .relaxed), CollectionChangeLog.compared.load(ordering: .relaxed))
        try realm.write {
            for value in 100..<104 { owner.numbers.append(value) }
            owner.numbers[0] = -1
            for value in 104..<106 { owner.numbers.append(value) }
        }
        nextTurn()
        XCTAssertEqual(changes, [[[], Array(10..<16), [0]]])
        XCTAssertEqual(CollectionChangeLog.folded.load(ordering: .relaxed) - folded, 1, "folded from the runs' edits")
        XCTAssertEqual(CollectionChangeLog.compared.load(ordering: .relaxed) - compared, 0)
    }

    func testAnObjectObserverSeesARun() throws {
        let realm = try openRealm(types)
        let owner = try makeOwner(realm)
        var changed: [String] = []
        let token = owner.observe { change in
            if case .change(_, let properties) = change { changed += properties.map(\.name) }
        }
        defer { token.invalidate() }
        nextTurn()
        try realm.write { for value in 100..<104 { owner.numbers.append(value) } }
        nextTurn()
        XCTAssertEqual(changed, ["numbers"])
    }
}
