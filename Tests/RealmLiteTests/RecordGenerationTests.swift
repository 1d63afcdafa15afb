import CStorage
import Foundation
import XCTest
@testable import RealmLite

// Migrations that add or remove properties without rewriting records
// (RecordGenerations.swift): the records of older generations read the
// columns they lack from the stored defaults.

final class GItemV0: Object {
    override class func className() -> String { "GItem" }
    @Persisted var title = ""
    @Persisted var size = 0
    @Persisted var note: String? = nil
}

/// Adds plain properties of every storage kind.
final class GItemV1: Object {
    override class func className() -> String { "GItem" }
    @Persisted var title = ""
    @Persisted var size = 0
    @Persisted var note: String? = nil
    @Persisted var pinned = true
    @Persisted var rating = 7
    @Persisted var label = "fresh"
    @Persisted var tags = List<String>()
    @Persisted var owner: GOwner?
}

/// The next version changes the default of `rating` (records of the first
/// generation must keep reading the default it had when it was added) and
/// adds `score`.
final class GItemV2: Object {
    override class func className() -> String { "GItem" }
    @Persisted var title = ""
    @Persisted var size = 0
    @Persisted var note: String? = nil
    @Persisted var pinned = true
    @Persisted var rating = 99
    @Persisted var label = "fresh"
    @Persisted var tags = List<String>()
    @Persisted var owner: GOwner?
    @Persisted var score = 0.5
}

/// Removes `title` and `note` (a var and an optional var column).
final class GItemRemoved: Object {
    override class func className() -> String { "GItem" }
    @Persisted var size = 0
}

/// Brings `title` back: a new column, not the retired one's values.
final class GItemReadded: Object {
    override class func className() -> String { "GItem" }
    @Persisted var size = 0
    @Persisted var title = "untitled"
    @Persisted var body = "b"
}

/// An added indexed property needs every record: the records are rewritten.
final class GItemIndexed: Object {
    override class func className() -> String { "GItem" }
    @Persisted var title = ""
    @Persisted var size = 0
    @Persisted var note: String? = nil
    @Persisted(indexed: true) var code = 3
}

/// `title` renamed `heading` (renameProperty in the block).
final class GItemRenamed: Object {
    override class func className() -> String { "GItem" }
    @Persisted var heading = ""
    @Persisted var size = 0
    @Persisted var note: String? = nil
}

final class GOwner: Object {
    @Persisted var name = ""
}

/// Only fixed-size columns (no var field table in its records).
final class GFixedV0: Object {
    override class func className() -> String { "GFixed" }
    @Persisted var a = 0
}

final class GFixedV1: Object {
    override class func className() -> String { "GFixed" }
    @Persisted var a = 0
    @Persisted var b = true
    @Persisted var c = 2.5
}

final class RecordGenerationTests: RealmTestCase {
    func config(_ types: [ObjectBase.Type], version: UInt64, block: MigrationBlock? = nil) -> Realm.Configuration {
        Realm.Configuration(fileURL: fileURL, schemaVersion: version, migrationBlock: block, objectTypes: types)
    }

    private func seed(_ count: Int) throws {
        let realm = try Realm(configuration: config([GItemV0.self], version: 0))
        try realm.write {
            for i in 0..<count {
                realm.create(GItemV0.self, value: ["title": "t\(i)", "size": i, "note": i % 2 == 0 ? "even" : NSNull()])
            }
        }
    }

    /// The stored bytes of every GItem record, by object key.
    private func rawRecords(_ realm: Realm) -> [UInt64: [UInt8]] {
        let info = realm.core.schemaState.byName["GItem"]!
        var records: [UInt64: [UInt8]] = [:]
        let txn = realm.core.txn
        guard let cursor = txn.openCursor(info.objectsTree) else { return [:] }
        defer { cursor.close() }
        var entry = cursor.first()
        while let (key, value) = entry.map({ ($0.key, $0.value) }) {
            records[keyValue(key)] = [UInt8](bytes(of: value))
            entry = cursor.next()
        }
        return records
    }

    /// Where each storage column lives, for a whole layout and for a prefix
    /// of it (an older generation): fixed columns get offsets after the
    /// header and null bitmap, var columns (and collections) var indexes.
    func testPositionalLayoutPlacesEachColumn() {
        func property(_ name: String, _ type: PropertyType, optional: Bool = false,
                      collection: _CollectionKind = .none) -> StoredProperty {
            StoredProperty(name: name, type: type, optional: optional, collection: collection, objectClass: nil,
                           primaryKey: false, indexed: false, originProperty: nil, fullText: nil, retired: nil)
        }
        let properties = [property("a", .int), property("b", .string), property("c", .bool, optional: true),
                          property("d", .int, collection: .list), property("e", .UUID)]
        func slots(_ layout: PositionalLayout) -> [[Int32]] {
            (0..<layout.slots.count).map { [layout.slots[$0].offset, layout.slots[$0].nullBit, layout.slots[$0].width] }
        }
        let whole = PositionalLayout(properties, headerSize: 1, compactOffsets: true)
        XCTAssertEqual(slots(whole), [[2, 8, 8], [0, 9, 0], [10, 10, 1], [1, 11, 0], [11, 12, 16]])
        XCTAssertEqual([whole.layout.columnCount, whole.layout.nullBytes, whole.layout.fixedSize, whole.layout.varCount], [5, 1, 25, 2])
        let older = PositionalLayout(properties.prefix(3), headerSize: 1, compactOffsets: true)
        XCTAssertEqual(slots(older), [[2, 8, 8], [0, 9, 0], [10, 10, 1]])
        XCTAssertEqual([older.layout.fixedSize, older.layout.varCount], [9, 1])
        let unversioned = PositionalLayout(properties.prefix(2), headerSize: 0, compactOffsets: false)
        XCTAssertEqual(slots(unversioned), [[1, 0, 8], [0, 1, 0]])
    }

    func testAddingPropertiesLeavesTheRecordsAndReadsTheDefaults() throws {
        try seed(100)
        let before = try Realm(configuration: config([GItemV0.self], version: 0)).withRawRecords(rawRecords)
        let realm = try Realm(configuration: config([GItemV1.self, GOwner.self], version: 1))
        XCTAssertEqual(rawRecords(realm), before, "adding plain properties rewrites no record")
        let items = realm.objects(GItemV1.self).sorted(byKeyPath: "size")
        XCTAssertEqual(items.count, 100)
        XCTAssertEqual(items[3].title, "t3")
        XCTAssertEqual(items[4].note, "even")
        XCTAssertNil(items[3].note)
        XCTAssertEqual(Set(items.map(\.pinned)), [true])
        XCTAssertEqual(Set(items.map(\.rating)), [7])
        XCTAssertEqual(Set(items.map(\.label)), ["fresh"])
        XCTAssertEqual(Set(items.map(\.tags.count)), [0])
        XCTAssertNil(items[0].owner)
        // Queries over old records: the engine's filter leaves them to the general path.
        XCTAssertEqual(items.filter("rating == 7").count, 100)
        XCTAssertEqual(items.filter("pinned == true AND size < 10").count, 10)
        XCTAssertEqual(items.filter("label == 'fresh' AND title == 't5'").count, 1)
        XCTAssertEqual(items.where { $0.size >= 50 && $0.rating == 7 }.count, 50)

        // A written object gets the current generation; the others stay.
        try realm.write {
            items[5].rating = 1
            items[6].tags.append("x")
            items[7].owner = realm.create(GOwner.self, value: ["name": "Ann"])
            realm.create(GItemV1.self, value: ["title": "new", "size": 1000])
        }
        let after = rawRecords(realm)
        XCTAssertEqual(after.filter { before[$0.key] != $0.value }.count, 4, "three written, one added")
        XCTAssertEqual(items.filter("rating == 7").count, 100)
        XCTAssertEqual(items.filter("rating == 1").first?.title, "t5")
        XCTAssertEqual(items.filter("size == 6").first?.tags.first, "x")
        XCTAssertEqual(realm.objects(GOwner.self).first?.items(), ["t7"])
        XCTAssertEqual(items.last?.label, "fresh")
        XCTAssertEqual(items.last?.rating, 7)
        XCTAssertEqual(items.filter("size == 4").first?.note, "even", "unchanged columns of an upgraded record keep their values")
    }

    /// The engine's filter reads every generation in place (each its own
    /// layout; a test of a column a generation lacks decides by the stored
    /// default): counts and matches equal a Swift evaluation of each object.
    func testQueriesOverMixedGenerationsAgreeWithSwift() throws {
        try seed(300)
        let realm = try Realm(configuration: config([GItemV1.self, GOwner.self], version: 1))
        let items = realm.objects(GItemV1.self)
        try realm.write {
            for item in items where item.size % 3 == 0 {
                item.rating = item.size % 2 == 0 ? 7 : 8
                item.label = item.size % 5 == 0 ? "fresh" : "stale"
                item.pinned = item.size % 4 != 0
            }
        }
        XCTAssertEqual(Set(rawRecords(realm).values.map { $0.first! }), [0, 1], "both generations are present")
        let cases: [(String, (GItemV1) -> Bool)] = [
            ("rating == 7", { $0.rating == 7 }),
            ("rating != 7", { $0.rating != 7 }),
            ("rating > 7 OR size < 10", { $0.rating > 7 || $0.size < 10 }),
            ("pinned == true AND size >= 150", { $0.pinned && $0.size >= 150 }),
            ("pinned == false", { !$0.pinned }),
            ("label == 'fresh'", { $0.label == "fresh" }),
            ("label != 'fresh' AND size < 100", { $0.label != "fresh" && $0.size < 100 }),
            ("note == nil", { $0.note == nil }),
            ("note == 'even' AND rating == 8", { $0.note == "even" && $0.rating == 8 }),
            ("title == 't42'", { $0.title == "t42" }),
            ("NOT (rating == 7) OR label == 'stale'", { $0.rating != 7 || $0.label == "stale" }),
            ("size BETWEEN {10, 20} AND pinned == true", { (10...20).contains($0.size) && $0.pinned }),
        ]
        realm.refresh()
        XCTAssertEqual(items.filter("rating == 7 AND label == 'fresh'").count, 200 + 10)
        XCTAssertEqual(realm.core.context.upgradedRecordCount, 0, "counted in the engine, no record upgraded")
        let all = Array(items)
        for (predicate, swift) in cases {
            let expected = all.filter(swift).map(\.size).sorted()
            let results = items.filter(predicate)
            XCTAssertEqual(results.count, expected.count, predicate)
            XCTAssertEqual(results.map(\.size).sorted(), expected, predicate)
        }
    }

    func testOlderGenerationsKeepTheDefaultsOfTheirTime() throws {
        try seed(10)
        _ = try Realm(configuration: config([GItemV1.self, GOwner.self], version: 1))
        let realm = try Realm(configuration: config([GItemV2.self, GOwner.self], version: 2))
        let items = realm.objects(GItemV2.self)
        XCTAssertEqual(Set(items.map(\.rating)), [7], "rating was added with default 7; the code's 99 is for new objects")
        XCTAssertEqual(Set(items.map(\.score)), [0.5])
        XCTAssertEqual(items.filter("rating == 7 AND score > 0.4").count, 10)
        try realm.write { realm.create(GItemV2.self, value: ["title": "new"]) }
        XCTAssertEqual(items.filter("title == 'new'").first?.rating, 99)
        let stored = realm.core.schemaState.stored!.class(named: "GItem")!
        XCTAssertEqual(stored.generations, [3, 8, 9])
    }

    func testRemovingAndAddingBackAPropertyGivesANewColumn() throws {
        try seed(20)
        let before = try Realm(configuration: config([GItemV0.self], version: 0)).withRawRecords(rawRecords)
        do {
            let realm = try Realm(configuration: config([GItemRemoved.self], version: 1))
            XCTAssertEqual(rawRecords(realm), before, "removing properties rewrites no record")
            XCTAssertEqual(realm.objects(GItemRemoved.self).sum(ofProperty: "size") as Int, 190)
            XCTAssertEqual(realm.schema["GItem"]?.properties.map(\.name), ["size"])
            try realm.write { realm.create(GItemRemoved.self, value: ["size": 100]) }
        }
        let realm = try Realm(configuration: config([GItemReadded.self], version: 2))
        let items = realm.objects(GItemReadded.self)
        XCTAssertEqual(Set(items.map(\.title)), ["untitled"], "the retired column's values are not read back")
        XCTAssertEqual(Set(items.map(\.body)), ["b"])
        XCTAssertEqual(items.filter("size == 100").count, 1)
        try realm.write { items.filter("size == 3").first!.title = "three" }
        XCTAssertEqual(items.filter("title == 'three'").first?.size, 3)
        XCTAssertEqual(realm.core.schemaState.stored!.class(named: "GItem")!.liveProperties.map(\.name), ["size", "title", "body"])
    }

    func testAnAddedIndexedPropertyRewritesTheRecords() throws {
        try seed(10)
        let before = try Realm(configuration: config([GItemV0.self], version: 0)).withRawRecords(rawRecords)
        let realm = try Realm(configuration: config([GItemIndexed.self], version: 1))
        let after = rawRecords(realm)
        XCTAssertTrue(after.allSatisfy { before[$0.key] != $0.value })
        XCTAssertEqual(realm.objects(GItemIndexed.self).filter("code == 3").count, 10)
        XCTAssertEqual(realm.core.schemaState.stored!.class(named: "GItem")!.generations, [4])
    }

    func testAMigrationBlockSeesOldAndNewObjectsOfOlderGenerations() throws {
        try seed(10)
        _ = try Realm(configuration: config([GItemV1.self, GOwner.self], version: 1))
        let log = MigrationLog()
        let realm = try Realm(configuration: config([GItemV2.self, GOwner.self], version: 2) { migration, _ in
            migration.enumerateObjects(ofType: "GItem") { old, new in
                log.add("\(old!["title"] as! String):\(old!["rating"] as! Int)")
                new!["score"] = Double(old!["size"] as! Int)
            }
        })
        XCTAssertEqual(log.entries.count, 10)
        XCTAssertTrue(log.entries.allSatisfy { $0.hasSuffix(":7") })
        XCTAssertEqual(realm.objects(GItemV2.self).filter("score == 4").first?.title, "t4")
    }

    func testNotificationsWithKeyPathsCompareOldAndUpgradedRecords() throws {
        try seed(5)
        let realm = try Realm(configuration: config([GItemV1.self, GOwner.self], version: 1))
        let items = realm.objects(GItemV1.self)
        var changes: [[Int]] = []
        let token = items.observe(keyPaths: ["rating"]) { change in
            if case let .update(_, _, _, modifications) = change { changes.append(modifications) }
        }
        defer { token.invalidate() }
        nextTurn()
        try realm.write { items.filter("size == 1").first!.label = "other" } // rewrites the record, rating unchanged
        nextTurn()
        XCTAssertEqual(changes, [], "an upgraded record with the same rating is not a change of rating")
        try realm.write { items.filter("size == 2").first!.rating = 8 }
        nextTurn()
        XCTAssertEqual(changes, [[2]])
    }
}

extension RecordGenerationTests {
    func testAClassOfFixedSizeColumnsGetsFixedSizeColumns() throws {
        do {
            let realm = try Realm(configuration: config([GFixedV0.self], version: 0))
            try realm.write { for i in 0..<5 { realm.create(GFixedV0.self, value: ["a": i]) } }
        }
        let realm = try Realm(configuration: config([GFixedV1.self], version: 1))
        let all = realm.objects(GFixedV1.self).sorted(byKeyPath: "a")
        XCTAssertEqual(all.map(\.a), [0, 1, 2, 3, 4])
        XCTAssertEqual(Set(all.map(\.b)), [true])
        XCTAssertEqual(all.filter("c == 2.5 AND a >= 3").count, 2)
        try realm.write { all[1].c = 1 }
        XCTAssertEqual(all.filter("c == 2.5").count, 4)
    }

    func testLongMigrationsReportTheirProgress() throws {
        try seed(40_000)
        let reports = LockedLog<MigrationProgress>()
        var config = config([GItemIndexed.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "GItem") { _, new in new!["code"] = 4 }
        }
        config.migrationProgress = { reports.add($0) }
        let realm = try Realm(configuration: config)
        XCTAssertEqual(realm.objects(GItemIndexed.self).filter("code == 4").count, 40_000)
        let interval = MigrationProgressCounter.interval
        XCTAssertEqual(reports.entries, [
            MigrationProgress(className: "GItem", step: .rewritingRecords, completed: interval, total: 40_000),
            MigrationProgress(className: "GItem", step: .rewritingRecords, completed: 2 * interval, total: 40_000),
            MigrationProgress(className: "GItem", step: .rewritingRecords, completed: 40_000, total: 40_000),
            MigrationProgress(className: "GItem", step: .enumeratingObjects, completed: interval, total: 40_000),
            MigrationProgress(className: "GItem", step: .enumeratingObjects, completed: 2 * interval, total: 40_000),
            MigrationProgress(className: "GItem", step: .enumeratingObjects, completed: 40_000, total: 40_000),
        ])
    }

    func testARenameKeepsTheRecordsAndTheValues() throws {
        try seed(50)
        let before = try Realm(configuration: config([GItemV0.self], version: 0)).withRawRecords(rawRecords)
        let realm = try Realm(configuration: config([GItemRenamed.self], version: 1) { migration, _ in
            migration.renameProperty(onType: "GItem", from: "title", to: "heading")
        })
        XCTAssertEqual(rawRecords(realm), before, "a rename rewrites no record")
        let items = realm.objects(GItemRenamed.self).sorted(byKeyPath: "size")
        XCTAssertEqual(items.map(\.heading), (0..<50).map { "t\($0)" })
        XCTAssertEqual(items.filter("heading == 't7'").first?.size, 7)
        let stored = realm.core.schemaState.stored!.class(named: "GItem")!
        XCTAssertEqual(stored.generations, [3], "the column kept its place: no new generation")
        XCTAssertEqual(stored.liveProperties.map(\.name), ["heading", "size", "note"])
        try realm.write { items[0].heading = "first" }
        XCTAssertEqual(items.first?.heading, "first")
    }

    func testARenameAfterTheBlockReadObjectsMovesTheValues() throws {
        try seed(20)
        let realm = try Realm(configuration: config([GItemRenamed.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "GItem") { _, new in new!["size"] = (new!["size"] as! Int) + 100 }
            migration.renameProperty(onType: "GItem", from: "title", to: "heading")
        })
        let items = realm.objects(GItemRenamed.self).sorted(byKeyPath: "size")
        XCTAssertEqual(items.map(\.heading), (0..<20).map { "t\($0)" })
        XCTAssertEqual(items.first?.size, 100)
        XCTAssertEqual(realm.core.schemaState.stored!.class(named: "GItem")!.generations, [3, 4],
                       "renamed by moving values into an added column")
    }

    /// A file as format 2 wrote it (no generation byte, no generations):
    /// read as it is, written in its layout, and given generations by a
    /// migration that changes the class.
    func testFilesOfTheEarlierFormatAreReadWrittenAndMigrated() throws {
        try seed(4)
        try rewriteAsFormat2(className: "GItem")
        do {
            let realm = try Realm(configuration: config([GItemV0.self], version: 0))
            let items = realm.objects(GItemV0.self).sorted(byKeyPath: "size")
            XCTAssertEqual(items.map(\.title), ["t0", "t1", "t2", "t3"])
            XCTAssertEqual(items.map(\.note), ["even", nil, "even", nil])
            XCTAssertEqual(items.filter("size == 2 AND title == 't2'").count, 1)
            try realm.write {
                realm.create(GItemV0.self, value: ["title": "t4", "size": 4])
                items[0].title = "zero"
            }
            XCTAssertEqual(realm.core.schemaState.stored!.class(named: "GItem")!.generations, nil)
            let sizes = Set(rawRecords(realm).values.map(\.count))
            XCTAssertFalse(sizes.contains { $0 < 1 + 8 + 4 + 4 }, "no record lost bytes")
        }
        let realm = try Realm(configuration: config([GItemV1.self, GOwner.self], version: 1))
        let items = realm.objects(GItemV1.self).sorted(byKeyPath: "size")
        XCTAssertEqual(items.map(\.title), ["zero", "t1", "t2", "t3", "t4"])
        XCTAssertEqual(Set(items.map(\.rating)), [7])
        XCTAssertEqual(realm.core.schemaState.stored!.class(named: "GItem")!.generations, [8], "rewritten with a generation byte")
        XCTAssertEqual(Set(rawRecords(realm).values.map { $0.first }), [0])
    }

    /// A GItemV0 record as format 2 wrote it: no generation byte, the null
    /// bitmap, `size` in 8 bytes (packed here: the top bits of the null byte
    /// give its width), two var fields with u32 end offsets (here `width`).
    private func format2Record(_ stored: [UInt8], width: Int) -> [UInt8] {
        let intWidth = 1 << Int(stored[1] >> 6)
        let size = Int64(stored[2..<(2 + intWidth)].reversed().reduce(0) { $0 << 8 | Int64($1) } << (64 - 8 * intWidth)) >> (64 - 8 * intWidth)
        let record = [stored[1] & 0x3F] + withUnsafeBytes(of: size.littleEndian) { Array($0) } + stored[(2 + intWidth)...]
        let table = 1 + 8
        var out = Array(record[0..<table])
        // The first field's end is stored; the second's is the record's end.
        let data = record[(table + width)...]
        let first = record[table..<(table + width)].reversed().reduce(0) { $0 << 8 | Int($1) }
        for end in [first, data.count] { withUnsafeBytes(of: UInt32(end).littleEndian) { out += $0 } }
        return out + data
    }

    /// Strips the generation byte from the class's records and the
    /// generations from the stored schema (and the compact offsets format 2
    /// did not have), and marks the file format 2.
    private func rewriteAsFormat2(className: String) throws {
        var env: OpaquePointer?
        XCTAssertEqual(cs_env_open(fileURL.path, nil, &env), 0)
        defer { cs_env_close(env) }
        var txn: OpaquePointer?
        XCTAssertEqual(cs_txn_begin(env, 0, &txn), 0)
        var meta: cs_tree = 0, objects: cs_tree = 0
        XCTAssertEqual(cs_tree_open(txn, "realm:meta", 0, &meta), 0)
        XCTAssertEqual(cs_tree_open(txn, "obj:" + className, 0, &objects), 0)
        func put(_ tree: cs_tree, _ key: [UInt8], _ value: [UInt8]) {
            key.withUnsafeBytes { k in
                value.withUnsafeBytes { v in
                    XCTAssertEqual(cs_put(txn, tree, cs_val(data: k.baseAddress, size: k.count), cs_val(data: v.baseAddress, size: v.count), 0), 0)
                }
            }
        }
        var value = cs_val()
        let schemaKey = Array("schema".utf8)
        schemaKey.withUnsafeBytes { k in XCTAssertEqual(cs_get(txn, meta, cs_val(data: k.baseAddress, size: k.count), &value), 0) }
        var schema = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bytes: value.data, count: value.size)) as? [String: Any])
        schema["format"] = 2
        schema["classes"] = (schema["classes"] as! [[String: Any]]).map { cls in
            var cls = cls
            cls["generations"] = nil
            cls["defaults"] = nil
            cls["compactOffsets"] = nil
            cls["intSlots"] = nil
            cls["impliedLastEnd"] = nil
            return cls
        }
        put(meta, schemaKey, [UInt8](try JSONSerialization.data(withJSONObject: schema)))
        var records: [([UInt8], [UInt8])] = []
        var cursor: OpaquePointer?
        XCTAssertEqual(cs_cursor_open(txn, objects, &cursor), 0)
        var key = cs_val()
        var rc = cs_cursor_get(cursor, &key, &value, CS_FIRST)
        while rc == 0 {
            let record = [UInt8](UnsafeRawBufferPointer(start: value.data, count: value.size))
            XCTAssertEqual(record.first, 0)
            records.append(([UInt8](UnsafeRawBufferPointer(start: key.data, count: key.size)), format2Record(record, width: Int(cs_record_offset_width(record.count)))))
            rc = cs_cursor_get(cursor, &key, &value, CS_NEXT)
        }
        cs_cursor_close(cursor)
        XCTAssertFalse(records.isEmpty)
        for (key, record) in records { put(objects, key, record) }
        XCTAssertEqual(cs_txn_commit(txn), 0)
    }
}

private extension Realm {
    func withRawRecords<R>(_ body: (Realm) -> R) -> R { body(self) }
}

private extension GOwner {
    func items() -> [String] {
        realm!.objects(GItemV1.self).filter("owner == %@", self).map(\.title)
    }
}
