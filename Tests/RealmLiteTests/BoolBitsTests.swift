import CStorage
import Foundation
import XCTest
@testable import RealmLite

/// Eleven columns: the non-optional Bools `flag` and `other` are past the
/// null bitmap's first byte, beside two optional Bools (which keep their
/// byte) and four packed integers (whose width code is the bitmap's last
/// byte's top two bits). Also in Tests/Fixtures/pre-boolbits.realm.
final class BBWide: Object {
    @Persisted var a = 0
    @Persisted var b = ""
    @Persisted var c = 0.0
    @Persisted var d = 0
    @Persisted var e: Bool? = nil
    @Persisted var f = ""
    @Persisted var g = 0
    @Persisted var h = 0
    @Persisted var flag = false
    @Persisted var other = true
    @Persisted var maybe: Bool? = nil
}

/// An indexed Bool held in its bit.
final class BBIndexed: Object {
    @Persisted(indexed: true) var on = false
    @Persisted var n = 0
}

/// The big database's Profile (benchmarks/objects BenchModels).
final class BBProfile: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var score = 0.0
    @Persisted var active = false
    @Persisted var bio = ""
}

/// BBWide's generation 1: a Bool added by a migration.
final class BBWideV1: Object {
    override class func className() -> String { "BBWide" }
    @Persisted var a = 0
    @Persisted var b = ""
    @Persisted var c = 0.0
    @Persisted var d = 0
    @Persisted var e: Bool? = nil
    @Persisted var f = ""
    @Persisted var g = 0
    @Persisted var h = 0
    @Persisted var flag = false
    @Persisted var other = true
    @Persisted var maybe: Bool? = nil
    @Persisted var added = true
}

/// Object format 12 (Storage/Record.swift, "Bools in the null bitmap"): a
/// non-optional Bool is its null bit, with no fixed slot.
final class BoolBitsTests: RealmTestCase {
    static func values(_ i: Int) -> [String: Any] {
        ["a": i, "b": "b\(i)", "c": Double(i), "d": i * 1000, "e": i % 3 == 0 ? NSNull() : (i % 3 == 1) as Any,
         "f": String(repeating: "f", count: i * 30), "g": -i, "h": i << 20,
         "flag": i % 2 == 0, "other": i % 4 != 1, "maybe": i % 5 == 0 ? NSNull() : (i % 5 < 3) as Any]
    }

    private func raw(_ realm: Realm, _ object: Object) -> [UInt8] {
        let tree = realm.core.schemaState.byName[object.objectSchema.className]!.objectsTree
        return records(realm, tree).first { $0.key == object._key }!.record
    }

    /// generation, 2 bitmap bytes, c (8), e and maybe (1 each), four
    /// integers at the record's width, one stored end offset, the var data.
    private func expectedSize(_ o: BBWide) -> Int {
        let code = [o.a, o.d, o.g, o.h].map { intWidthCode(Int64($0)) }.max()!
        let data = o.b.utf8.count + o.f.utf8.count, fixed = 1 + 2 + 8 + 1 + 1 + 4 << code
        return fixed + data + (fixed + data + 1 < 0x100 ? 1 : fixed + data + 2 < 0x10000 ? 2 : 4)
    }

    private func assertValues(_ o: BBWide, _ i: Int, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        let v = Self.values(i)
        XCTAssertEqual(o.a, i, label, file: file, line: line)
        XCTAssertEqual(o.d, i * 1000, label, file: file, line: line)
        XCTAssertEqual(o.e, v["e"] as? Bool, label, file: file, line: line)
        XCTAssertEqual(o.h, i << 20, label, file: file, line: line)
        XCTAssertEqual(o.flag, v["flag"] as? Bool, label, file: file, line: line)
        XCTAssertEqual(o.other, v["other"] as? Bool, label, file: file, line: line)
        XCTAssertEqual(o.maybe, v["maybe"] as? Bool, label, file: file, line: line)
        XCTAssertEqual(o.f.utf8.count, i * 30, label, file: file, line: line)
    }

    func testANonOptionalBoolHasNoSlot() throws {
        try withRealm([BBWide.self, BBIndexed.self]) { realm in
            let objects = try realm.write { (0..<12).map { realm.create(BBWide.self, value: Self.values($0)) } }
            let stored = realm.core.schemaState.stored!
            XCTAssertEqual(stored.class(named: "BBWide")!.boolBits, true)
            XCTAssertEqual(stored.format, StoredSchema.boolBitsFormat)
            let info = realm.core.schemaState.byName["BBWide"]!
            let flag = info.slots[info.descriptor.propertyIndex["flag"]!]
            XCTAssertEqual(flag.width, ColumnSlot.bitBool)
            XCTAssertEqual(flag.nullBit, 8 + 8, "past the bitmap's first byte")
            XCTAssertEqual(info.slots[info.descriptor.propertyIndex["maybe"]!].width, 1, "an optional Bool keeps its byte")
            for (i, o) in objects.enumerated() {
                XCTAssertEqual(raw(realm, o).count, expectedSize(o), "object \(i)")
                assertValues(o, i, "object \(i)")
            }
            let small = try realm.write { realm.create(BBIndexed.self, value: ["on": true, "n": 1]) }
            XCTAssertEqual(raw(realm, small).count, 1 + 1 + 1, "generation, bitmap (with the Bool), n")
            try assertConsistent(realm, "inserted")
        }
        // generation, bitmap, score, age, bio's start, name (10), bio (480):
        // 504 bytes with the Bool's byte (object format 11).
        try withRealm([BBProfile.self]) { realm in
            let profile = try realm.write {
                realm.create(BBProfile.self, value: ["id": 7, "name": "profile007", "age": 42, "score": 1.5, "active": true,
                                                     "bio": String(repeating: "b", count: 480)])
            }
            XCTAssertEqual(raw(realm, profile).count, 503)
            XCTAssertTrue(profile.active)
        }
    }

    /// Updates of each Bool beside repacked integers (every width code, so
    /// the code bits and the Bools' bits share a byte), and of the others.
    func testUpdatesKeepEveryOtherColumn() throws {
        try withRealm([BBWide.self]) { realm in
            let o = try realm.write { realm.create(BBWide.self, value: Self.values(4)) }
            for (step, h) in [0, 1 << 10, 1 << 20, 1 << 40, 3, -(1 << 62)].enumerated() {
                try realm.write {
                    o.h = h
                    o.flag.toggle()
                    if step % 2 == 0 { o.other.toggle() }
                    o.maybe = step % 3 == 0 ? nil : step % 3 == 1
                }
                XCTAssertEqual(o.h, h, "step \(step)")
                XCTAssertEqual(o.flag, step % 2 == 0 ? false : true, "step \(step)")
                XCTAssertEqual(o.other, [false, false, true, true, false, false][step], "step \(step)")
                XCTAssertEqual(o.maybe, step % 3 == 0 ? nil : step % 3 == 1, "step \(step)")
                XCTAssertEqual(o.a, 4)
                XCTAssertEqual(o.e, true)
                XCTAssertEqual(raw(realm, o).count, expectedSize(o), "step \(step)")
                XCTAssertEqual(realm.objects(BBWide.self).filter("flag == %@ AND h == %@", o.flag, h).count, 1, "step \(step)")
            }
            try realm.write { o.setValue(true, forKey: "flag") }
            XCTAssertEqual(o.value(forKey: "flag") as? Bool, true)
            XCTAssertEqual(o["flag"] as? Bool, true)
            try assertConsistent(realm, "updated")
        }
    }

    /// Counts and fetches run in the engine's filter (a bit test), and
    /// agree with Swift; sorting and distinct read the bit.
    func testQueriesSortsAndDistinct() throws {
        try withRealm([BBWide.self, BBIndexed.self]) { realm in
            let objects = try realm.write { (0..<40).map { realm.create(BBWide.self, value: Self.values($0)) } }
            let all = realm.objects(BBWide.self)
            let cases: [(String, (BBWide) -> Bool)] = [
                ("flag == true", { $0.flag }), ("flag == false", { !$0.flag }), ("flag != true", { !$0.flag }),
                ("other == false", { !$0.other }), ("flag == true AND other == false", { $0.flag && !$0.other }),
                ("flag == true AND a > 10", { $0.flag && $0.a > 10 }), ("NOT (flag == true) OR d == 3000", { !$0.flag || $0.d == 3000 }),
                ("flag == 1", { $0.flag }), ("e == true AND flag == true", { $0.e == true && $0.flag }),
                ("maybe == nil AND other == true", { $0.maybe == nil && $0.other }), ("flag == nil", { _ in false }),
            ]
            for (format, expected) in cases {
                let results = all.filter(format)
                guard case .query(let plan) = results.source, let compiled = plan.compiled else { return XCTFail(format) }
                XCTAssertNotNil(compiled.test, "\(format): the engine's filter")
                let keys = Set(objects.filter(expected).map(\.a))
                XCTAssertEqual(results.count, keys.count, format)
                XCTAssertEqual(Set(results.map(\.a)), keys, format)
            }
            XCTAssertEqual(all.where { $0.flag }.count, objects.filter(\.flag).count)
            let sorted = all.sorted(by: [SortDescriptor(keyPath: "flag"), SortDescriptor(keyPath: "other", ascending: false),
                                         SortDescriptor(keyPath: "a")])
            let expected = objects.sorted { ($0.flag ? 1 : 0, $0.other ? 0 : 1, $0.a) < ($1.flag ? 1 : 0, $1.other ? 0 : 1, $1.a) }
            XCTAssertEqual(sorted.map(\.a), expected.map(\.a))
            XCTAssertEqual(all.distinct(by: ["flag", "other"]).map { [$0.flag, $0.other] }, [[true, true], [false, false], [false, true]])
            XCTAssertEqual(all.sorted(byKeyPath: "flag").first?.flag, false)
            // An indexed Bool: index entries from the bit.
            try realm.write { for n in 0..<10 { realm.create(BBIndexed.self, value: ["on": n % 3 == 0, "n": n]) } }
            XCTAssertEqual(realm.objects(BBIndexed.self).filter("on == true").map(\.n).sorted(), [0, 3, 6, 9])
            try realm.write { realm.objects(BBIndexed.self).filter("n == 3").first!.on = false }
            XCTAssertEqual(realm.objects(BBIndexed.self).filter("on == true").map(\.n).sorted(), [0, 6, 9])
            try assertConsistent(realm, "queried")
        }
    }

    func testNotificationsSeeABitChange() throws {
        let realm = try openRealm([BBWide.self])
        let o = try realm.write { realm.create(BBWide.self, value: Self.values(2)) }
        var changed: [String] = []
        let token = o.observe { change in
            if case .change(_, let properties) = change { changed += properties.map(\.name) }
        }
        var modifications: [[Int]] = []
        let all = realm.objects(BBWide.self)
        let collection = all.observe(keyPaths: ["flag"]) { change in
            if case .update(_, _, _, let modified) = change { modifications.append(modified) }
        }
        nextTurn()
        try realm.write { o.flag = false }
        nextTurn()
        try realm.write { o.a = 99 }
        nextTurn()
        try realm.write { o.other = false }
        nextTurn()
        XCTAssertEqual(changed, ["flag", "a", "other"])
        XCTAssertEqual(modifications, [[0]], "only the flag's change, by its key path")
        token.invalidate()
        collection.invalidate()
    }

    /// A Bool added by a migration is a new generation's bit: older records
    /// read the default, and the engine's filter decides them by it.
    func testAMigrationAddsABool() throws {
        try autoreleasepool {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, schemaVersion: 0, objectTypes: [BBWide.self]))
            try realm.write { for i in 0..<6 { realm.create(BBWide.self, value: Self.values(i)) } }
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, schemaVersion: 1, objectTypes: [BBWideV1.self]))
        XCTAssertEqual(realm.core.schemaState.stored!.class(named: "BBWide")!.generations?.count, 2, "added without a rewrite")
        XCTAssertEqual(realm.objects(BBWideV1.self).filter("added == true").count, 6)
        XCTAssertEqual(realm.objects(BBWideV1.self).filter("added == true AND flag == true").count, 3)
        try realm.write {
            realm.create(BBWideV1.self, value: Self.values(7).merging(["added": false]) { $1 })
            realm.objects(BBWideV1.self).filter("a == 2").first!.added = false
        }
        XCTAssertEqual(realm.objects(BBWideV1.self).filter("added == false").map(\.a).sorted(), [2, 7])
        XCTAssertEqual(realm.objects(BBWideV1.self).filter("flag == false").map(\.a).sorted(), [1, 3, 5, 7])
        for o in realm.objects(BBWideV1.self) { XCTAssertEqual(o.other, o.a % 4 != 1, "object \(o.a)") }
        try assertConsistent(realm, "migrated")
    }
}
