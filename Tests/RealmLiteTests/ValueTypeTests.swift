import Foundation
import XCTest
@testable import RealmLite

// Value types as RealmSwift has them (issue 17 item 4): Decimal128 as an IEEE
// decimal128, ObjectId's full API, CustomPersistable, PersistableEnum keys.

// MARK: - Decimal128

final class ValueTypeDecimal128Tests: RealmTestCase {
    func testArithmeticIsDecimal() throws {
        let a: Decimal128 = 0.1, b: Decimal128 = 0.2
        XCTAssertEqual(a + b, 0.3)
        XCTAssertEqual((a + b).stringValue, "3E-1", "realm-core's form, as RealmSwift prints it")
        XCTAssertEqual(Decimal128("1.234567") + Decimal128("9.876543"), Decimal128("11.111110"))
        XCTAssertEqual((Decimal128("1.234567") + Decimal128("9.876543")).description, "11.11111")
        XCTAssertEqual((Decimal128("2.5") - Decimal128("3.5")).description, "-1")
        XCTAssertEqual(Decimal128(7) / Decimal128(3.5), 2)
        XCTAssertEqual(Decimal128("0.21") / Decimal128("0.7"), Decimal128("0.3"))
        XCTAssertEqual(Decimal128("0.21") * Decimal128("0.7"), Decimal128("0.147"))
        // 34 digits, rounded half to even.
        XCTAssertEqual((Decimal128(1) / Decimal128(3)).stringValue, "3.333333333333333333333333333333333E-1")
        XCTAssertEqual((Decimal128(2) / Decimal128(3)).stringValue, "6.666666666666666666666666666666667E-1")
        XCTAssertEqual(Decimal128("1E34") + Decimal128(5), Decimal128("1E34"), "…0005 rounds half to even: down")
        XCTAssertEqual(Decimal128("1E34") + Decimal128(15), Decimal128("1.000000000000000000000000000000002E34"))
        XCTAssertEqual(Decimal128("1E40") + Decimal128("1E-40"), Decimal128("1E40"))
        XCTAssertEqual(Decimal128("1E40") - Decimal128("1E-40"), Decimal128("1E40"))
        XCTAssertEqual((Decimal128("1E40") - Decimal128("1E-40")).exactString, "1.000000000000000000000000000000000E40")
        XCTAssertEqual(Decimal128("1E33") - Decimal128("0.1"), Decimal128("999999999999999999999999999999999.9"))
        var x: Decimal128 = 10
        x += 5; x -= 1; x *= 3; x /= 6
        XCTAssertEqual(x, 7)
        x.negate()
        XCTAssertEqual(x, -7)
        XCTAssertEqual(x.magnitude, 7)
        XCTAssertEqual(-x, 7)
        XCTAssertEqual(Decimal128(10).distance(to: 5), -5)
        XCTAssertEqual(Decimal128(-150).advanced(by: 300), 150)
        XCTAssertEqual(Decimal128(exactly: 0b101), 5)
        XCTAssertEqual(Decimal128(exactly: UInt64.max)?.stringValue, "18446744073709551615")
        XCTAssertTrue((Decimal128(1) / Decimal128(0)).stringValue == "Inf")
        XCTAssertTrue((Decimal128(0) / Decimal128(0)).isNaN)
    }

    func testParsingAndPrinting() throws {
        let big = try Decimal128(string: "1.5E+10")
        XCTAssertEqual(big, Decimal128(15_000_000_000))
        XCTAssertEqual(big.stringValue, "1.5E10")
        XCTAssertEqual(big.doubleValue, 1.5e10)
        XCTAssertEqual(try Decimal128(string: "-0.00123").stringValue, "-1.23E-3")
        XCTAssertEqual(try Decimal128(string: "1.50").stringValue, "1.5")
        XCTAssertEqual(try Decimal128(string: "1.50").exactString, "1.50", "the exponent is kept")
        XCTAssertEqual(try Decimal128(string: "1.0"), try Decimal128(string: "1.000"))
        XCTAssertEqual(try Decimal128(string: "1.0").hashValue, try Decimal128(string: "1.000").hashValue)
        XCTAssertEqual(try Decimal128(string: "12345678901234567890123456789012345678").stringValue,
                       "1.234567890123456789012345678901235E37", "38 digits rounded to 34")
        XCTAssertThrowsError(try Decimal128(string: "twelve"))
        XCTAssertThrowsError(try Decimal128(string: "1.2.3"))
        XCTAssertThrowsError(try Decimal128(string: "1e"))
        XCTAssertTrue(Decimal128(value: "twelve").isNaN, "init(value:) gives NaN as RealmSwift's")
        XCTAssertTrue(Decimal128(value: NSNull()).isNaN)
        XCTAssertTrue(Decimal128(value: NSNull()).isSignaling)
        XCTAssertEqual(Decimal128(value: 3 as Int8), 3)
        XCTAssertEqual(Decimal128(value: 2.5), 2.5)
        XCTAssertEqual(Decimal128(number: 3.14159), 3.14159)
        XCTAssertEqual(Decimal128(number: NSNumber(value: UInt64.max)).stringValue, "18446744073709551615")
        XCTAssertEqual(Decimal128(0.1 + 0.2), 0.3, "a Double keeps 15 significant digits, as realm-core's")
        XCTAssertEqual(Decimal128(Decimal(string: "2.75")!), 2.75)
        XCTAssertEqual(Decimal128("2.75").decimalValue, Decimal(string: "2.75"))
        XCTAssertEqual(Decimal128("1.5E10").decimalValue, Decimal(15_000_000_000))
        XCTAssertEqual((Decimal128(0.1) + 0.2).decimalValue, Decimal(string: "0.3"))
        XCTAssertTrue(Decimal128.max.decimalValue.isNaN, "beyond Decimal's range")
        XCTAssertTrue(Decimal128(value: "nan").isNaN)
        XCTAssertEqual(Decimal128(value: "-Infinity"), -Decimal128(value: "inf"))
        XCTAssertEqual(Decimal128.max.stringValue, "9.999999999999999999999999999999999E6144")
        XCTAssertEqual(Decimal128.min.stringValue, "-9.999999999999999999999999999999999E6144")
        XCTAssertEqual(Decimal128.minimumDecimalNumber, Decimal128.min)
        XCTAssertEqual(Decimal128.maximumDecimalNumber, Decimal128.max)
        XCTAssertEqual(Decimal128.max + Decimal128.max, Decimal128(value: "Inf"))
        // The BID bits of 1 (realm-core / MongoDB): exponent 0 biased 6176.
        XCTAssertEqual(Decimal128(1).high, 0x3040_0000_0000_0000)
        XCTAssertEqual(Decimal128(1).low, 1)
    }

    func testComparisonAndNaN() throws {
        let nan = Decimal128(value: NSNull())
        XCTAssertFalse(nan == nan)
        XCTAssertTrue(nan != nan)
        XCTAssertTrue(nan < Decimal128.min, "NaN orders first, as in realm-core")
        XCTAssertTrue(Decimal128("3.14160") > Decimal128(number: 3.14159))
        XCTAssertTrue(Decimal128("-2") < Decimal128("-1.5"))
        XCTAssertTrue(Decimal128("1E-6176") > 0)
        XCTAssertTrue(Decimal128("0") == Decimal128("-0.000"))
        XCTAssertTrue(Decimal128.max > Decimal128("9.99E6144"))
        XCTAssertEqual([Decimal128("10"), "9.5", "-1", "1E1", "0.1"].sorted().map(\.stringValue), ["-1", "1E-1", "9.5", "10", "1E1"])
        XCTAssertEqual(Set<Decimal128>(["1", "1.0", "1.00", "2"]).count, 2)
    }

    /// Exact results (up to 24 digits) agree with Foundation's Decimal, and
    /// order agrees with the difference's sign; a seeded generator.
    func testArithmeticAgreesWithFoundationDecimal() throws {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: UInt64) -> UInt64 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (seed >> 11) % bound
        }
        func random() -> (Decimal128, Decimal) {
            let text = (next(2) == 0 ? "-" : "") + "\(next(1_000_000_000_000))E\(Int(next(21)) - 10)"
            return (try! Decimal128(string: text), Decimal(string: text)!)
        }
        for _ in 0..<2_000 {
            let (a, fa) = random(), (b, fb) = random()
            XCTAssertEqual((a + b).decimalValue, fa + fb, "\(a) + \(b)")
            XCTAssertEqual((a - b).decimalValue, fa - fb, "\(a) - \(b)")
            XCTAssertEqual((a * b).decimalValue, fa * fb, "\(a) * \(b)")
            XCTAssertEqual(a < b, fa < fb, "\(a) < \(b)")
            XCTAssertEqual(a == b, fa == fb, "\(a) == \(b)")
            XCTAssertEqual(try Decimal128(string: a.stringValue), a)
            if b != 0 {
                let q = a / b
                let back = (q * b - a).magnitude
                XCTAssertTrue(back <= a.magnitude * Decimal128("1E-32"), "\(a) / \(b) = \(q)")
            }
        }
    }

    /// Results, exponents included, match IEEE decimal128 as Python's
    /// decimal module computes it (Decimal128Vectors.swift): 34-digit
    /// operands, subnormal and near-overflow exponents.
    func testArithmeticMatchesIEEEVectors() throws {
        for (a, op, b, expected) in Decimal128Vectors.cases {
            let x = try Decimal128(string: a), y = try Decimal128(string: b)
            let result: Decimal128
            switch op {
            case "+": result = x + y
            case "-": result = x - y
            case "*": result = x * y
            default: result = x / y
            }
            XCTAssertEqual(result.exactString, try Decimal128(string: expected).exactString, "\(a) \(op) \(b)")
        }
        for (a, b, order) in Decimal128Vectors.comparisons {
            let x = try Decimal128(string: a), y = try Decimal128(string: b)
            XCTAssertEqual(x < y ? -1 : (x == y ? 0 : 1), order, "\(a) <=> \(b)")
        }
        for (text, expected) in Decimal128Vectors.parses {
            XCTAssertEqual(try Decimal128(string: text).exactString, try Decimal128(string: expected).exactString, text)
        }
    }

    func testCodable() throws {
        let value: Decimal128 = "123.45"
        let json = try JSONEncoder().encode([value])
        XCTAssertEqual(String(decoding: json, as: UTF8.self), #"["123.45"]"#)
        XCTAssertEqual(try JSONDecoder().decode([Decimal128].self, from: json), [value])
        XCTAssertEqual(try JSONDecoder().decode([Decimal128].self, from: Data("[7, 2.5]".utf8)), [7, 2.5])
        XCTAssertThrowsError(try JSONDecoder().decode([Decimal128].self, from: Data(#"["x"]"#.utf8)))
    }
}

final class LegacyDecimalObject: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value = Decimal128()
    @Persisted var optValue: Decimal128?
    @Persisted var list: List<Decimal128>
}

final class DecimalHolder: Object {
    @Persisted var name = ""
    @Persisted var value = Decimal128()
    @Persisted var optValue: Decimal128?
    @Persisted var values: List<Decimal128>
}

final class ValueTypeDecimal128StorageTests: RealmTestCase {
    /// A file written by the code before this change (LegacyDecimalFixture)
    /// reads the values that code wrote, and takes new ones.
    func testFileWrittenBeforeDecimal128ReadsTheSameValues() throws {
        var bytes = Data(count: LegacyDecimalFixture.size)
        for run in LegacyDecimalFixture.runs {
            let chunk = try XCTUnwrap(Data(base64Encoded: run.base64, options: .ignoreUnknownCharacters))
            bytes.replaceSubrange(run.offset..<run.offset + chunk.count, with: chunk)
        }
        try bytes.write(to: fileURL)
        let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, objectTypes: [LegacyDecimalObject.self]))
        // What the old code printed for each (its Decimal description).
        let written = ["1.5", "-200", "0.000001", "12345678901234567890.123456789012345678", "NaN",
                       "1000000000000000000000000000000", "0.1", "-3", "-0.0000000000000000000000000000015", "0"]
        let objects = realm.objects(LegacyDecimalObject.self).sorted(byKeyPath: "id")
        XCTAssertEqual(objects.count, written.count)
        for (object, text) in zip(objects, written) {
            let expected = try Decimal128(string: text)
            if expected.isNaN {
                XCTAssertTrue(object.value.isNaN)
                XCTAssertTrue(object.optValue?.isNaN == true)
            } else {
                XCTAssertEqual(object.value, expected, text)
                XCTAssertEqual(object.optValue, object.id % 2 == 0 ? expected : nil, text)
                XCTAssertEqual(object.list.first, expected, text)
                XCTAssertEqual(object.value.doubleValue, Double(text), text)
            }
            XCTAssertEqual(object.list.last, Decimal128(object.id))
        }
        XCTAssertEqual(objects[3].value.stringValue, "12345678901234567890.12345678901235", "38 digits read as 34 (half to even)")
        XCTAssertEqual(realm.objects(LegacyDecimalObject.self).filter("value > 1").map(\.id), [0, 3, 5])
        XCTAssertEqual(realm.objects(LegacyDecimalObject.self).max(ofProperty: "value") as Decimal128?, try Decimal128(string: "1e30"))
        try realm.write { objects[0].value += Decimal128("0.25") }
        XCTAssertEqual(objects[0].value, 1.75)
    }

    func testRoundTripThroughAFile() throws {
        let values: [Decimal128] = ["1.50", "1.5E+10", "-0.00123", .max, .min, "1E-6176", "0", "-7"]
        try withRealm([DecimalHolder.self]) { realm in
            try realm.write {
                for (i, v) in values.enumerated() {
                    realm.create(DecimalHolder.self, value: ["name": "\(i)", "value": v, "optValue": (i % 2 == 0 ? v : nil) as Any, "values": [v, v * 2]])
                }
                realm.create(DecimalHolder.self, value: ["name": "nan", "value": Decimal128(value: NSNull())] as [String: Any])
            }
        }
        try withRealm([DecimalHolder.self]) { realm in
            let stored = realm.objects(DecimalHolder.self)
            for (i, v) in values.enumerated() {
                let o = try XCTUnwrap(stored.filter("name == %@", "\(i)").first)
                XCTAssertEqual(o.value, v)
                XCTAssertEqual(o.value.exactString, v.exactString, "the exponent is kept")
                XCTAssertEqual(o.optValue, i % 2 == 0 ? v : nil)
                XCTAssertEqual(Array(o.values), [v, v * 2])
            }
            XCTAssertTrue(try XCTUnwrap(stored.filter("name == 'nan'").first).value.isNaN)
        }
    }

    /// Queries compare, sort and aggregate by decimal value, not text.
    func testQueriesUseDecimalOrder() throws {
        let realm = try openRealm([DecimalHolder.self])
        let texts = ["9.5", "10", "1E1", "100", "-2", "0.3", "2.50"]
        try realm.write {
            for t in texts { realm.create(DecimalHolder.self, value: ["name": t, "value": try Decimal128(string: t)]) }
        }
        let all = realm.objects(DecimalHolder.self)
        XCTAssertEqual(Set(all.filter("value == 10").map(\.name)), ["10", "1E1"])
        XCTAssertEqual(Set(all.where { $0.value == Decimal128(10) }.map(\.name)), ["10", "1E1"])
        XCTAssertEqual(Set(all.filter("value < %@", Decimal128("2.5")).map(\.name)), ["-2", "0.3"])
        XCTAssertEqual(Set(all.where { $0.value >= Decimal128("2.5") && $0.value < 10 }.map(\.name)), ["9.5", "2.50"])
        XCTAssertEqual(Set(all.filter("value BETWEEN {2.5, 10}").map(\.name)), ["9.5", "2.50", "10", "1E1"])
        XCTAssertEqual(Set(all.where { $0.value.contains(Decimal128(0)...Decimal128(3)) }.map(\.name)), ["0.3", "2.50"])
        XCTAssertEqual(all.sorted(byKeyPath: "value").map(\.name).filter { $0 != "10" && $0 != "1E1" }, ["-2", "0.3", "2.50", "9.5", "100"])
        XCTAssertEqual(all.sorted(byKeyPath: "value", ascending: false).first?.name, "100")
        XCTAssertEqual(all.min(ofProperty: "value") as Decimal128?, -2)
        XCTAssertEqual(all.max(ofProperty: "value") as Decimal128?, 100)
        XCTAssertEqual(all.sum(ofProperty: "value") as Decimal128, Decimal128("130.3"))
        XCTAssertEqual(all.average(ofProperty: "value") as Decimal128?, Decimal128("130.3") / 7)
        XCTAssertEqual(all.distinct(by: ["value"]).count, 6, "10 and 1E1 are one value")
        // A literal longer than a Double keeps its digits.
        try realm.write { realm.create(DecimalHolder.self, value: ["name": "long", "value": Decimal128("1.2345678901234567891")] as [String: Any]) }
        XCTAssertEqual(all.filter("value == 1.2345678901234567891").map(\.name), ["long"])
        XCTAssertEqual(all.filter("value > 1.2345678901234567890 AND value < 1.2345678901234567892").map(\.name), ["long"])
        XCTAssertEqual(all.filter("value == 1.23456789012345678").count, 0)
        // Aggregates of a List<Decimal128> and @min/@sum in queries.
        let holder = try XCTUnwrap(all.filter("name == '9.5'").first)
        try realm.write { holder.values.append(objectsIn: ["0.1", "0.2", "1E1", "-3", "9.5"]) }
        XCTAssertEqual(holder.values.min(), -3)
        XCTAssertEqual(holder.values.max(), 10)
        XCTAssertEqual(holder.values.sum(), Decimal128("16.8"))
        XCTAssertEqual(holder.values.average(), Decimal128("3.36"))
        XCTAssertEqual(all.filter("values.@sum == 16.8").map(\.name), ["9.5"])
        XCTAssertEqual(all.filter("values.@max > 9.9 AND values.@min < -2.9").map(\.name), ["9.5"])
    }

    func testLongLiteralsStillCompareWithDoubles() throws {
        let realm = try openRealm()
        try realm.write { realm.create(AllTypes.self, value: ["double": 0.1234567890123456789]) }
        XCTAssertEqual(realm.objects(AllTypes.self).filter("double == 0.1234567890123456789").count, 1)
        XCTAssertEqual(realm.objects(AllTypes.self).filter("double < 0.12345678901234567891").count, 0)
    }
}

// MARK: - ObjectId

final class ObjectIdHolder: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var other: ObjectId?
}

final class ValueTypeObjectIdTests: RealmTestCase {
    func testInitializersAndTimestamp() throws {
        let literal = ObjectId("5f1c9a3e2b7d4c0012345678")
        // Not ExpressibleByStringLiteral (as RealmSwift's): a mixed dictionary literal stays [String: Any].
        let mixed: Any = ["_id": ObjectId.generate(), "name": "Rex"]
        XCTAssertTrue(mixed is [String: Any] && !(mixed is [String: ObjectId]))
        XCTAssertEqual(try ObjectId(string: "5F1C9A3E2B7D4C0012345678"), literal)
        XCTAssertEqual(literal.stringValue, "5f1c9a3e2b7d4c0012345678")
        XCTAssertEqual(literal.description, literal.stringValue)
        XCTAssertEqual(literal.timestamp, Date(timeIntervalSince1970: 0x5f1c9a3e))
        XCTAssertThrowsError(try ObjectId(string: "5f1c9a3e2b7d4c001234567"))
        XCTAssertThrowsError(try ObjectId(string: "5f1c9a3e2b7d4c001234567z"))
        XCTAssertEqual(ObjectId().stringValue, String(repeating: "0", count: 24))

        let date = Date(timeIntervalSince1970: 1_600_000_000.75)
        let a = ObjectId(timestamp: date, machineId: 0x0A0B0C, processId: 0x0102)
        let b = ObjectId(timestamp: date, machineId: 0x0A0B0C, processId: 0x0102)
        XCTAssertEqual(a.timestamp, Date(timeIntervalSince1970: 1_600_000_000))
        // Seconds big-endian, machine and process little-endian (realm-core's layout), then a counter.
        XCTAssertEqual(String(a.stringValue.prefix(18)), "5f5e10000c0b0a0201")
        XCTAssertNotEqual(a, b, "the counter differs")
        XCTAssertLessThan(a, b)

        let now = Date()
        let generated = ObjectId.generate()
        XCTAssertLessThanOrEqual(abs(generated.timestamp.timeIntervalSince(now)), 2)
        XCTAssertNotEqual(ObjectId.generate(), ObjectId.generate())
    }

    func testOrderHashAndCodable() throws {
        let low = ObjectId("000000010000000000000000")
        let high = ObjectId("000000020000000000000000")
        let mid = ObjectId("00000001ffffffffffffffff")
        XCTAssertTrue(low < mid && mid < high && high > low && low <= low && high >= mid)
        XCTAssertFalse(low > mid)
        XCTAssertEqual([high, mid, low].sorted(), [low, mid, high])
        XCTAssertEqual(Set([low, low, high]).count, 2)
        let json = try JSONEncoder().encode(["id": low])
        XCTAssertEqual(String(decoding: json, as: UTF8.self), #"{"id":"000000010000000000000000"}"#)
        XCTAssertEqual(try JSONDecoder().decode([String: ObjectId].self, from: json), ["id": low])
        XCTAssertThrowsError(try JSONDecoder().decode([ObjectId].self, from: Data(#"["xyz"]"#.utf8)))
        let sendable: any Sendable = low
        XCTAssertNotNil(sendable as? ObjectId)
    }

    func testStoredAndQueriedByByteOrder() throws {
        let realm = try openRealm([ObjectIdHolder.self])
        let ids = [ObjectId("000000030000000000000000"), ObjectId("000000010000000000000000"), ObjectId("000000020000000000000000")]
        try realm.write { for id in ids { realm.create(ObjectIdHolder.self, value: ["_id": id, "other": id]) } }
        XCTAssertNotNil(realm.object(ofType: ObjectIdHolder.self, forPrimaryKey: ids[1]))
        XCTAssertNotNil(realm.object(ofType: ObjectIdHolder.self, forPrimaryKey: "000000020000000000000000"))
        XCTAssertEqual(realm.objects(ObjectIdHolder.self).sorted(byKeyPath: "_id").map(\._id), ids.sorted())
        XCTAssertEqual(realm.objects(ObjectIdHolder.self).where { $0.other > ids[2] }.map(\._id), [ids[0]])
    }
}

// MARK: - CustomPersistable

struct Money: CustomPersistable {
    typealias PersistedType = Decimal128
    var amount: Decimal128
    init(_ amount: Decimal128) { self.amount = amount }
    init(persistedValue: Decimal128) { amount = persistedValue }
    var persistableValue: Decimal128 { amount }
}

struct Label: CustomPersistable {
    typealias PersistedType = String
    var name: String
    init(_ name: String) { self.name = name }
    init(persistedValue: String) { name = persistedValue }
    var persistableValue: String { name }
}

/// Only even numbers convert (stored odd values are "corrupt").
struct EvenInt: FailableCustomPersistable {
    typealias PersistedType = Int
    let value: Int
    init?(persistedValue: Int) {
        guard persistedValue % 2 == 0 else { return nil }
        value = persistedValue
    }
    var persistableValue: Int { value }
}

final class CustomHolder: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var money: Money
    @Persisted var optMoney: Money?
    @Persisted var tag: Label
    @Persisted var tags: List<Label>
    @Persisted var optTags: List<Label?>
    @Persisted var tagSet: MutableSet<Label>
    @Persisted var moneyMap: Map<String, Money>
}

struct Sku: CustomPersistable {
    typealias PersistedType = String
    var code: String
    init(persistedValue: String) { code = persistedValue }
    var persistableValue: String { code }
}

struct Cents: CustomPersistable {
    typealias PersistedType = Int
    var value: Int
    init(persistedValue: Int) { value = persistedValue }
    var persistableValue: Int { value }
}

final class Product: Object {
    @Persisted(primaryKey: true) var sku: Sku
    @Persisted(indexed: true) var price: Cents
    @Persisted(indexed: true) var salePrice: Cents?
}

final class CentsKeyed: Object {
    @Persisted(primaryKey: true) var id: Cents
}

final class OptionalSkuKeyed: Object {
    @Persisted(primaryKey: true) var id: Sku?
}

/// Two views of one class: `FailableHolder` as plain Ints and as EvenInt.
final class RawFailableHolder: Object {
    override class func className() -> String { "FailableHolder" }
    @Persisted var value = 0
    @Persisted var optValue: Int?
    @Persisted var values: List<Int?>
    @Persisted var required: List<Int>
}

final class FailableHolder: Object {
    @Persisted var value: EvenInt
    @Persisted var optValue: EvenInt?
    @Persisted var values: List<EvenInt?>
    @Persisted var required: List<EvenInt>
}

final class ValueTypeCustomPersistableTests: RealmTestCase {
    private func fill(_ realm: Realm) throws {
        try realm.write {
            for i in 0..<5 {
                let o = CustomHolder()
                o.id = i
                o.money = Money(Decimal128(i) / 4)
                o.optMoney = i % 2 == 0 ? Money(Decimal128(i)) : nil
                o.tag = Label("t\(i)")
                o.tags.append(objectsIn: [Label("a\(i)"), Label("b")])
                o.optTags.append(objectsIn: [Label("x"), nil])
                o.tagSet.insert(objectsIn: [Label("s"), Label("s"), Label("u\(i)")])
                o.moneyMap["price"] = Money("9.99")
                realm.add(o)
            }
        }
    }

    func testRoundTripThroughAFile() throws {
        try withRealm([CustomHolder.self]) { try fill($0) }
        try withRealm([CustomHolder.self]) { realm in
            let o = try XCTUnwrap(realm.object(ofType: CustomHolder.self, forPrimaryKey: 2))
            XCTAssertEqual(o.money.amount, Decimal128("0.5"))
            XCTAssertEqual(o.optMoney?.amount, 2)
            XCTAssertNil(realm.object(ofType: CustomHolder.self, forPrimaryKey: 1)?.optMoney)
            XCTAssertEqual(o.tag, Label("t2"))
            XCTAssertEqual(Array(o.tags), [Label("a2"), Label("b")])
            XCTAssertEqual(Array(o.optTags), [Label("x"), nil])
            XCTAssertEqual(Set(o.tagSet), [Label("s"), Label("u2")])
            XCTAssertEqual(o.moneyMap["price"]?.amount, Decimal128("9.99"))
            XCTAssertEqual(realm.schema["CustomHolder"]?["money"]?.type, .decimal128)
            try realm.write {
                o.money.amount += 1
                o.optMoney = nil
                o.tags[0] = Label("changed")
                realm.create(CustomHolder.self, value: ["id": 9, "money": Money(7), "tag": "from a String"] as [String: Any])
            }
            XCTAssertEqual(o.money.amount, Decimal128("1.5"))
            XCTAssertNil(o.optMoney)
            XCTAssertEqual(o.tags.first?.name, "changed")
            XCTAssertEqual(realm.object(ofType: CustomHolder.self, forPrimaryKey: 9)?.tag.name, "from a String")
        }
    }

    func testQueriesAndSorting() throws {
        let realm = try openRealm([CustomHolder.self])
        try fill(realm)
        let all = realm.objects(CustomHolder.self)
        XCTAssertEqual(all.where { $0.tag == Label("t3") }.map(\.id), [3])
        XCTAssertEqual(all.where { $0.money > Money("0.5") }.map(\.id), [3, 4])
        XCTAssertEqual(all.where { $0.money <= Money("0.25") }.map(\.id), [0, 1])
        XCTAssertEqual(all.where { $0.optMoney == nil }.map(\.id), [1, 3])
        XCTAssertEqual(all.where { $0.optMoney == Money(4) }.map(\.id), [4])
        XCTAssertEqual(all.where { $0.optMoney > Money(1) }.map(\.id), [2, 4])
        XCTAssertEqual(all.where { $0.optMoney <= Money(2) }.map(\.id), [0, 2])
        XCTAssertEqual(all.where { $0.tag.in([Label("t1"), Label("t4")]) }.map(\.id), [1, 4])
        XCTAssertEqual(all.where { $0.tags.contains(Label("a2")) }.map(\.id), [2])
        XCTAssertEqual(all.filter("tag == %@", Label("t0")).map(\.id), [0])
        XCTAssertEqual(all.filter("money >= 0.75").map(\.id), [3, 4], "query strings use the persisted value")
        XCTAssertEqual(all.filter("tag BEGINSWITH 't' AND optMoney > 1").map(\.id), [2, 4])
        XCTAssertEqual(all.sorted(byKeyPath: "tag", ascending: false).map(\.id), [4, 3, 2, 1, 0])
        XCTAssertEqual(all.sorted(by: \.money, ascending: false).first?.id, 4)
    }

    func testFailableConversionCollapsesToNilWhereOptional() throws {
        try withRealm([RawFailableHolder.self]) { realm in
            try realm.write {
                _ = realm.create(RawFailableHolder.self, value: ["value": 2, "optValue": 3, "values": [4, 5, nil], "required": [6]] as [String: Any])
            }
        }
        try withRealm([FailableHolder.self]) { realm in
            let o = try XCTUnwrap(realm.objects(FailableHolder.self).first)
            XCTAssertEqual(o.value.value, 2)
            XCTAssertNil(o.optValue, "3 does not convert: nil in an optional context")
            XCTAssertEqual(o.values.map { $0?.value }, [4, nil, nil])
            XCTAssertEqual(o.required.map(\.value), [6])
            XCTAssertEqual(realm.objects(FailableHolder.self).filter("optValue == 3").count, 1, "queries see the stored value")
            XCTAssertThrowsError(try realm.write {
                realm.create(FailableHolder.self, value: ["value": 7] as [String: Any])
            }, "a value that does not convert is refused")
        }
    }

    func testCustomPrimaryKeysAndIndexes() throws {
        let realm = try openRealm([Product.self, CentsKeyed.self, OptionalSkuKeyed.self])
        try realm.write {
            for i in 0..<4 {
                realm.create(Product.self, value: ["sku": Sku(persistedValue: "p\(i)"), "price": Cents(persistedValue: i * 100),
                                                   "salePrice": (i % 2 == 0 ? nil : Cents(persistedValue: 50)) as Any])
                realm.create(CentsKeyed.self, value: ["id": Cents(persistedValue: 10 - i)])
            }
            realm.create(OptionalSkuKeyed.self, value: ["id": Sku(persistedValue: "x")])
            realm.create(OptionalSkuKeyed.self, value: [:] as [String: Any])
        }
        let schema = try XCTUnwrap(realm.schema["Product"])
        XCTAssertEqual(schema.primaryKeyProperty?.name, "sku")
        XCTAssertEqual(schema["price"]?.isIndexed, true)
        XCTAssertEqual(schema["salePrice"]?.isIndexed, true)
        XCTAssertEqual(realm.object(ofType: Product.self, forPrimaryKey: Sku(persistedValue: "p2"))?.price.value, 200)
        XCTAssertEqual(realm.object(ofType: Product.self, forPrimaryKey: "p3")?.price.value, 300, "by the persisted value too")
        XCTAssertEqual(realm.object(ofType: CentsKeyed.self, forPrimaryKey: Cents(persistedValue: 8))?.id.value, 8)
        XCTAssertEqual(realm.object(ofType: CentsKeyed.self, forPrimaryKey: 9)?.id.value, 9)
        XCTAssertEqual(realm.object(ofType: OptionalSkuKeyed.self, forPrimaryKey: Sku(persistedValue: "x"))?.id?.code, "x")
        XCTAssertNotNil(realm.object(ofType: OptionalSkuKeyed.self, forPrimaryKey: nil as Sku?))
        XCTAssertEqual(realm.objects(Product.self).where { $0.price == Cents(persistedValue: 100) }.map(\.sku.code), ["p1"])
        XCTAssertEqual(realm.objects(Product.self).where { $0.salePrice == Cents(persistedValue: 50) }.count, 2)
        XCTAssertThrowsError(try realm.write { realm.create(Product.self, value: ["sku": Sku(persistedValue: "p0")]) }) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .primaryKeyExists)
        }
    }

    /// A non-optional property whose stored value does not convert stops
    /// the program, as RealmSwift's throws an exception.
    func testFailableConversionStopsWhereRequired() throws {
        assertStops("failableRequired", printing: "Failed to convert persisted value '3' to type 'EvenInt' in a non-optional context",
                    runner: "RealmLiteTests.ValueTypeCustomPersistableTests/testRunScenario")
    }

    /// The child-process entry point of testFailableConversionStopsWhereRequired.
    func testRunScenario() throws {
        guard ProcessInfo.processInfo.environment[stopScenarioVariable] == "failableRequired" else {
            throw XCTSkip("the child-process entry point of testFailableConversionStopsWhereRequired")
        }
        try withRealm([RawFailableHolder.self]) { realm in
            try realm.write { _ = realm.create(RawFailableHolder.self, value: ["value": 3]) }
        }
        // The same file seen through EvenInt: reading `value` (3) cannot convert.
        let typed = try openRealm([FailableHolder.self])
        _ = typed.objects(FailableHolder.self).first?.value
    }
}

// MARK: - PersistableEnum keys

enum Size: Int, PersistableEnum {
    case small = 1, medium = 5, large = 10
}

enum Hue: String, PersistableEnum {
    case red, green, blue
}

final class SizeKeyed: Object {
    @Persisted(primaryKey: true) var kind: Size
    @Persisted var label = ""
}

final class HueKeyed: Object {
    @Persisted(primaryKey: true) var color: Hue
    @Persisted(indexed: true) var shade: Size
    @Persisted(indexed: true) var optShade: Size?
}

enum Ratio: Double, PersistableEnum {
    case half = 0.5, whole = 1
}

final class RatioKeyed: Object {
    @Persisted(primaryKey: true) var ratio: Ratio
}

final class ValueTypePersistableEnumTests: RealmTestCase {
    func testOnlyIntAndStringEnumsCanBeKeys() {
        XCTAssertThrowsError(try openRealm([RatioKeyed.self])) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .invalidSchema)
            XCTAssertTrue("\(error)".contains("'RatioKeyed.ratio' of type double cannot be a primary key"), "\(error)")
        }
    }

    func testEnumPrimaryKeys() throws {
        let realm = try openRealm([SizeKeyed.self, HueKeyed.self])
        try realm.write {
            for kind in Size.allCases { realm.create(SizeKeyed.self, value: ["kind": kind, "label": "\(kind)"]) }
            for (i, color) in Hue.allCases.enumerated() {
                realm.create(HueKeyed.self, value: ["color": color, "shade": Size.allCases[i], "optShade": (i == 0 ? nil : Size.large) as Any] as [String: Any])
            }
        }
        XCTAssertEqual(realm.object(ofType: SizeKeyed.self, forPrimaryKey: Size.medium)?.label, "medium")
        XCTAssertEqual(realm.object(ofType: SizeKeyed.self, forPrimaryKey: 10)?.kind, .large, "by raw value too")
        XCTAssertNil(realm.object(ofType: SizeKeyed.self, forPrimaryKey: 2))
        XCTAssertEqual(realm.object(ofType: HueKeyed.self, forPrimaryKey: Hue.green)?.shade, .medium)
        XCTAssertEqual(realm.object(ofType: HueKeyed.self, forPrimaryKey: "blue")?.color, .blue)
        XCTAssertEqual(realm.schema["HueKeyed"]?["shade"]?.isIndexed, true)
        XCTAssertEqual(realm.schema["HueKeyed"]?.primaryKeyProperty?.name, "color")
        XCTAssertEqual(realm.objects(HueKeyed.self).where { $0.shade == .large }.map(\.color), [.blue])
        XCTAssertEqual(realm.objects(HueKeyed.self).where { $0.optShade == nil }.map(\.color), [.red])
        XCTAssertEqual(realm.objects(HueKeyed.self).filter("optShade == 10").count, 2)
        XCTAssertThrowsError(try realm.write { realm.create(SizeKeyed.self, value: ["kind": Size.small]) }) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .primaryKeyExists)
        }
        try realm.write { realm.create(SizeKeyed.self, value: ["kind": Size.small, "label": "updated"], update: .modified) }
        XCTAssertEqual(realm.object(ofType: SizeKeyed.self, forPrimaryKey: Size.small)?.label, "updated")
        XCTAssertEqual(realm.objects(SizeKeyed.self).count, 3)
    }
}
