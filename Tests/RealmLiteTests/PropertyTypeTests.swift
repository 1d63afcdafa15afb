import Foundation
import XCTest
@testable import RealmLite

/// Every property type round-trips boundary values through close and reopen.
final class PropertyTypeTests: RealmTestCase {
    static let mebibyteString = String(repeating: "ab€𝄞\u{0}", count: 1 << 20 / 10)
    static let mebibyteData = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let objectId = try! ObjectId(string: "5f0c247a3e6e5fe621e1f8c3")

    func fillMinimum(_ o: AllTypes) {
        o.bool = false
        o.int = Int.min
        o.int8 = .min
        o.int16 = .min
        o.int32 = .min
        o.int64 = .min
        o.float = -.greatestFiniteMagnitude
        o.double = -.infinity
        o.string = ""
        o.data = Data()
        o.date = .distantPast
        o.uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        o.objectId = ObjectId()
        o.decimal = try! Decimal128(string: "-99999999999999999999999999999999999999")
        o.color = .red
        o.mood = .happy
        o.optBool = false
        o.optInt = Int.min
        o.optInt8 = .min
        o.optInt16 = .min
        o.optInt32 = .min
        o.optInt64 = .min
        o.optFloat = .leastNonzeroMagnitude
        o.optDouble = -0.0
        o.optString = ""
        o.optData = Data()
        o.optDate = Date(timeIntervalSince1970: 0)
        o.optUUID = Self.uuid
        o.optObjectId = Self.objectId
        o.optDecimal = Decimal128(0)
        o.optColor = .red
        o.optMood = .happy
    }

    func fillMaximum(_ o: AllTypes) {
        o.bool = true
        o.int = Int.max
        o.int8 = .max
        o.int16 = .max
        o.int32 = .max
        o.int64 = .max
        o.float = .nan
        o.double = .nan
        o.string = Self.mebibyteString
        o.data = Self.mebibyteData
        o.date = .distantFuture
        o.uuid = Self.uuid
        o.objectId = Self.objectId
        o.decimal = Decimal128(Decimal.nan)
        o.color = .blue
        o.mood = .sleepy
        o.optFloat = .infinity
        o.optDouble = .greatestFiniteMagnitude
        o.optString = Self.mebibyteString
        o.optData = Self.mebibyteData
        o.optDate = Date(timeIntervalSinceReferenceDate: 123_456.789_012_345)
        o.optDecimal = try! Decimal128(string: "-1.5e-30")
        o.optColor = .green
        o.optMood = .sad
    }

    func checkMinimum(_ o: AllTypes, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(o.bool, false, file: file, line: line)
        XCTAssertEqual(o.int, Int.min, file: file, line: line)
        XCTAssertEqual(o.int8, .min, file: file, line: line)
        XCTAssertEqual(o.int16, .min, file: file, line: line)
        XCTAssertEqual(o.int32, .min, file: file, line: line)
        XCTAssertEqual(o.int64, .min, file: file, line: line)
        XCTAssertEqual(o.float, -.greatestFiniteMagnitude, file: file, line: line)
        XCTAssertEqual(o.double, -.infinity, file: file, line: line)
        XCTAssertEqual(o.string, "", file: file, line: line)
        XCTAssertEqual(o.data, Data(), file: file, line: line)
        XCTAssertEqual(o.date, .distantPast, file: file, line: line)
        XCTAssertEqual(o.uuid, UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), file: file, line: line)
        XCTAssertEqual(o.objectId, ObjectId(), file: file, line: line)
        XCTAssertEqual(o.decimal, try! Decimal128(string: "-99999999999999999999999999999999999999"), file: file, line: line)
        XCTAssertEqual(o.color, .red, file: file, line: line)
        XCTAssertEqual(o.mood, .happy, file: file, line: line)
        XCTAssertEqual(o.optBool, false, file: file, line: line)
        XCTAssertEqual(o.optInt, Int.min, file: file, line: line)
        XCTAssertEqual(o.optInt8, .min, file: file, line: line)
        XCTAssertEqual(o.optInt16, .min, file: file, line: line)
        XCTAssertEqual(o.optInt32, .min, file: file, line: line)
        XCTAssertEqual(o.optInt64, .min, file: file, line: line)
        XCTAssertEqual(o.optFloat, .leastNonzeroMagnitude, file: file, line: line)
        XCTAssertEqual(o.optDouble, 0, file: file, line: line)
        XCTAssertEqual(o.optDouble?.sign, .minus, "-0.0 keeps its sign", file: file, line: line)
        XCTAssertEqual(o.optString, "", file: file, line: line)
        XCTAssertEqual(o.optData, Data(), file: file, line: line)
        XCTAssertEqual(o.optDate, Date(timeIntervalSince1970: 0), file: file, line: line)
        XCTAssertEqual(o.optUUID, Self.uuid, file: file, line: line)
        XCTAssertEqual(o.optObjectId, Self.objectId, file: file, line: line)
        XCTAssertEqual(o.optDecimal, Decimal128(0), file: file, line: line)
        XCTAssertEqual(o.optColor, .red, file: file, line: line)
        XCTAssertEqual(o.optMood, .happy, file: file, line: line)
    }

    func checkMaximum(_ o: AllTypes, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(o.bool, true, file: file, line: line)
        XCTAssertEqual(o.int, Int.max, file: file, line: line)
        XCTAssertEqual(o.int8, .max, file: file, line: line)
        XCTAssertEqual(o.int16, .max, file: file, line: line)
        XCTAssertEqual(o.int32, .max, file: file, line: line)
        XCTAssertEqual(o.int64, .max, file: file, line: line)
        XCTAssertTrue(o.float.isNaN, file: file, line: line)
        XCTAssertTrue(o.double.isNaN, file: file, line: line)
        XCTAssertEqual(o.string, Self.mebibyteString, file: file, line: line)
        XCTAssertEqual(o.data, Self.mebibyteData, file: file, line: line)
        XCTAssertEqual(o.date, .distantFuture, file: file, line: line)
        XCTAssertEqual(o.uuid, Self.uuid, file: file, line: line)
        XCTAssertEqual(o.objectId, Self.objectId, file: file, line: line)
        XCTAssertTrue(o.decimal.isNaN, file: file, line: line)
        XCTAssertEqual(o.color, .blue, file: file, line: line)
        XCTAssertEqual(o.mood, .sleepy, file: file, line: line)
        XCTAssertEqual(o.optFloat, .infinity, file: file, line: line)
        XCTAssertEqual(o.optDouble, .greatestFiniteMagnitude, file: file, line: line)
        XCTAssertEqual(o.optString, Self.mebibyteString, file: file, line: line)
        XCTAssertEqual(o.optData, Self.mebibyteData, file: file, line: line)
        XCTAssertEqual(o.optDate, Date(timeIntervalSinceReferenceDate: 123_456.789_012_345), file: file, line: line)
        XCTAssertEqual(o.optDecimal, try! Decimal128(string: "-1.5e-30"), file: file, line: line)
        XCTAssertEqual(o.optColor, .green, file: file, line: line)
        XCTAssertEqual(o.optMood, .sad, file: file, line: line)
    }

    func checkNils(_ o: AllTypes, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNil(o.optBool, file: file, line: line)
        XCTAssertNil(o.optInt, file: file, line: line)
        XCTAssertNil(o.optInt8, file: file, line: line)
        XCTAssertNil(o.optInt16, file: file, line: line)
        XCTAssertNil(o.optInt32, file: file, line: line)
        XCTAssertNil(o.optInt64, file: file, line: line)
        XCTAssertNil(o.optFloat, file: file, line: line)
        XCTAssertNil(o.optDouble, file: file, line: line)
        XCTAssertNil(o.optString, file: file, line: line)
        XCTAssertNil(o.optData, file: file, line: line)
        XCTAssertNil(o.optDate, file: file, line: line)
        XCTAssertNil(o.optUUID, file: file, line: line)
        XCTAssertNil(o.optObjectId, file: file, line: line)
        XCTAssertNil(o.optDecimal, file: file, line: line)
        XCTAssertNil(o.optColor, file: file, line: line)
        XCTAssertNil(o.optMood, file: file, line: line)
    }

    /// Values set before add (encoded by add), read back after reopening.
    func testBoundaryValuesSetBeforeAddSurviveReopen() throws {
        try withRealm { realm in
            let low = AllTypes(), high = AllTypes(), empty = AllTypes()
            fillMinimum(low)
            fillMaximum(high)
            try realm.write { realm.add([low, high, empty]) }
            // Managed reads, same session.
            checkMinimum(low)
            checkMaximum(high)
            checkNils(empty)
        }
        try withRealm { realm in
            let all = realm.objects(AllTypes.self)
            XCTAssertEqual(all.count, 3)
            checkMinimum(all[0])
            checkMaximum(all[1])
            checkNils(all[2])
        }
    }

    /// Values set on managed objects (one column write each), after reopening.
    func testBoundaryValuesSetOnManagedObjectsSurviveReopen() throws {
        try withRealm { realm in
            try realm.write {
                let low = realm.create(AllTypes.self)
                let high = realm.create(AllTypes.self)
                fillMinimum(low)
                fillMaximum(high)
                let cleared = realm.create(AllTypes.self)
                fillMaximum(cleared)
                fillMinimum(cleared)
                for keyPath in [\AllTypes.optString] as [ReferenceWritableKeyPath<AllTypes, String?>] { cleared[keyPath: keyPath] = nil }
                cleared.optBool = nil; cleared.optInt = nil; cleared.optInt8 = nil; cleared.optInt16 = nil
                cleared.optInt32 = nil; cleared.optInt64 = nil; cleared.optFloat = nil; cleared.optDouble = nil
                cleared.optData = nil; cleared.optDate = nil; cleared.optUUID = nil; cleared.optObjectId = nil
                cleared.optDecimal = nil; cleared.optColor = nil; cleared.optMood = nil
            }
        }
        try withRealm { realm in
            let all = realm.objects(AllTypes.self)
            checkMinimum(all[0])
            checkMaximum(all[1])
            checkNils(all[2])
        }
    }

    func testUnmanagedObjectsArePlainSwiftObjects() {
        let o = AllTypes()
        fillMaximum(o)
        checkMaximum(o)
        XCTAssertNil(o.realm)
        XCTAssertFalse(o.isInvalidated)
        let p = Person()
        XCTAssertNotEqual(p._id, Person()._id, "each new object gets a new ObjectId")
    }

    func testKeyValueCodingSubscript() throws {
        let realm = try openRealm()
        let dog = Dog()
        dog["name"] = "Rex"
        XCTAssertEqual(dog.name, "Rex")
        try realm.write {
            realm.add(dog)
            dog["age"] = 7
        }
        XCTAssertEqual(dog["age"] as? Int, 7)
        XCTAssertEqual(dog["name"] as? String, "Rex")
    }

    func testSchemaIsDiscoveredFromTheClass() throws {
        let realm = try openRealm()
        let schema = try XCTUnwrap(realm.schema["Person"])
        XCTAssertEqual(schema.properties.map(\.name), ["_id", "name", "dogs"])
        XCTAssertEqual(schema.primaryKeyProperty?.name, "_id")
        XCTAssertEqual(schema["dogs"]?.isArray, true)
        XCTAssertEqual(schema["dogs"]?.objectClassName, "Dog")
        let pet = try XCTUnwrap(realm.schema["Pet"])
        XCTAssertEqual(pet["kind"]?.isIndexed, true)
        XCTAssertEqual(pet["listedBy"]?.type, .linkingObjects)
        XCTAssertEqual(pet["listedBy"]?.linkOriginPropertyName, "pets")
        XCTAssertEqual(realm.schema["Address"]?.isEmbedded, true)
        let all = try XCTUnwrap(realm.schema["AllTypes"])
        XCTAssertEqual(all["optInt8"]?.type, .int)
        XCTAssertEqual(all["optInt8"]?.isOptional, true)
        XCTAssertEqual(all["color"]?.type, .int)
        XCTAssertEqual(all["mood"]?.type, .string)
        XCTAssertEqual(all["decimal"]?.type, .decimal128)
        XCTAssertEqual(Dog().objectSchema.className, "Dog")
    }

    func testObjectIdAndDecimal128() throws {
        let id = ObjectId.generate()
        XCTAssertEqual(try ObjectId(string: id.stringValue), id)
        XCTAssertLessThan(abs(id.timestamp.timeIntervalSinceNow), 5)
        XCTAssertLessThan(id, ObjectId.generate())
        XCTAssertThrowsError(try ObjectId(string: "xyz"))
        let d: Decimal128 = "12.5"
        XCTAssertEqual(d + 1, Decimal128(13.5))
        XCTAssertEqual(d.stringValue, "12.5")
        XCTAssertThrowsError(try Decimal128(string: "twelve"))
    }
}
