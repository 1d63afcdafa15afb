import Foundation
import XCTest
@testable import RealmLite

// Queries, sorting and distinct on collections of values: List, MutableSet
// and Map of values, and the Results they return. Expected results worked
// out by hand, then a seeded comparison with Swift's filter/sort.

struct VQAmount: CustomPersistable, Hashable {
    typealias PersistedType = Int
    var cents: Int
    init(_ cents: Int) { self.cents = cents }
    init(persistedValue: Int) { cents = persistedValue }
    var persistableValue: Int { cents }
}

final class ValueBox: Object {
    @Persisted var ints: List<Int>
    @Persisted var optInts: List<Int?>
    @Persisted var strings: List<String>
    @Persisted var optStrings: List<String?>
    @Persisted var doubles: List<Double>
    @Persisted var bools: List<Bool>
    @Persisted var dates: List<Date>
    @Persisted var datas: List<Data>
    @Persisted var decimals: List<Decimal128>
    @Persisted var objectIds: List<ObjectId>
    @Persisted var uuids: List<UUID>
    @Persisted var mixed: List<AnyRealmValue>
    @Persisted var colors: List<Color>
    @Persisted var amounts: List<VQAmount>
    @Persisted var intSet: MutableSet<Int>
    @Persisted var stringSet: MutableSet<String>
    @Persisted var doubleMap: Map<String, Double>
    @Persisted var optIntMap: Map<String, Int?>
}

final class ValueCollectionQueryTests: RealmTestCase {
    private func box(_ fill: (ValueBox) -> Void) throws -> (Realm, ValueBox) {
        let realm = try openRealm([ValueBox.self])
        let box = ValueBox()
        fill(box)
        try realm.write { realm.add(box) }
        return (realm, box)
    }

    // MARK: filter

    func testFilterSelfComparison() throws {
        let (realm, box) = try box { $0.ints.append(objectsIn: [5, 1, 4, 2, 3]) }
        let big = box.ints.filter("self > 3")
        XCTAssertEqual(Array(big), [5, 4])
        XCTAssertEqual(big.count, 2)
        XCTAssertEqual(big[1], 4)
        XCTAssertEqual(big.first, 5)
        XCTAssertEqual(big.last, 4)
        XCTAssertEqual(Array(box.ints.filter("self <= %@", 2)), [1, 2])
        XCTAssertEqual(Array(box.ints.filter("self != 4 AND NOT self == 1")), [5, 2, 3])
        // Live: a later write shows.
        try realm.write { box.ints.append(7) }
        XCTAssertEqual(Array(big), [5, 4, 7])
    }

    func testFilterStringOperators() throws {
        let (_, box) = try box { $0.strings.append(objectsIn: ["apple", "Avocado", "banana", "ÁRBOL", "cherry"]) }
        XCTAssertEqual(Array(box.strings.filter("self BEGINSWITH[c] 'a'")), ["apple", "Avocado"])
        XCTAssertEqual(Array(box.strings.filter("self BEGINSWITH[cd] 'a'")), ["apple", "Avocado", "ÁRBOL"])
        XCTAssertEqual(Array(box.strings.filter("self CONTAINS 'an'")), ["banana"])
        XCTAssertEqual(Array(box.strings.filter("self ENDSWITH 'y'")), ["cherry"])
        XCTAssertEqual(Array(box.strings.filter("self LIKE '?pp*'")), ["apple"])
        XCTAssertEqual(Array(box.strings.filter("self ==[c] 'APPLE'")), ["apple"])
        // @size counts UTF-8 bytes, as Realm does ("ÁRBOL" is 6).
        XCTAssertEqual(Array(box.strings.filter("self.@size == 6")), ["banana", "ÁRBOL", "cherry"])
    }

    func testFilterInAndBetween() throws {
        let (_, box) = try box { $0.ints.append(objectsIn: [5, 1, 4, 2, 3]) }
        XCTAssertEqual(Array(box.ints.filter("self IN %@", [1, 4, 9])), [1, 4])
        XCTAssertEqual(Array(box.ints.filter("self IN {3, 5}")), [5, 3])
        XCTAssertEqual(Array(box.ints.filter("self BETWEEN {2, 4}")), [4, 2, 3])
        XCTAssertEqual(Array(box.ints.filter("TRUEPREDICATE")), [5, 1, 4, 2, 3])
        XCTAssertEqual(Array(box.ints.filter("FALSEPREDICATE")), [])
    }

    func testWhereBuilder() throws {
        let (_, box) = try box {
            $0.ints.append(objectsIn: [5, 1, 4, 2, 3])
            $0.strings.append(objectsIn: ["apple", "Avocado", "banana"])
        }
        XCTAssertEqual(Array(box.ints.where { $0 > 3 }), [5, 4])
        XCTAssertEqual(Array(box.ints.where { $0 == 2 || $0 == 3 }), [2, 3])
        XCTAssertEqual(Array(box.ints.where { $0.in([1, 5]) }), [5, 1])
        XCTAssertEqual(Array(box.ints.where { $0.contains(2...4) }), [4, 2, 3])
        XCTAssertEqual(Array(box.strings.where { $0.starts(with: "a", options: .caseInsensitive) }), ["apple", "Avocado"])
        XCTAssertEqual(Array(box.strings.where { $0.contains("an") }), ["banana"])
        XCTAssertEqual(Array(box.strings.where { $0 != "apple" }), ["Avocado", "banana"])
    }

    func testOptionalsNilFirst() throws {
        let (_, box) = try box { $0.optInts.append(objectsIn: [3, nil, 1, nil, 2]) }
        XCTAssertEqual(Array(box.optInts.filter("self == nil")), [nil, nil])
        XCTAssertEqual(Array(box.optInts.filter("self != nil")), [3, 1, 2])
        XCTAssertEqual(Array(box.optInts.filter("self > 1")), [3, 2])
        XCTAssertEqual(Array(box.optInts.sorted()), [nil, nil, 1, 2, 3])
        XCTAssertEqual(Array(box.optInts.sorted(ascending: false)), [3, 2, 1, nil, nil])
        XCTAssertEqual(Array(box.optInts.distinct()), [3, nil, 1, 2])
        XCTAssertEqual(Array(box.optInts.where { $0 == nil }), [nil, nil])
    }

    // MARK: sorted and distinct

    func testSortedAndDistinct() throws {
        let (_, box) = try box { $0.ints.append(objectsIn: [3, 1, 3, 2, 1]) }
        XCTAssertEqual(Array(box.ints.sorted()), [1, 1, 2, 3, 3])
        XCTAssertEqual(Array(box.ints.sorted(ascending: false)), [3, 3, 2, 1, 1])
        XCTAssertEqual(Array(box.ints.sorted(byKeyPath: "self", ascending: false)), [3, 3, 2, 1, 1])
        XCTAssertEqual(Array(box.ints.distinct()), [3, 1, 2])
        XCTAssertEqual(Array(box.ints.sorted(ascending: false).distinct()), [3, 2, 1])
        XCTAssertEqual(Array(box.ints.distinct().sorted()), [1, 2, 3])
        XCTAssertEqual(Array(box.ints.filter("self > 1").sorted()), [2, 3, 3])
        XCTAssertEqual(Array(box.ints.sorted().filter("self > 1")), [2, 3, 3])
        XCTAssertEqual(Array(box.ints.sorted(by: [SortDescriptor(keyPath: "self", ascending: false)])), [3, 3, 2, 1, 1])
    }

    func testDescriptorsInPredicateString() throws {
        let (_, box) = try box { $0.ints.append(objectsIn: [3, 1, 3, 2, 1, 5]) }
        XCTAssertEqual(Array(box.ints.filter("self > 1 SORT(self DESC)")), [5, 3, 3, 2])
        XCTAssertEqual(Array(box.ints.filter("self > 1 SORT(self ASC) DISTINCT(self)")), [2, 3, 5])
        XCTAssertEqual(Array(box.ints.filter("TRUEPREDICATE SORT(self DESC) LIMIT(2)")), [5, 3])
        // A filter after LIMIT filters the limited values.
        XCTAssertEqual(Array(box.ints.filter("TRUEPREDICATE LIMIT(3)").filter("self > 1")), [3, 3])
    }

    func testMutableSetOfValues() throws {
        let (_, box) = try box {
            $0.intSet.insert(objectsIn: [8, 3, 5, 1])
            $0.stringSet.insert(objectsIn: ["pear", "Plum", "fig"])
        }
        XCTAssertEqual(Array(box.intSet.sorted()), [1, 3, 5, 8])
        XCTAssertEqual(Array(box.intSet.filter("self >= 5").sorted(ascending: false)), [8, 5])
        XCTAssertEqual(Set(box.intSet.distinct()), [1, 3, 5, 8])
        XCTAssertEqual(Array(box.stringSet.filter("self BEGINSWITH[c] 'p'").sorted()), ["Plum", "pear"])
        XCTAssertEqual(Array(box.stringSet.where { $0.ends(with: "g") }), ["fig"])
    }

    func testMapValues() throws {
        let (realm, box) = try box {
            $0.doubleMap["c"] = 10
            $0.doubleMap["a"] = 2.5
            $0.doubleMap["b"] = -1
            $0.doubleMap["d"] = 2.5
            $0.optIntMap["x"] = nil as Int?
            $0.optIntMap["y"] = 4
        }
        XCTAssertEqual(Array(box.doubleMap.sorted()), [-1, 2.5, 2.5, 10])
        XCTAssertEqual(Array(box.doubleMap.sorted(ascending: false)), [10, 2.5, 2.5, -1])
        // Filters keep the map's key order.
        XCTAssertEqual(Array(box.doubleMap.filter("self > 0")), [2.5, 10, 2.5])
        XCTAssertEqual(Array(box.doubleMap.where { $0 < 0 }), [-1])
        XCTAssertEqual(Array(box.doubleMap.sorted().distinct()), [-1, 2.5, 10])
        XCTAssertEqual(Array(box.optIntMap.sorted()), [nil, 4])
        XCTAssertEqual(Array(box.optIntMap.filter("self == nil")), [nil])
        let sorted = box.doubleMap.sorted()
        try realm.write { box.doubleMap["e"] = 0 }
        XCTAssertEqual(Array(sorted), [-1, 0, 2.5, 2.5, 10])
    }

    // MARK: the Results of values

    func testAggregatesIndexesAndDescription() throws {
        let (_, box) = try box { $0.ints.append(objectsIn: [5, 1, 4, 2, 3]) }
        let big = box.ints.filter("self > 1")
        XCTAssertEqual(big.sum(), 14)
        XCTAssertEqual(big.min(), 2)
        XCTAssertEqual(big.max(), 5)
        XCTAssertEqual(big.average() as Double?, 3.5)
        XCTAssertEqual(big.index(of: 2), 2)
        XCTAssertNil(big.index(of: 1))
        XCTAssertEqual(big.sorted().index(matching: "self > 3"), 2)
        XCTAssertEqual(big.index(matching: { $0 < 3 }), 2)
        XCTAssertEqual(big.sorted().description, "Results<Int> <4> (\n\t[0] 2,\n\t[1] 3,\n\t[2] 4,\n\t[3] 5\n)")
        XCTAssertEqual(big.sorted().value(forKey: "self") as? [Int?], [2, 3, 4, 5])
        XCTAssertEqual(Array(big.filter("self < 5")), [4, 2, 3])
    }

    func testFreezeAndThaw() throws {
        let (realm, box) = try box { $0.ints.append(objectsIn: [3, 1, 2]) }
        let sorted = box.ints.sorted()
        let frozen = sorted.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertFalse(sorted.isFrozen)
        try realm.write { box.ints.append(0) }
        XCTAssertEqual(Array(frozen), [1, 2, 3])
        XCTAssertEqual(Array(sorted), [0, 1, 2, 3])
        let thawed = try XCTUnwrap(frozen.thaw())
        XCTAssertFalse(thawed.isFrozen)
        XCTAssertEqual(Array(thawed), [0, 1, 2, 3])
        // A frozen Results reads the same from another thread.
        let other = DispatchQueue(label: "other")
        let read = other.sync { Array(frozen) }
        XCTAssertEqual(read, [1, 2, 3])
    }

    func testObserveDiffsTheValues() throws {
        let (realm, box) = try box { $0.ints.append(objectsIn: [5, 1, 4]) }
        let big = box.ints.filter("self > 2").sorted()
        var changes: [String] = []
        let token = big.observe { change in
            switch change {
            case .initial(let results): changes.append("initial \(Array(results))")
            case .update(let results, let deletions, let insertions, _):
                changes.append("\(Array(results)) -\(deletions) +\(insertions)")
            case .error: changes.append("error")
            }
        }
        nextTurn()
        try realm.write { box.ints.append(objectsIn: [3, 0]) } // 0 is filtered out
        nextTurn()
        try realm.write { box.ints.remove(at: 0) } // removes 5
        nextTurn()
        token.invalidate()
        XCTAssertEqual(changes, ["initial [4, 5]", "[3, 4, 5] -[] +[0]", "[3, 4] -[2] +[]"])
    }

    // MARK: value types

    func testAnyRealmValueMixedOrder() throws {
        let (_, box) = try box {
            $0.mixed.append(objectsIn: [.int(3), .string("a"), .double(2.5), .none, .bool(true), .float(3), .string("B")])
        }
        XCTAssertEqual(Array(box.mixed.filter("self > 2")), [.int(3), .double(2.5), .float(3)])
        XCTAssertEqual(Array(box.mixed.filter("self == 3")), [.int(3), .float(3)])
        XCTAssertEqual(Array(box.mixed.filter("self.@type == 'string'")), [.string("a"), .string("B")])
        XCTAssertEqual(Array(box.mixed.filter("self BEGINSWITH[c] 'b'")), [.string("B")])
        XCTAssertEqual(Array(box.mixed.filter("self == nil")), [.none])
        // nil, bool, numbers (by value; equal ones keep their order), strings by bytes.
        XCTAssertEqual(Array(box.mixed.sorted()),
                       [.none, .bool(true), .double(2.5), .int(3), .float(3), .string("B"), .string("a")])
        // Numbers of different types that are equal are one distinct value.
        XCTAssertEqual(Array(box.mixed.distinct()), [.int(3), .string("a"), .double(2.5), .none, .bool(true), .string("B")])
    }

    func testOtherValueTypes() throws {
        let d0 = Date(timeIntervalSince1970: 1_000), d1 = Date(timeIntervalSince1970: 2_000), d2 = Date(timeIntervalSince1970: 3_000)
        let o0 = ObjectId("000000000000000000000001"), o1 = ObjectId("000000000000000000000002")
        let u0 = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, u1 = UUID(uuidString: "00000000-0000-0000-0000-000000000002")!
        let (_, box) = try box {
            $0.dates.append(objectsIn: [d2, d0, d1])
            $0.datas.append(objectsIn: [Data([2]), Data([1, 5]), Data([1])])
            $0.decimals.append(objectsIn: [Decimal128(3.5), Decimal128(-1), Decimal128(2)])
            $0.objectIds.append(objectsIn: [o1, o0, o1])
            $0.uuids.append(objectsIn: [u1, u0])
            $0.bools.append(objectsIn: [true, false, true])
            $0.doubles.append(objectsIn: [2.5, -0.5, 1e10])
        }
        XCTAssertEqual(Array(box.dates.filter("self > %@", d0)), [d2, d1])
        XCTAssertEqual(Array(box.dates.sorted()), [d0, d1, d2])
        XCTAssertEqual(Array(box.dates.where { $0 < d2 }), [d0, d1])
        XCTAssertEqual(Array(box.datas.filter("self == %@", Data([1]))), [Data([1])])
        XCTAssertEqual(Array(box.datas.sorted()), [Data([1]), Data([1, 5]), Data([2])])
        XCTAssertEqual(Array(box.decimals.filter("self < 3")), [Decimal128(-1), Decimal128(2)])
        XCTAssertEqual(Array(box.decimals.sorted(ascending: false)), [Decimal128(3.5), Decimal128(2), Decimal128(-1)])
        XCTAssertEqual(Array(box.objectIds.filter("self == %@", o1)), [o1, o1])
        XCTAssertEqual(Array(box.objectIds.distinct(by: ["self"])), [o1, o0])
        XCTAssertEqual(Array(box.objectIds.sorted(byKeyPath: "self")), [o0, o1, o1])
        XCTAssertEqual(Array(box.uuids.filter("self IN %@", [u0])), [u0])
        XCTAssertEqual(Array(box.uuids.sorted(byKeyPath: "self")), [u0, u1])
        XCTAssertEqual(Array(box.bools.filter("self == true")), [true, true])
        XCTAssertEqual(Array(box.bools.where { $0 == false }), [false])
        XCTAssertEqual(Array(box.bools.distinct(by: ["self"])), [true, false])
        XCTAssertEqual(Array(box.doubles.filter("self BETWEEN {-1, 3}").sorted()), [-0.5, 2.5])
    }

    func testPersistableEnumAndCustomPersistable() throws {
        let (_, box) = try box {
            $0.colors.append(objectsIn: [.blue, .red, .green, .red])
            $0.amounts.append(objectsIn: [VQAmount(300), VQAmount(-5), VQAmount(40)])
        }
        XCTAssertEqual(Array(box.colors.sorted()), [.red, .red, .green, .blue])
        XCTAssertEqual(Array(box.colors.distinct()), [.blue, .red, .green])
        XCTAssertEqual(Array(box.colors.filter("self == %@", Color.red.rawValue)), [.red, .red])
        XCTAssertEqual(Array(box.colors.where { $0 == .green }), [.green])
        XCTAssertEqual(Array(box.amounts.sorted().map(\.cents)), [-5, 40, 300])
        XCTAssertEqual(Array(box.amounts.filter("self > 0").map(\.cents)), [300, 40])
        XCTAssertEqual(Array(box.amounts.where { $0 > VQAmount(100) }.map(\.cents)), [300])
    }

    func testErrors() throws {
        let (_, box) = try box { $0.ints.append(objectsIn: [1, 2]) }
        XCTAssertThrowsError(try box.ints.checkedFilter("value > 1")) { error in
            XCTAssertTrue("\(error)".contains("compare the values themselves with 'self'"), "\(error)")
        }
        XCTAssertThrowsError(try box.ints.checkedSorted(byKeyPath: "value")) { error in
            XCTAssertTrue("\(error)".contains("values have no properties"), "\(error)")
        }
        XCTAssertThrowsError(try box.ints.checkedDistinct(by: ["value"]))
        XCTAssertThrowsError(try box.ints.checkedFilter("self BEGINSWITH 'a'"))
        XCTAssertThrowsError(try box.ints.checkedFilter("self.@count > 1"))
        let unmanaged = List<Int>()
        unmanaged.append(1)
        XCTAssertThrowsError(try unmanaged.checkedFilter("self > 0"))
    }
}
