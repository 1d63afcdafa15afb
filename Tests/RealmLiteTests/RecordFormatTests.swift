import CStorage
import Foundation
import XCTest
@testable import RealmLite

/// The classes of Tests/Fixtures/pre-recordfmt.realm (object format 6:
/// every record's var end offsets are u32; make-pre-recordfmt.swift.txt).
final class RFPet: Object {
    @Persisted var name = ""
    @Persisted var age = 0
}

final class RFAll: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var bool = false
    @Persisted var int = 0
    @Persisted var int8: Int8 = 0
    @Persisted var int16: Int16 = 0
    @Persisted var int32: Int32 = 0
    @Persisted var int64: Int64 = 0
    @Persisted var float: Float = 0
    @Persisted var double = 0.0
    @Persisted var string = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted var decimal = Decimal128(0)
    @Persisted var objectId = try! ObjectId(string: "000000000000000000000000")
    @Persisted var uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    @Persisted var any: AnyRealmValue = .none
    @Persisted var optInt: Int?
    @Persisted var optString: String?
    @Persisted var optDouble: Double?
    @Persisted var optData: Data?
    @Persisted var optDecimal: Decimal128?
    @Persisted var optObjectId: ObjectId?
    @Persisted var pet: RFPet?
    @Persisted var ints: List<Int>
    @Persisted var strings: List<String>
    @Persisted var pets: List<RFPet>
    @Persisted var intSet: MutableSet<Int>
    @Persisted var intMap: Map<String, Int>
}

final class RFMigratedV0: Object {
    override class func className() -> String { "RFMigrated" }
    @Persisted var title = ""
    @Persisted var size = 0
}

final class RFMigratedV1: Object {
    override class func className() -> String { "RFMigrated" }
    @Persisted var title = ""
    @Persisted var size = 0
    @Persisted var rating = 7
    @Persisted var label = "fresh"
}

/// What object `i` of the fixture holds (and what the tests write).
enum RFValues {
    static let ints: [Int] = [0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769,
                              Int(Int32.max), Int(Int32.max) + 1, Int(Int32.min), Int(Int32.min) - 1, .max, .min]
    /// Strings around the offset widths' boundaries.
    static func text(_ i: Int) -> String {
        let lengths = [0, 1, 9, 200, 255, 256, 300, 1000]
        return String(repeating: Character(UnicodeScalar(UInt8(97 + i % 26))), count: lengths[i % lengths.count])
    }
    static func fill(_ o: RFAll, _ i: Int, pets: [RFPet]) {
        let n = ints[i % ints.count]
        o.id = i
        o.bool = i % 2 == 0
        o.int = n
        o.int8 = Int8(truncatingIfNeeded: n)
        o.int16 = Int16(truncatingIfNeeded: n)
        o.int32 = Int32(truncatingIfNeeded: n)
        o.int64 = Int64(n)
        o.float = Float(i) / 4
        o.double = Double(n) / 3
        o.string = text(i)
        o.data = Data(text(i + 3).utf8.prefix(i * 37 % 500))
        o.date = Date(timeIntervalSinceReferenceDate: Double(i) * 1000.5)
        o.decimal = try! Decimal128(string: "\(i).50")
        o.objectId = try! ObjectId(string: String(format: "%024x", i))
        o.uuid = UUID(uuidString: String(format: "00000000-0000-0000-0000-%012x", i))!
        o.any = [AnyRealmValue.int(n), .string(String(text(i + 1).prefix(300))), .none, .double(1.5), .object(pets[0])][i % 5]
        o.optInt = i % 3 == 0 ? nil : n
        o.optString = i % 3 == 1 ? nil : String(text(i + 2).prefix(300))
        o.optDouble = i % 3 == 2 ? nil : Double(i)
        o.optData = i % 2 == 0 ? nil : Data([UInt8(i & 0xFF)])
        o.optDecimal = i % 2 == 1 ? nil : Decimal128(i)
        o.optObjectId = i % 4 == 0 ? nil : try! ObjectId(string: String(format: "%024x", i + 1000))
        o.pet = i % 3 == 0 ? nil : pets[i % pets.count]
        let size = [0, 3, 64, 65, 200][i % 5]
        o.ints.append(objectsIn: (0..<size).map { ints[($0 + i) % ints.count] })
        o.strings.append(objectsIn: (0..<size).map { "s\($0)" })
        o.pets.append(objectsIn: (0..<size).map { pets[$0 % pets.count] })
        o.intSet.insert(objectsIn: (0..<size).map { ints[$0 % ints.count] &+ $0 })
        for k in 0..<size { o.intMap["k\(k)"] = ints[k % ints.count] }
    }
    static let count = 26
}

/// Record format 7 (Storage/Record.swift): var end offsets as wide as the
/// record needs; files of formats 1-6 read as they are.
final class RecordFormatTests: CollectionsTreeTestCase {
    let types: [ObjectBase.Type] = [RFAll.self, RFPet.self, RFMigratedV1.self]

    /// `o` holds what RFValues.fill wrote for object `i`.
    func assertHolds(_ o: RFAll, _ i: Int, file: StaticString = #filePath, line: UInt = #line) {
        let pets = (0..<5).map { p in RFPet(value: ["name": "pet\(p)", "age": RFValues.ints[p + 10]]) }
        let e = RFAll()
        RFValues.fill(e, i, pets: pets)
        let label = "object \(i)"
        XCTAssertEqual(o.id, e.id, label, file: file, line: line)
        XCTAssertEqual(o.bool, e.bool, label, file: file, line: line)
        XCTAssertEqual(o.int, e.int, label, file: file, line: line)
        XCTAssertEqual(o.int8, e.int8, label, file: file, line: line)
        XCTAssertEqual(o.int16, e.int16, label, file: file, line: line)
        XCTAssertEqual(o.int32, e.int32, label, file: file, line: line)
        XCTAssertEqual(o.int64, e.int64, label, file: file, line: line)
        XCTAssertEqual(o.float, e.float, label, file: file, line: line)
        XCTAssertEqual(o.double, e.double, label, file: file, line: line)
        XCTAssertEqual(o.string, e.string, label, file: file, line: line)
        XCTAssertEqual(o.data, e.data, label, file: file, line: line)
        XCTAssertEqual(o.date, e.date, label, file: file, line: line)
        XCTAssertEqual(o.decimal, e.decimal, label, file: file, line: line)
        XCTAssertEqual(o.objectId, e.objectId, label, file: file, line: line)
        XCTAssertEqual(o.uuid, e.uuid, label, file: file, line: line)
        if case .object(let pet) = e.any {
            XCTAssertEqual(o.any.object(RFPet.self)?.name, (pet as? RFPet)?.name, label, file: file, line: line)
        } else {
            XCTAssertEqual(o.any, e.any, label, file: file, line: line)
        }
        XCTAssertEqual(o.optInt, e.optInt, label, file: file, line: line)
        XCTAssertEqual(o.optString, e.optString, label, file: file, line: line)
        XCTAssertEqual(o.optDouble, e.optDouble, label, file: file, line: line)
        XCTAssertEqual(o.optData, e.optData, label, file: file, line: line)
        XCTAssertEqual(o.optDecimal, e.optDecimal, label, file: file, line: line)
        XCTAssertEqual(o.optObjectId, e.optObjectId, label, file: file, line: line)
        XCTAssertEqual(o.pet?.name, e.pet?.name, label, file: file, line: line)
        XCTAssertEqual(Array(o.ints), Array(e.ints), label, file: file, line: line)
        XCTAssertEqual(Array(o.strings), Array(e.strings), label, file: file, line: line)
        XCTAssertEqual(o.pets.map(\.name), e.pets.map(\.name), label, file: file, line: line)
        XCTAssertEqual(Set(o.intSet), Set(e.intSet), label, file: file, line: line)
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: o.intMap.asKeyValueSequence().map { ($0.key, $0.value) }),
                       Dictionary(uniqueKeysWithValues: e.intMap.asKeyValueSequence().map { ($0.key, $0.value) }),
                       label, file: file, line: line)
    }

    /// Every object of the fixture's classes, and queries over them.
    func assertFixture(_ realm: Realm, written: Bool, file: StaticString = #filePath, line: UInt = #line) {
        let all = realm.objects(RFAll.self).sorted(byKeyPath: "id")
        XCTAssertEqual(all.count, RFValues.count, file: file, line: line)
        for (i, o) in all.enumerated() {
            if written && i == 1 {
                XCTAssertEqual(o.string, "rewritten", file: file, line: line)
                continue
            }
            assertHolds(o, i, file: file, line: line)
        }
        for n in [0, -1, 128, Int.min, Int.max] {
            let expected = (0..<RFValues.count).filter { RFValues.ints[$0 % RFValues.ints.count] == n }.count
            XCTAssertEqual(all.filter("int == %@", n).count, expected, "int == \(n)", file: file, line: line)
        }
        for i in [0, 4, 5, 7] {
            let expected = (0..<RFValues.count).filter { RFValues.text($0) == RFValues.text(i) && !(written && $0 == 1) }
            XCTAssertEqual(Array(all.filter("string == %@", RFValues.text(i)).map(\.id)), expected, file: file, line: line)
        }
        XCTAssertEqual(all.filter("optString == nil").count, (0..<RFValues.count).filter { $0 % 3 == 1 }.count,
                       file: file, line: line)
        XCTAssertEqual(all.filter("ANY ints == %@", Int.min).count, all.filter { $0.ints.contains(Int.min) }.count,
                       file: file, line: line)
        XCTAssertEqual(all.filter("strings.@count == 65").count, all.filter { $0.strings.count == 65 }.count,
                       file: file, line: line)
        let migrated = realm.objects(RFMigratedV1.self).sorted(byKeyPath: "size")
        XCTAssertEqual(migrated.map(\.title), ["old0", "new", String(repeating: "o", count: 300)], file: file, line: line)
        XCTAssertEqual(migrated.map(\.rating), [7, 1, 7], file: file, line: line)
        XCTAssertEqual(migrated.map(\.label), ["fresh", "x", "fresh"], file: file, line: line)
        XCTAssertEqual(migrated.filter("rating == 7 AND title == 'old0'").count, 1, file: file, line: line)
    }

    var fixtureConfiguration: Realm.Configuration {
        Realm.Configuration(fileURL: fileURL, schemaVersion: 1, objectTypes: types)
    }

    /// Tests/Fixtures/pre-recordfmt.realm was written by object format 6:
    /// read as it is, written, reopened.
    func testAFileWrittenBeforeFormat7IsReadAndWritten() throws {
        try assertOldFixtureReadAndWritten("pre-recordfmt.realm")
    }

    /// Tests/Fixtures/pre-intslots.realm was written by object format 9
    /// (compact offsets, 8-byte integer slots): read as it is (integers
    /// included, in queries too), written, reopened; its classes keep wide
    /// integers and a class added now packs them.
    func testAFileWrittenBeforeFormat10IsReadAndWritten() throws {
        try assertOldFixtureReadAndWritten("pre-intslots.realm")
        let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, schemaVersion: 1, objectTypes: types + [GOwner.self]))
        let stored = realm.core.schemaState.stored!
        XCTAssertEqual(stored.class(named: "RFAll")!.compactOffsets, true)
        XCTAssertNil(stored.class(named: "RFAll")!.intSlots)
        let pet = realm.objects(RFPet.self).first!
        XCTAssertEqual(rawRecord(realm, pet).count, 10 + 1 + pet.name.utf8.count, "8-byte age as written")
        try realm.write { pet.age = 3 }
        XCTAssertEqual(rawRecord(realm, pet).count, 10 + 1 + pet.name.utf8.count, "a class keeps its integer slots on update")
        XCTAssertEqual(realm.objects(RFPet.self).filter("age == 3").count, 1)
        try realm.write { realm.create(GOwner.self, value: ["name": "ann"]) }
        XCTAssertEqual(realm.core.schemaState.stored!.class(named: "GOwner")!.intSlots, true)
        XCTAssertEqual(realm.objects(GOwner.self).filter("name == 'ann'").count, 1)
        try assertConsistent(realm, "old and new classes")
    }

    /// Tests/Fixtures/pre-implicitend.realm was written by object format 10
    /// (every var end offset stored): read as it is, written, reopened; its
    /// classes keep the last end offset and a class added now omits it.
    func testAFileWrittenBeforeFormat11IsReadAndWritten() throws {
        try assertOldFixtureReadAndWritten("pre-implicitend.realm")
        let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, schemaVersion: 1, objectTypes: types + [GOwner.self]))
        let stored = realm.core.schemaState.stored!
        XCTAssertEqual(stored.class(named: "RFAll")!.intSlots, true)
        XCTAssertNil(stored.class(named: "RFAll")!.impliedLastEnd)
        let pet = realm.objects(RFPet.self).first!
        let fixed = 2 + (1 << intWidthCode(Int64(pet.age)))
        XCTAssertEqual(rawRecord(realm, pet).count, fixed + 1 + pet.name.utf8.count, "the name's end offset as written")
        try realm.write { pet.name = "renamed" }
        XCTAssertEqual(rawRecord(realm, pet).count, fixed + 1 + 7, "a class keeps its end offsets on update")
        XCTAssertEqual(realm.objects(RFPet.self).filter("name == 'renamed'").count, 1)
        try realm.write { realm.create(GOwner.self, value: ["name": "ann"]) }
        XCTAssertEqual(realm.core.schemaState.stored!.class(named: "GOwner")!.impliedLastEnd, true)
        XCTAssertEqual(realm.objects(GOwner.self).filter("name == 'ann'").count, 1)
        try assertConsistent(realm, "old and new classes")
    }

    /// Tests/Fixtures/pre-boolbits.realm was written by object format 11 (a
    /// non-optional Bool in a 1-byte slot): read as it is, written,
    /// migrated (a Bool added), reopened; its classes keep the byte and a
    /// class added now holds its Bools in their null bits.
    func testAFileWrittenBeforeFormat12IsReadAndWritten() throws {
        try assertOldFixtureReadAndWritten("pre-boolbits.realm")
        func assertWide(_ realm: Realm, _ label: String) {
            for o in realm.objects(BBWide.self) {
                let v = BoolBitsTests.values(o.a)
                XCTAssertEqual([o.flag, o.other], [v["flag"] as! Bool, v["other"] as! Bool], "\(label): \(o.a)")
                XCTAssertEqual([o.e, o.maybe], [v["e"] as? Bool, v["maybe"] as? Bool], "\(label): \(o.a)")
                XCTAssertEqual(o.h, o.a << 20, "\(label): \(o.a)")
            }
        }
        try autoreleasepool {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, schemaVersion: 1,
                                                                     objectTypes: types + [BBWide.self, GOwner.self]))
            let stored = realm.core.schemaState.stored!
            XCTAssertNil(stored.class(named: "BBWide")!.boolBits)
            XCTAssertNil(stored.class(named: "RFAll")!.boolBits)
            let info = realm.core.schemaState.byName["BBWide"]!
            XCTAssertEqual(info.slots[info.descriptor.propertyIndex["flag"]!].width, 1, "the byte as written")
            assertWide(realm, "as written")
            XCTAssertEqual(realm.objects(BBWide.self).filter("flag == true").count, 6)
            XCTAssertEqual(realm.objects(RFAll.self).filter("bool == true").count, 13)
            try realm.write {
                realm.objects(BBWide.self).filter("a == 0").first!.flag = false
                realm.create(BBWide.self, value: BoolBitsTests.values(12))
                realm.create(GOwner.self, value: ["name": "ann"])
            }
            XCTAssertEqual(realm.objects(BBWide.self).filter("flag == true").map(\.a).sorted(), [2, 4, 6, 8, 10, 12])
            XCTAssertEqual(realm.core.schemaState.stored!.class(named: "GOwner")!.boolBits, true)
            try assertConsistent(realm, "written")
        }
        try autoreleasepool {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, schemaVersion: 2,
                                                                     objectTypes: types + [BBWideV1.self, GOwner.self]))
            XCTAssertNil(realm.core.schemaState.stored!.class(named: "BBWide")!.boolBits, "a generation keeps the class's layout")
            let info = realm.core.schemaState.byName["BBWide"]!
            XCTAssertEqual(info.slots[info.descriptor.propertyIndex["added"]!].width, 1)
            XCTAssertEqual(realm.objects(BBWideV1.self).filter("added == true AND flag == true").count, 6)
            try realm.write { realm.objects(BBWideV1.self).filter("a == 2").first!.added = false }
            try assertConsistent(realm, "migrated")
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, schemaVersion: 2,
                                                                 objectTypes: types + [BBWideV1.self, GOwner.self]))
        XCTAssertEqual(realm.objects(BBWideV1.self).filter("added == false").map(\.a), [2])
        XCTAssertEqual(realm.objects(BBWideV1.self).filter("flag == true").count, 6)
        XCTAssertEqual(realm.objects(RFAll.self).filter("bool == false").count, 13)
        try assertConsistent(realm, "reopened")
    }

    private func assertOldFixtureReadAndWritten(_ name: String) throws {
        ListTree.setThreshold(64)
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/" + name)
        try FileManager.default.copyItem(at: fixture, to: fileURL)
        try autoreleasepool {
            let realm = try Realm(configuration: fixtureConfiguration)
            assertFixture(realm, written: false)
            try realm.write {
                realm.object(ofType: RFAll.self, forPrimaryKey: 1)!.string = "rewritten"
                realm.objects(RFMigratedV1.self).filter("size == 300").first!.rating = 7
            }
            assertFixture(realm, written: true)
            try assertConsistent(realm, "fixture after a write")
        }
        try autoreleasepool {
            let realm = try Realm(configuration: fixtureConfiguration)
            assertFixture(realm, written: true)
            try assertConsistent(realm, "fixture reopened")
        }
    }

    /// The fixture's data written by this version (compact offsets), then
    /// the same checks: every property type, nils, two generations.
    func testEveryPropertyTypeRoundTripsWithCompactOffsets() throws {
        ListTree.setThreshold(64)
        try autoreleasepool {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, schemaVersion: 0, objectTypes: [RFMigratedV0.self]))
            try realm.write {
                realm.create(RFMigratedV0.self, value: ["title": "old0", "size": -1])
                realm.create(RFMigratedV0.self, value: ["title": String(repeating: "o", count: 300), "size": 300])
            }
        }
        try autoreleasepool {
            let realm = try Realm(configuration: fixtureConfiguration)
            try realm.write {
                realm.create(RFMigratedV1.self, value: ["title": "new", "size": 128, "rating": 1, "label": "x"])
                let pets = (0..<5).map { p in realm.create(RFPet.self, value: ["name": "pet\(p)", "age": RFValues.ints[p + 10]]) }
                for i in 0..<RFValues.count {
                    let o = RFAll()
                    RFValues.fill(o, i, pets: pets)
                    realm.add(o)
                }
            }
            let stored = realm.core.schemaState.stored!
            XCTAssertEqual(stored.format, StoredSchema.currentFormat)
            XCTAssertEqual(stored.classes.map(\.compactOffsets), stored.classes.map { _ in true })
            XCTAssertEqual(stored.classes.map(\.intSlots), stored.classes.map { _ in true })
            XCTAssertEqual(stored.classes.map(\.impliedLastEnd), stored.classes.map { _ in true })
            assertFixture(realm, written: false)
            try realm.write {
                realm.object(ofType: RFAll.self, forPrimaryKey: 1)!.string = "rewritten"
                realm.objects(RFMigratedV1.self).filter("size == 300").first!.rating = 7
            }
            assertFixture(realm, written: true)
            try assertConsistent(realm, "after a write")
        }
        try autoreleasepool {
            let realm = try Realm(configuration: fixtureConfiguration)
            assertFixture(realm, written: true)
        }
    }

    /// The raw record of `pet`.
    func rawRecord(_ realm: Realm, _ pet: RFPet) -> [UInt8] {
        records(realm, realm.core.schemaState.byName["RFPet"]!.objectsTree).first { $0.key == pet._key }!.record
    }

    /// A record's end offsets take the narrowest width its size allows, on
    /// insert and on every update that crosses a width's boundary; reads,
    /// the engine's filters and the checker follow.
    func testOffsetWidthsFollowTheRecordSize() throws {
        // RFPet: generation 1 + null bitmap 1 + age (packed: 1, 2, 4 or 8
        // bytes by its value), one var field, whose end is the record's
        // (ImpliedLastEndTests has the widths of stored ones).
        func expectedSize(_ length: Int, age: Int) -> Int {
            2 + (1 << intWidthCode(Int64(age))) + length
        }
        let lengths = [0, 1, 244, 245, 246, 300, 65_523, 65_524, 65_525, 70_000, 245, 0, 65_524, 244]
        try withRealm([RFPet.self]) { realm in
            var pets: [RFPet] = []
            try realm.write {
                for (i, length) in lengths.enumerated() {
                    pets.append(realm.create(RFPet.self, value: ["name": String(repeating: "n", count: length), "age": RFValues.ints[i]]))
                }
            }
            for (i, length) in lengths.enumerated() {
                XCTAssertEqual(rawRecord(realm, pets[i]).count, expectedSize(length, age: RFValues.ints[i]), "a name of \(length) bytes")
                XCTAssertEqual(pets[i].name.utf8.count, length)
                XCTAssertEqual(pets[i].age, RFValues.ints[i])
            }
            for length in Set(lengths) {
                XCTAssertEqual(realm.objects(RFPet.self).filter("name == %@", String(repeating: "n", count: length)).count,
                               lengths.filter { $0 == length }.count, "the engine's filter reads \(length)")
            }
            // Updates: each object through every length (across each boundary both ways).
            for step in 1..<lengths.count {
                try realm.write {
                    for (i, pet) in pets.enumerated() { pet.name = String(repeating: "u", count: lengths[(i + step) % lengths.count]) }
                }
                for (i, pet) in pets.enumerated() {
                    let length = lengths[(i + step) % lengths.count]
                    XCTAssertEqual(rawRecord(realm, pet).count, expectedSize(length, age: RFValues.ints[i]), "updated to \(length) bytes")
                    XCTAssertEqual(pet.name, String(repeating: "u", count: length))
                    XCTAssertEqual(pet.age, RFValues.ints[i], "the fixed slot before the table is kept")
                }
            }
            try assertConsistent(realm, "after the updates")
        }
    }

    /// A format-6 file: its classes keep u32 offsets (read as they are), a
    /// class added later gets compact ones, and the file is marked 7.
    func testOldClassesKeepTheirOffsetsAndNewClassesAreCompact() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/pre-recordfmt.realm")
        try FileManager.default.copyItem(at: fixture, to: fileURL)
        let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, schemaVersion: 1, objectTypes: types + [GOwner.self]))
        let stored = realm.core.schemaState.stored!
        XCTAssertEqual(stored.format, StoredSchema.currentFormat, "marked current when opened for writing")
        XCTAssertNil(stored.class(named: "RFAll")!.compactOffsets)
        XCTAssertEqual(stored.class(named: "GOwner")!.compactOffsets, true)
        let pet = realm.objects(RFPet.self).first!
        XCTAssertEqual(rawRecord(realm, pet).count, 10 + 4 + pet.name.utf8.count, "u32 offsets as written")
        try realm.write { pet.name = "renamed" }
        XCTAssertEqual(rawRecord(realm, pet).count, 10 + 4 + 7, "a class keeps its offsets on update")
        try realm.write { realm.create(GOwner.self, value: ["name": "ann"]) }
        XCTAssertEqual(realm.objects(GOwner.self).filter("name == 'ann'").count, 1)
        try assertConsistent(realm, "old and new classes")
    }
}
