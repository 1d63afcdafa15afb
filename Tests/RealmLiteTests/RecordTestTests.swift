import Foundation
import CStorage
import XCTest
@testable import RealmLite

// RecordTest (Query/RecordTest.swift): predicates evaluated on record bytes
// without closures must agree, row by row, with the general filter; count's
// fast path must equal the count by enumeration; anything the fast path does
// not cover must fall back.

final class RecordTestTests: QueryTestCase {
    /// Values chosen to hit the edges: nil, NaN, ±0, extreme ints, floats
    /// that do not round-trip through Double.
    private func fill(_ realm: Realm, count: Int) throws {
        var rng = SplitMix(seed: 42)
        let ints: [Int] = [0, 1, -1, 2, 3, 5, 7, -3, 100, .max, .min, 1 << 53, (1 << 53) + 1]
        let doubles: [Double] = [0, -0.0, 0.5, 1, -1, 2.5, .nan, .infinity, -.infinity, 0.1, 1e300]
        let floats: [Float] = [0, 0.1, -0.1, 1, 2.5, .nan, .infinity, 3]
        try realm.write {
            for i in 0..<count {
                let o = AllTypes()
                o.int = ints[Int(rng.next() % UInt64(ints.count))]
                o.int8 = Int8(truncatingIfNeeded: Int(rng.next() % 256) - 128)
                o.double = doubles[Int(rng.next() % UInt64(doubles.count))]
                o.float = floats[Int(rng.next() % UInt64(floats.count))]
                o.bool = rng.next() % 2 == 0
                o.date = Date(timeIntervalSince1970: Double(rng.next() % 5) * 1000)
                o.string = ["", "a", "ab", "b"][Int(rng.next() % 4)]
                let pick = rng.next() % 4
                o.optInt = pick == 0 ? nil : ints[Int(rng.next() % UInt64(ints.count))]
                o.optInt8 = pick == 1 ? nil : Int8(i % 7) - 3
                o.optDouble = pick == 2 ? nil : doubles[Int(rng.next() % UInt64(doubles.count))]
                o.optFloat = pick == 3 ? nil : floats[Int(rng.next() % UInt64(floats.count))]
                o.optBool = rng.next() % 3 == 0 ? nil : rng.next() % 2 == 0
                o.optDate = rng.next() % 3 == 0 ? nil : Date(timeIntervalSince1970: Double(rng.next() % 5) * 1000)
                o.optString = rng.next() % 3 == 0 ? nil : "s\(i % 3)"
                o.data = Data(repeating: UInt8(i % 3), count: i % 4 == 0 ? 0 : 2)
                o.color = [Color.red, .green, .blue][i % 3]
                o.mood = [Mood.happy, .sad, .sleepy][i % 3]
                o.optColor = i % 4 == 0 ? nil : .blue
                o.optMood = i % 5 == 0 ? nil : .sad
                o.optData = rng.next() % 3 == 0 ? nil : Data("s\(i % 3)".utf8)
                realm.add(o)
            }
        }
    }

    /// Checks one query: every row's RecordTest verdict equals the general
    /// filter's, and count equals the count by enumeration and by Swift.
    private func check<T: Object>(_ realm: Realm, _ results: Results<T>, fast: Bool, _ label: String,
                                  file: StaticString = #filePath, line: UInt = #line) {
        guard case .query(let plan) = results.source, let compiled = plan.compiled else {
            return XCTFail("\(label): not a query", file: file, line: line)
        }
        XCTAssertEqual(compiled.test != nil, fast, "\(label): fast path applies", file: file, line: line)
        var expected = 0
        for object in realm.objects(T.self) {
            let record = object._currentRecord()
            let general = compiled.filter(realm.core, record, object._key)
            if general { expected += 1 }
            if let test = compiled.test {
                var matched = 0
                let rc = test.withFilter { filter in
                    withUnsafePointer(to: cs_val(data: record.base, size: record.size)) {
                        cs_filter_values(filter, $0, 1, nil, &matched)
                    }
                }
                XCTAssertEqual(rc, 0, "\(label): row \(object._key) filtered", file: file, line: line)
                let quick = matched == 1
                XCTAssertEqual(quick, general, "\(label): row \(object._key)", file: file, line: line)
            }
        }
        XCTAssertEqual(results.count, expected, "\(label): count", file: file, line: line)
        XCTAssertEqual(Array(results).count, expected, "\(label): enumeration", file: file, line: line)
        XCTAssertEqual(results.count, expected, "\(label): count after evaluation", file: file, line: line)
    }

    func testRecordTestAgreesWithGeneralFilter() throws {
        let realm = try openQueryRealm()
        try fill(realm, count: 600)
        let date = Date(timeIntervalSince1970: 2000)
        let fast: [(String, [Any])] = [
            ("int > 5", []), ("int == -3", []), ("int != 0", []), ("int <= %@", [Int.max]), ("int >= %@", [Int.min]),
            ("int < %@", [Int.min]), ("int > %@", [Int.max]), ("int != %@", [Int.min]), ("int == %@", [Int.max]),
            ("int > %@", [Int.max - 1]), ("int < %@", [Int.min + 1]),
            ("int < 2.5", []), ("int == 3.0", []), ("int == %@", [Double(1 << 53)]), ("5 < int", []),
            ("int BETWEEN {-2, 7}", []), ("int IN {1, 2, 3, 5}", []), ("int IN {}", []), ("int IN %@", [[1, 7, 100]]),
            ("int8 > 0", []), ("int8 BETWEEN {-5, 5}", []),
            ("optInt == nil", []), ("optInt != nil", []), ("optInt > 3", []), ("optInt != 3", []), ("optInt < 3", []),
            ("optInt IN {nil, 3, 5}", []), ("optInt8 <= 0", []), ("optInt8 == nil", []),
            ("double > 0.5", []), ("double == 0", []), ("double == %@", [Double.nan]), ("double != %@", [Double.nan]),
            ("double < %@", [Double.nan]), ("double >= %@", [-Double.infinity]), ("double != 2", []),
            ("double IN {0.5, 1}", []), ("double BETWEEN {0, 2.5}", []),
            ("optDouble == nil OR optDouble >= 0", []), ("optDouble != 0.5", []), ("optDouble == %@", [Double.nan]),
            ("float > 0.1", []), ("float == 0.1", []), ("float < 3", []), ("float != %@", [Float.nan]),
            ("optFloat != 0.1", []), ("optFloat == nil", []), ("optFloat >= -0.1", []),
            ("date > %@", [date]), ("date == %@", [date]), ("optDate == nil", []), ("optDate <= %@", [date]),
            ("bool == true", []), ("bool != false", []), ("bool == 1", []), ("bool == NO", []),
            ("optBool == true", []), ("optBool != true", []), ("optBool == nil", []), ("optBool != nil", []),
            ("optString == nil", []), ("string != nil", []),
            ("string == 'a'", []), ("string != ''", []), ("string == ''", []), ("string IN {'a', 'b', 'zz'}", []),
            ("optString == 's1'", []), ("optString != 's1'", []), ("optString IN {nil, 's2'}", []),
            ("int > 3 AND string == 'ab'", []), ("data == %@", [Data([1, 1])]), ("data != %@", [Data()]),
            ("optData == 's1'", []), ("optData != %@", [Data("s2".utf8)]), ("optData == nil", []),
            ("color == 1", []), ("color != %@", [Color.blue]), ("optColor == nil", []), ("optColor == %@", [Color.blue]),
            ("mood == 'sad'", []), ("mood != %@", [Mood.sleepy]), ("optMood == nil OR optMood == 'sad'", []),
            ("NOT (int > 3 AND bool == true)", []), ("int > 3 OR double < 0", []),
            ("(int > 0 OR optInt == nil) AND NOT (bool == false OR float > 1)", []),
            ("TRUEPREDICATE", []), ("FALSEPREDICATE", []), ("NOT TRUEPREDICATE AND int > 0", []),
        ]
        for (format, args) in fast {
            check(realm, try realm.objects(AllTypes.self).checkedFilter(format, arguments: args), fast: true, format)
        }
        let slow: [(String, [Any])] = [
            ("string ==[c] 'A'", []), ("string BEGINSWITH 'a'", []), ("string < 'b'", []), ("decimal > 3", []),
            ("int > int8", []), ("int IN {1, 2.5, 3}", []), ("int > 3 AND string CONTAINS 'a'", []),
            ("string BETWEEN {'a', 'b'}", []), ("optString LIKE 's*'", []),
            ("int IN {1, 2, 3, 4, 5, 6, 7, 8, 9}", []), ("optBool == true OR string CONTAINS 'b'", []),
        ]
        for (format, args) in slow {
            check(realm, try realm.objects(AllTypes.self).checkedFilter(format, arguments: args), fast: false, format)
        }
        // The builder produces the same trees.
        check(realm, realm.objects(AllTypes.self).where { $0.int > 5 && $0.bool == true }, fast: true, "where &&")
        check(realm, realm.objects(AllTypes.self).where { $0.bool }, fast: true, "where bool")
        check(realm, realm.objects(AllTypes.self).where { !$0.bool || $0.optInt == nil }, fast: true, "where ! ||")
        check(realm, realm.objects(AllTypes.self).where { $0.double.contains(0...1) }, fast: true, "where contains range")
        check(realm, realm.objects(AllTypes.self).where { $0.int.in([1, 2, 3]) }, fast: true, "where in")
        check(realm, realm.objects(AllTypes.self).where { $0.string == "ab" || $0.optString == nil }, fast: true, "where string")
        check(realm, realm.objects(AllTypes.self).where { $0.color == .green && $0.mood != .happy }, fast: true, "where enums")
        // Chained filters AND together.
        check(realm, realm.objects(AllTypes.self).filter("int > 0").filter("bool == false"), fast: true, "chained")
    }

    func testLinksAndIndexesFallBack() throws {
        let realm = try openQueryRealm()
        try realm.write {
            let owners = (0..<3).map { i in realm.create(QOwner.self, value: ["id": i, "name": "o\(i)"]) }
            for i in 0..<200 {
                let item = QItem()
                item.name = "n\(i % 7)"
                item.rank = i % 13
                item.optRank = i % 5 == 0 ? nil : i % 11
                item.plainRank = i % 17
                item.score = Double(i % 9) / 2
                item.optScore = i % 4 == 0 ? nil : Double(i % 6)
                item.flag = i % 3 == 0
                item.owner = i % 4 == 3 ? nil : owners[i % 3]
                realm.add(item)
            }
        }
        let fast: [String] = ["plainRank > 5 AND flag == true", "optScore == nil OR score >= 2", "NOT (flag == true)", "optRank != 3",
                              "name == 'n3'", "tag == 'x' OR plainRank == 2"]
        for format in fast { check(realm, realm.objects(QItem.self).filter(format), fast: true, format) }
        // Links keep the general path; a query an index answers (rank, tag)
        // never scans, so it has no RecordTest (count evaluates the plan).
        let slow: [String] = ["owner == nil", "owner != nil AND flag == true", "owner.name == 'o1'", "flag == true AND owner.id > 0",
                              "rank == 4", "rank > 5 AND flag == false", "tag == 'x'"]
        for format in slow { check(realm, realm.objects(QItem.self).filter(format), fast: false, format) }
        let owner = realm.object(ofType: QOwner.self, forPrimaryKey: 1)!
        check(realm, realm.objects(QItem.self).filter("owner == %@ AND flag == true", owner), fast: false, "owner == object")
        // A collection base (not all objects of the class) evaluates its keys.
        let owned = owner.owned.filter("flag == false AND plainRank > 3")
        XCTAssertGreaterThan(owned.count, 0)
        XCTAssertEqual(owned.count, owner.owned.filter { !$0.flag && $0.plainRank > 3 }.count)
        XCTAssertEqual(Array(owned).count, owned.count)
        check(realm, realm.objects(QOwner.self).filter("items.@count > 0"), fast: false, "@count")
    }

    func testCountFastPathAndOrderings() throws {
        let realm = try openQueryRealm()
        try fill(realm, count: 300)
        let matching = realm.objects(AllTypes.self).filter("int > 1 AND bool == true")
        let expected = realm.objects(AllTypes.self).filter { $0.int > 1 && $0.bool }.count
        XCTAssertGreaterThan(expected, 0)
        XCTAssertEqual(matching.count, expected)
        // Sorting keeps the count; distinct and LIMIT evaluate the plan.
        XCTAssertEqual(matching.sorted(byKeyPath: "double").count, expected)
        XCTAssertEqual(realm.objects(AllTypes.self).filter("int > 1 AND bool == true LIMIT(3)").count, min(3, expected))
        let distinct = Set(realm.objects(AllTypes.self).filter { $0.int > 1 && $0.bool }.map(\.int)).count
        XCTAssertEqual(matching.distinct(by: ["int"]).count, distinct)
        // Live: each write changes what the next count sees, in and after a write transaction.
        realm.beginWrite()
        let extra = AllTypes()
        extra.int = 10
        extra.bool = true
        realm.add(extra)
        XCTAssertEqual(matching.count, expected + 1)
        realm.delete(extra)
        XCTAssertEqual(matching.count, expected)
        let again = AllTypes()
        again.int = 11
        again.bool = true
        realm.add(again)
        try realm.commitWrite()
        XCTAssertEqual(matching.count, expected + 1)
        XCTAssertEqual(realm.objects(AllTypes.self).filter("int > 1 AND bool == true").count, expected + 1)
        // Frozen results count their own version.
        let frozen = matching.freeze()
        try realm.write { realm.delete(realm.objects(AllTypes.self).filter("int == 11")) }
        XCTAssertEqual(frozen.count, expected + 1)
        XCTAssertEqual(matching.count, expected)
        // An empty class (no tree yet) counts 0.
        XCTAssertEqual(realm.objects(Email.self).filter("read == true").count, 0)
    }
}
