import CStorage
import Foundation
@testable import RealmLite
import XCTest

/// Tests/Fixtures/pre-orderedints.realm was written while new tree
/// collections stored Int elements as zigzag varints (object format 8):
/// they are read as they are, changed in that form, and sit beside new
/// collections in the ordered form.
final class IntTreeEncodingZigzagFileTests: CollectionsTreeTestCase {
    override var spillThreshold: Int { 64 }

    static let properties = ["ints", "small", "optionals", "set", "smallSet", "optionalSet", "map", "smallMap", "optionalMap"]

    func owners(_ realm: Realm) -> Results<TreeIntWidths> { realm.objects(TreeIntWidths.self).sorted(byKeyPath: "id") }

    func models(changes: [Int]) -> [TreeIntWidthsModel] {
        (0..<3).map { id in
            var model = TreeIntWidthsModel(id: id)
            for n in changes { model.change(n) }
            return model
        }
    }

    func check(_ realm: Realm, changes: [Int], file: StaticString = #filePath, line: UInt = #line) {
        let owners = self.owners(realm)
        XCTAssertEqual(owners.map(\.id), [0, 1, 2], file: file, line: line)
        for (owner, model) in zip(owners, models(changes: changes)) {
            XCTAssertEqual(TreeIntWidthsModel(owner), model, "owner \(owner.id)", file: file, line: line)
        }
    }

    /// The marker of a collection of `owner` in the tree (nil: in its record).
    func marker(_ owner: TreeIntWidths, _ property: String) -> SpilledList? {
        guard let info = owner._info, let c = info.columns.firstIndex(where: { $0.name == property }) else { return nil }
        return SpilledList(owner._currentRecord().field(info.slots[c], info.layout), type: TreeElementEncoding(info.columns[c]))
    }

    /// Membership, lookups and index searches of every edge value and its
    /// neighbours agree with the model.
    func checkLookups(_ owner: TreeIntWidths, _ model: TreeIntWidthsModel, file: StaticString = #filePath, line: UInt = #line) {
        let probes = TreeIntValues.edges.flatMap { [$0 &- 1, $0, $0 &+ 1] }
        for value in probes {
            XCTAssertEqual(owner.set.contains(value), model.set.contains(value), "set contains \(value)", file: file, line: line)
            XCTAssertEqual(owner.optionalSet.contains(value), model.optionalSet.contains(value), "optional set contains \(value)", file: file, line: line)
            XCTAssertEqual(owner.ints.index(of: value), model.ints.firstIndex(of: value), "index of \(value)", file: file, line: line)
        }
        XCTAssertEqual(owner.optionalSet.contains(nil), model.optionalSet.contains(nil), file: file, line: line)
        for value in Int8.min...Int8.max {
            XCTAssertEqual(owner.smallSet.contains(value), model.smallSet.contains(value), "small set contains \(value)", file: file, line: line)
        }
        for key in model.map.keys.sorted() + ["k999", "missing"] {
            XCTAssertEqual(owner.map[key], model.map[key], key, file: file, line: line)
            XCTAssertEqual(owner.smallMap[key], model.smallMap[key], key, file: file, line: line)
            XCTAssertEqual(owner.optionalMap[key], model.optionalMap[key], key, file: file, line: line)
        }
    }

    func copyFixture() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/pre-orderedints.realm")
        try FileManager.default.copyItem(at: fixture, to: fileURL)
    }

    func testAFileWithZigzagTreeIntsIsReadAndChanged() throws {
        try copyFixture()
        try withRealm([TreeIntWidths.self]) { realm in
            check(realm, changes: [])
            XCTAssertEqual(realm.core.schemaState.stored?.format, StoredSchema.currentFormat, "marked as the current format on open")
            for owner in owners(realm) where owner.id != 1 {
                for property in Self.properties {
                    guard let list = marker(owner, property) else {
                        XCTFail("\(property) of \(owner.id) is in the tree")
                        continue
                    }
                    XCTAssertTrue((ListTree.compactIDBase..<ListTree.orderedIDBase).contains(list.id), property)
                    XCTAssertEqual(list.encoding.form, .zigzag, property)
                }
            }
            let owner = try XCTUnwrap(realm.object(ofType: TreeIntWidths.self, forPrimaryKey: 0))
            checkLookups(owner, models(changes: [])[0])
            let all = realm.objects(TreeIntWidths.self)
            XCTAssertEqual(all.filter("ANY set == %@", Int.min).count, 3)
            XCTAssertEqual(all.filter("ANY set == %@", 207).map(\.id).sorted(), [0, 1, 2])
            XCTAssertEqual(all.filter("ANY optionalSet == nil").count, 3)
            XCTAssertEqual(all.filter("ANY smallMap.@values == -33").count, 2)
            XCTAssertEqual(owner.set.min(), Int.min)
            XCTAssertEqual(owner.small.max(), Int8.max)
            XCTAssertEqual(owner.smallSet.min(), Int8.min)
            XCTAssertEqual(Array(owner.ints.sorted(ascending: true)), TreeIntValues.ints(0).sorted())
            try realm.write { for owner in owners(realm) { TreeIntWidthsModel.change(owner, 7) } }
            check(realm, changes: [7])
            XCTAssertEqual(marker(owner, "set")?.encoding.form, .zigzag, "changes keep a collection's form")
            checkLookups(owner, models(changes: [7])[0])
            try assertConsistent(realm, "fixture after a write")
        }
        try withRealm([TreeIntWidths.self]) { realm in
            check(realm, changes: [7])
            try realm.write { for owner in owners(realm) { TreeIntWidthsModel.change(owner, -100_000) } }
            check(realm, changes: [7, -100_000])
            let frozen = try XCTUnwrap(realm.object(ofType: TreeIntWidths.self, forPrimaryKey: 2)).freeze()
            XCTAssertEqual(TreeIntWidthsModel(frozen), models(changes: [7, -100_000])[2])
        }
        try withRealm([TreeIntWidths.self]) { realm in
            check(realm, changes: [7, -100_000])
            // Emptied, a collection returns to its record; grown again, it takes an ordered id beside the zigzag ones.
            let owner = try XCTUnwrap(realm.object(ofType: TreeIntWidths.self, forPrimaryKey: 2))
            let set = Array(owner.set), smallMap = Dictionary(uniqueKeysWithValues: owner.smallMap.asKeyValueSequence().map { ($0.key, $0.value) })
            try realm.write {
                owner.set.removeAll()
                owner.set.insert(objectsIn: set)
                owner.smallMap.removeAll()
                for (key, value) in smallMap { owner.smallMap[key] = value }
            }
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(marker(owner, "set")).id, ListTree.orderedIDBase)
            XCTAssertEqual(marker(owner, "smallMap")?.encoding.form, .ordered)
            XCTAssertEqual(marker(owner, "optionalSet")?.encoding.form, .zigzag)
            XCTAssertEqual(Array(owner.set), set.sorted(), "the renewed set iterates in numeric order")
            check(realm, changes: [7, -100_000])
            try realm.write { for owner in owners(realm) { TreeIntWidthsModel.change(owner, Int.max) } }
            let expected = models(changes: [7, -100_000, Int.max])
            check(realm, changes: [7, -100_000, Int.max])
            checkLookups(owner, expected[2])
            try assertConsistent(realm, "fixture, zigzag and ordered collections")
        }
    }

    /// A migration's old values read zigzag tree Ints as numbers.
    func testMigrationReadsZigzagTreeInts() throws {
        try copyFixture()
        nonisolated(unsafe) var sets: [Int: Set<Int>] = [:], maps: [Int: [String: Int?]] = [:]
        let configuration = Realm.Configuration(fileURL: fileURL, schemaVersion: 1, migrationBlock: { migration, _ in
            migration.enumerateObjects(ofType: "TreeIntWidths") { old, _ in
                let id = old!["id"] as! Int
                sets[id] = Set((old!["set"] as? [Any])?.compactMap { $0 as? Int } ?? [])
                maps[id] = ((old!["optionalMap"] as? [String: Any]) ?? [:]).mapValues { $0 as? Int }
            }
        }, objectTypes: [TreeIntWidths.self])
        let realm = try Realm(configuration: configuration)
        let expected = models(changes: [])
        for id in 0..<3 {
            XCTAssertEqual(sets[id], expected[id].set)
            XCTAssertEqual(maps[id], expected[id].optionalMap)
        }
        check(realm, changes: [])
    }
}
