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
    @Persisted var any: AnyRealmValue
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

    func testObserveOnAQueueAndHandOver() throws {
        let (realm, box) = try box { $0.ints.append(objectsIn: [1, 6]) }
        let big = box.ints.filter("self > 2")
        let queue = DispatchQueue(label: "values")
        let initial = expectation(description: "initial"), update = expectation(description: "update")
        let token = big.observe(on: queue) { change in
            switch change {
            case .initial(let results):
                XCTAssertEqual(Array(results), [6])
                initial.fulfill()
            case .update(let results, let deletions, let insertions, _):
                XCTAssertEqual(Array(results), [6, 9])
                XCTAssertEqual(deletions, [])
                XCTAssertEqual(insertions, [1])
                update.fulfill()
            case .error(let error):
                XCTFail("\(error)")
            }
        }
        wait(for: [initial], timeout: 10)
        try realm.write { box.ints.append(objectsIn: [9, 0]) }
        wait(for: [update], timeout: 10)
        token.invalidate()

        let reference = ThreadSafeReference(to: big.sorted(ascending: false))
        let config = realm.configuration
        let read = try DispatchQueue(label: "other").sync {
            let other = try Realm(configuration: config)
            return Array(try XCTUnwrap(other.resolve(reference)))
        }
        XCTAssertEqual(read, [9, 6])
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

    func testCollectionsNestedInAnyRealmValue() throws {
        let (realm, box) = try box { $0.any = .fromArray([.int(4), .string("a"), .int(1), .double(2.5)]) }
        let list = try XCTUnwrap(box.any.listValue)
        XCTAssertEqual(Array(list.filter("self > 2")), [.int(4), .double(2.5)])
        XCTAssertEqual(Array(list.sorted()), [.int(1), .double(2.5), .int(4), .string("a")])
        try realm.write { box.any = .fromDictionary(["x": .int(2), "y": .int(-1), "z": .string("b")]) }
        let dictionary = try XCTUnwrap(box.any.dictionaryValue)
        XCTAssertEqual(Array(dictionary.sorted(ascending: false)), [.string("b"), .int(2), .int(-1)])
        XCTAssertEqual(Array(dictionary.where { $0 == .int(2) }), [.int(2)])
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

// MARK: - Randomized: the same filter, sort and distinct in Swift

extension ValueCollectionQueryTests {
    private typealias Order<V> = (V, V) -> Bool

    /// Swift's stable sort by `less`.
    private func stableSorted<V>(_ values: [V], ascending: Bool, _ less: Order<V>) -> [V] {
        values.indices.sorted { a, b in
            if less(values[a], values[b]) { return ascending }
            if less(values[b], values[a]) { return !ascending }
            return a < b
        }.map { values[$0] }
    }

    /// The first of each group of values with the same `key`.
    private func firstOfEach<V, K: Hashable>(_ values: [V], _ key: (V) -> K) -> [V] {
        var seen = Set<K>()
        return values.filter { seen.insert(key($0)).inserted }
    }

    /// sorted both ways, distinct, and sorted-then-distinct against Swift.
    private func checkOrdering<V: RealmCollectionValue, K: Hashable>(
        _ collection: some RealmCollection<V>, _ elements: [V], _ less: Order<V>, _ key: (V) -> K, _ what: String) {
        for ascending in [true, false] {
            XCTAssertEqual(Array(collection.sorted(byKeyPath: "self", ascending: ascending)),
                           stableSorted(elements, ascending: ascending, less), "\(what) sorted \(ascending) of \(elements)")
        }
        XCTAssertEqual(Array(collection.distinct(by: ["self"])), firstOfEach(elements, key), "\(what) distinct of \(elements)")
        XCTAssertEqual(Array(collection.sorted(byKeyPath: "self", ascending: false).distinct(by: ["self"])),
                       firstOfEach(stableSorted(elements, ascending: false, less), key), "\(what) sorted distinct of \(elements)")
    }

    private func utf8Less(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    /// Realm's mixed order for the values generated here: nil, bools, numbers, strings.
    private func mixedRank(_ v: AnyRealmValue) -> (Int, Double, String) {
        switch v {
        case .none: return (0, 0, "")
        case .bool(let b): return (1, b ? 1 : 0, "")
        case .int(let i): return (2, Double(i), "")
        case .double(let d): return (2, d, "")
        case .string(let s): return (3, 0, s)
        default: return (9, 0, "")
        }
    }

    private func mixedLess(_ a: AnyRealmValue, _ b: AnyRealmValue) -> Bool {
        let (ra, da, sa) = mixedRank(a), (rb, db, sb) = mixedRank(b)
        if ra != rb { return ra < rb }
        if ra == 3 { return utf8Less(sa, sb) }
        return da < db
    }

    func testRandomizedAgainstSwift() throws {
        var rng = SplitMix(seed: 0x5EED_0018_0018)
        let (realm, box) = try box { _ in }
        let alphabet = ["a", "b", "A", "B", "é"]
        func word(_ rng: inout SplitMix) -> String {
            (0..<Int.random(in: 0...3, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined()
        }
        let intOps: [(String, (Int, Int) -> Bool)] = [(">", (>)), (">=", (>=)), ("<", (<)), ("<=", (<=)), ("==", (==)), ("!=", (!=))]
        for round in 0..<40 {
            let ints = (0..<Int.random(in: 0...15, using: &rng)).map { _ in Int.random(in: -5...5, using: &rng) }
            let optInts: [Int?] = (0..<Int.random(in: 0...15, using: &rng)).map { _ in
                Bool.random(using: &rng) && Bool.random(using: &rng) ? nil : Int.random(in: -5...5, using: &rng)
            }
            let strings = (0..<Int.random(in: 0...12, using: &rng)).map { _ in word(&rng) }
            let doubles = (0..<Int.random(in: 0...12, using: &rng)).map { _ in [-2.5, -1, 0, 0.5, 1, 3.25, 1e9].randomElement(using: &rng)! }
            let mixed: [AnyRealmValue] = (0..<Int.random(in: 0...12, using: &rng)).map { _ in
                [.none, .bool(true), .bool(false), .int(Int.random(in: -2...3, using: &rng)),
                 .double([-1.5, 0.5, 2.0].randomElement(using: &rng)!), .string(["a", "b", "B"].randomElement(using: &rng)!)]
                    .randomElement(using: &rng)!
            }
            let setInts = Set((0..<Int.random(in: 0...10, using: &rng)).map { _ in Int.random(in: -5...5, using: &rng) })
            var mapValues: [String: Int?] = [:]
            for i in 0..<Int.random(in: 0...10, using: &rng) {
                mapValues["k\(i)"] = Bool.random(using: &rng) ? nil : Int.random(in: -5...5, using: &rng)
            }
            try realm.write {
                box.ints.removeAll(); box.ints.append(objectsIn: ints)
                box.optInts.removeAll(); box.optInts.append(objectsIn: optInts)
                box.strings.removeAll(); box.strings.append(objectsIn: strings)
                box.doubles.removeAll(); box.doubles.append(objectsIn: doubles)
                box.mixed.removeAll(); box.mixed.append(objectsIn: mixed)
                box.intSet.removeAll(); box.intSet.insert(objectsIn: setInts)
                box.optIntMap.removeAll()
                for (k, v) in mapValues { box.optIntMap[k] = v }
            }
            let what = "round \(round)"
            let t = Int.random(in: -6...6, using: &rng), u = Int.random(in: -6...6, using: &rng)

            // Int, Int?, a set and a map's values: every comparison operator, BETWEEN, IN.
            for (op, test) in intOps {
                XCTAssertEqual(Array(box.ints.filter("self \(op) %@", t)), ints.filter { test($0, t) }, "\(what) ints \(op) \(t)")
                XCTAssertEqual(Array(box.optInts.filter("self \(op) %@", t)),
                               optInts.filter { $0.map { test($0, t) } ?? (op == "!=") }, "\(what) optInts \(op) \(t)")
                let setOrder = Array(box.intSet)
                XCTAssertEqual(Array(box.intSet.filter("self \(op) %@", t)), setOrder.filter { test($0, t) }, "\(what) set \(op) \(t)")
                let mapOrder = box.optIntMap.values
                XCTAssertEqual(Array(box.optIntMap.filter("self \(op) %@", t)),
                               mapOrder.filter { $0.map { test($0, t) } ?? (op == "!=") }, "\(what) map \(op) \(t)")
            }
            XCTAssertEqual(Array(box.ints.filter("self BETWEEN {%@, %@}", t, u)), ints.filter { $0 >= t && $0 <= u }, "\(what) between")
            XCTAssertEqual(Array(box.ints.filter("self IN %@", [t, u])), ints.filter { $0 == t || $0 == u }, "\(what) in")
            XCTAssertEqual(Array(box.optInts.filter("self == nil")), optInts.filter { $0 == nil }, "\(what) nil")
            XCTAssertEqual(Array(box.ints.where { $0 > t && $0 != u }), ints.filter { $0 > t && $0 != u }, "\(what) where")
            checkOrdering(box.ints, ints, (<), { $0 }, "\(what) ints")
            checkOrdering(box.optInts, optInts, { a, b in a == nil ? b != nil : (b.map { a! < $0 } ?? false) }, { $0 }, "\(what) optInts")
            checkOrdering(box.intSet, Array(box.intSet), (<), { $0 }, "\(what) set")
            checkOrdering(box.optIntMap.sorted(byKeyPath: "self").filter("TRUEPREDICATE"), box.optIntMap.values.sorted { a, b in
                a == nil ? b != nil : (b.map { a! < $0 } ?? false)
            }, { a, b in a == nil ? b != nil : (b.map { a! < $0 } ?? false) }, { $0 }, "\(what) map")

            // Strings: the string operators with and without [c], ordering by bytes.
            let needle = alphabet.randomElement(using: &rng)! + (Bool.random(using: &rng) ? "" : alphabet.randomElement(using: &rng)!)
            let folded = needle.lowercased()
            let stringCases: [(String, (String) -> Bool)] = [
                ("BEGINSWITH", { $0.hasPrefix(needle) }), ("BEGINSWITH[c]", { $0.lowercased().hasPrefix(folded) }),
                ("ENDSWITH", { $0.hasSuffix(needle) }), ("ENDSWITH[c]", { $0.lowercased().hasSuffix(folded) }),
                ("CONTAINS", { $0.contains(needle) }), ("CONTAINS[c]", { $0.lowercased().contains(folded) }),
                ("==", { $0 == needle }), ("==[c]", { $0.lowercased() == folded }), ("!=", { $0 != needle }),
                (">", { self.utf8Less(needle, $0) }), ("<=", { !self.utf8Less(needle, $0) }),
            ]
            for (op, test) in stringCases {
                XCTAssertEqual(Array(box.strings.filter("self \(op) %@", needle)), strings.filter(test), "\(what) strings \(op) '\(needle)'")
            }
            checkOrdering(box.strings, strings, utf8Less, { $0 }, "\(what) strings")

            // Doubles.
            let d = [-1.0, 0, 0.75, 3.25].randomElement(using: &rng)!
            XCTAssertEqual(Array(box.doubles.filter("self > %@", d)), doubles.filter { $0 > d }, "\(what) doubles > \(d)")
            XCTAssertEqual(Array(box.doubles.filter("self == %@", d)), doubles.filter { $0 == d }, "\(what) doubles == \(d)")
            checkOrdering(box.doubles, doubles, (<), { $0 }, "\(what) doubles")

            // AnyRealmValue: numbers compare across types; other types never order with numbers.
            let number = { (v: AnyRealmValue) -> Double? in
                switch v {
                case .int(let i): return Double(i)
                case .double(let x): return x
                default: return nil
                }
            }
            XCTAssertEqual(Array(box.mixed.filter("self > %@", t)), mixed.filter { number($0).map { $0 > Double(t) } ?? false }, "\(what) mixed > \(t)")
            XCTAssertEqual(Array(box.mixed.filter("self == %@", t)), mixed.filter { number($0) == Double(t) }, "\(what) mixed == \(t)")
            XCTAssertEqual(Array(box.mixed.filter("self.@type == 'string'")), mixed.filter { if case .string = $0 { true } else { false } }, "\(what) mixed @type")
            checkOrdering(box.mixed, mixed, mixedLess, { v -> String in
                let (rank, value, text) = self.mixedRank(v)
                return "\(rank) \(value) \(text)"
            }, "\(what) mixed")
        }
    }
}
