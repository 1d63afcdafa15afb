import Foundation
import XCTest
@testable import RealmLite

// Codable models (RealmSwift's synthesized conformance): every property
// type round-trips through JSONEncoder/JSONDecoder; decoding makes
// unmanaged objects that realm.add stores; a missing optional key decodes
// as nil; collections code as arrays and dictionaries; encoding a managed
// object throws an error that says what to do.

enum Shade: String, PersistableEnum, Codable { case light, dark }

final class CodableAddress: EmbeddedObject, Codable {
    @Persisted var city = ""
}

class CodablePet: Object, Codable {
    @Persisted var name = ""
    @Persisted var age = 0
}

final class CodableEverything: Object, Codable {
    @Persisted var bool = false
    @Persisted var int = 0
    @Persisted var int8: Int8 = 0
    @Persisted var int16: Int16 = 0
    @Persisted var int32: Int32 = 0
    @Persisted var int64: Int64 = 0
    @Persisted var float: Float = 0
    @Persisted var double: Double = 0
    @Persisted var string = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSince1970: 0)
    @Persisted var uuid = UUID()
    @Persisted var shade = Shade.light
    @Persisted var objectId = ObjectId()
    @Persisted var decimal = Decimal128(0)
    @Persisted var optInt: Int?
    @Persisted var optString: String?
    @Persisted var optDate: Date?
    @Persisted var optShade: Shade?
    @Persisted var pet: CodablePet?
    @Persisted var address: CodableAddress?
    @Persisted var ints: List<Int>
    @Persisted var pets: List<CodablePet>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Double>
    @Persisted var optScores: Map<String, Int?>
}

final class CodableTests: RealmTestCase {
    let types: [ObjectBase.Type] = [CodableEverything.self, CodablePet.self, CodableAddress.self]

    func sample() -> CodableEverything {
        let object = CodableEverything()
        object.bool = true
        object.int = -42
        object.int8 = -8
        object.int16 = 1600
        object.int32 = -320_000
        object.int64 = Int64.max
        object.float = 1.5
        object.double = -2.25
        object.string = "héllo"
        object.data = Data([0, 1, 2, 255])
        object.date = Date(timeIntervalSince1970: 1_700_000_000.5)
        object.uuid = UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0305E82C3301")!
        object.shade = .dark
        object.objectId = ObjectId("5f0a1b2c3d4e5f6a7b8c9d0e")
        object.decimal = Decimal128(stringLiteral: "123.4500")
        object.optInt = 7
        object.optString = nil
        object.optDate = Date(timeIntervalSince1970: 5)
        object.optShade = .light
        object.pet = CodablePet(value: ["name": "Rex", "age": 3])
        object.address = CodableAddress(value: ["city": "Oslo"])
        object.ints.append(objectsIn: [3, 1, 2])
        object.pets.append(CodablePet(value: ["name": "Fido", "age": 5]))
        object.tags.insert(objectsIn: ["a", "b"])
        object.scores["x"] = 1.5
        object.optScores["none"] = .some(nil)
        object.optScores["one"] = 1
        return object
    }

    func assertSame(_ a: CodableEverything, _ b: CodableEverything, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.bool, b.bool, file: file, line: line)
        XCTAssertEqual([a.int, Int(a.int8), Int(a.int16), Int(a.int32)], [b.int, Int(b.int8), Int(b.int16), Int(b.int32)], file: file, line: line)
        XCTAssertEqual(a.int64, b.int64, file: file, line: line)
        XCTAssertEqual(a.float, b.float, file: file, line: line)
        XCTAssertEqual(a.double, b.double, file: file, line: line)
        XCTAssertEqual(a.string, b.string, file: file, line: line)
        XCTAssertEqual(a.data, b.data, file: file, line: line)
        XCTAssertEqual(a.date, b.date, file: file, line: line)
        XCTAssertEqual(a.uuid, b.uuid, file: file, line: line)
        XCTAssertEqual(a.shade, b.shade, file: file, line: line)
        XCTAssertEqual(a.objectId, b.objectId, file: file, line: line)
        XCTAssertEqual(a.decimal, b.decimal, file: file, line: line)
        XCTAssertEqual(a.optInt, b.optInt, file: file, line: line)
        XCTAssertEqual(a.optString, b.optString, file: file, line: line)
        XCTAssertEqual(a.optDate, b.optDate, file: file, line: line)
        XCTAssertEqual(a.optShade, b.optShade, file: file, line: line)
        XCTAssertEqual(a.pet?.name, b.pet?.name, file: file, line: line)
        XCTAssertEqual(a.pet?.age, b.pet?.age, file: file, line: line)
        XCTAssertEqual(a.address?.city, b.address?.city, file: file, line: line)
        XCTAssertEqual(Array(a.ints), Array(b.ints), file: file, line: line)
        XCTAssertEqual(a.pets.map(\.name), b.pets.map(\.name), file: file, line: line)
        XCTAssertEqual(Set(a.tags), Set(b.tags), file: file, line: line)
        XCTAssertEqual(a.scores["x"], b.scores["x"], file: file, line: line)
        XCTAssertEqual(a.optScores.count, b.optScores.count, file: file, line: line)
        XCTAssertEqual(a.optScores["one"], b.optScores["one"], file: file, line: line)
    }

    func testEveryPropertyTypeRoundTripsThroughJSON() throws {
        let original = sample()
        let json = try JSONEncoder().encode(original)
        let decoded = try JSONDecoder().decode(CodableEverything.self, from: json)
        XCTAssertNil(decoded.realm, "decoding makes an unmanaged object")
        assertSame(original, decoded)
        // The coding is what a JSON API would hold.
        let dictionary = try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [String: Any])
        XCTAssertEqual(dictionary["ints"] as? [Int], [3, 1, 2])
        XCTAssertEqual(dictionary["shade"] as? String, "dark")
        XCTAssertEqual((dictionary["scores"] as? [String: Double])?["x"], 1.5)
        XCTAssertEqual((dictionary["pet"] as? [String: Any])?["name"] as? String, "Rex")
    }

    func testDecodedObjectsAreReadyToAdd() throws {
        let json = try JSONEncoder().encode(sample())
        let realm = try openRealm(types)
        let decoded = try JSONDecoder().decode(CodableEverything.self, from: json)
        try realm.write { realm.add(decoded) }
        let stored = try XCTUnwrap(realm.objects(CodableEverything.self).first)
        assertSame(sample(), stored)
        XCTAssertEqual(realm.objects(CodablePet.self).count, 2, "linked objects were added with it")
    }

    func testMissingOptionalKeysDecodeAsNil() throws {
        let json = Data(#"{"name": "Solo", "age": 2}"#.utf8)
        let pet = try JSONDecoder().decode(CodablePet.self, from: json)
        XCTAssertEqual(pet.name, "Solo")
        let sparse = Data(#"""
        {"bool": false, "int": 1, "int8": 0, "int16": 0, "int32": 0, "int64": 0, "float": 0, "double": 0,
         "string": "", "data": "", "date": 0, "uuid": "3F2504E0-4F89-11D3-9A0C-0305E82C3301", "shade": "light",
         "objectId": "5f0a1b2c3d4e5f6a7b8c9d0e", "decimal": "1",
         "ints": [], "pets": [], "tags": [], "scores": {}, "optScores": {}}
        """#.utf8)
        let decoded = try JSONDecoder().decode(CodableEverything.self, from: sparse)
        XCTAssertNil(decoded.optInt)
        XCTAssertNil(decoded.optShade)
        XCTAssertNil(decoded.pet)
        XCTAssertEqual(decoded.int, 1)
    }

    func testCollectionsAndResultsEncodeAsArrays() throws {
        let realm = try openRealm(types)
        try realm.write {
            for (name, age) in [("a", 1), ("b", 2)] { realm.create(CodablePet.self, value: ["name": name, "age": age]) }
        }
        let list = List<Int>()
        list.append(objectsIn: [1, 2])
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(list), as: UTF8.self), "[1,2]")
        let decodedSet = try JSONDecoder().decode(MutableSet<String>.self, from: Data(#"["x","y","x"]"#.utf8))
        XCTAssertEqual(decodedSet.count, 2)
        let decodedMap = try JSONDecoder().decode(Map<String, Int>.self, from: Data(#"{"k": 3}"#.utf8))
        XCTAssertEqual(decodedMap["k"], 3)
        let ages = realm.objects(CodablePet.self).sorted(byKeyPath: "age")
        // Results of values are encodable; managed objects in them are not (below).
        XCTAssertThrowsError(try JSONEncoder().encode(ages))
    }

    func testEncodingAManagedObjectThrowsSayingWhatToDo() throws {
        let realm = try openRealm(types)
        let pet = try realm.write { realm.create(CodablePet.self, value: ["name": "Managed", "age": 1]) }
        XCTAssertThrowsError(try JSONEncoder().encode(pet)) { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(context.debugDescription.contains("unmanaged"), context.debugDescription)
        }
        // The documented way: encode an unmanaged copy.
        let copy = CodablePet(value: pet)
        let json = try JSONEncoder().encode(copy)
        XCTAssertEqual(try JSONDecoder().decode(CodablePet.self, from: json).name, "Managed")
    }
}
