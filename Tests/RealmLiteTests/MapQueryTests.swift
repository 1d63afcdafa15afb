import Foundation
import XCTest
@testable import RealmLite

// RealmKeyedCollection and Map's query API: code generic over the protocol;
// filter, where, sorted and aggregates on maps of objects and of numbers,
// managed and unmanaged; Results from a map staying live.

final class Kennel: Object {
    @Persisted var dogs: Map<String, Dog?>
    @Persisted var counts: Map<String, Int>
    @Persisted var weights: Map<String, Double>
}

final class MapQueryTests: RealmTestCase {
    private let types: [ObjectBase.Type] = [Kennel.self, Dog.self, Person.self]

    /// a: Rex 3, b: Ace 7, c: Max 5, d: nil (key order a, b, c, d).
    private func fill(_ kennel: Kennel) {
        kennel.dogs["a"] = Dog(value: ["name": "Rex", "age": 3])
        kennel.dogs["b"] = Dog(value: ["name": "Ace", "age": 7])
        kennel.dogs["c"] = Dog(value: ["name": "Max", "age": 5])
        kennel.dogs["d"] = .some(nil)
        kennel.counts["x"] = 4
        kennel.counts["y"] = 1
        kennel.counts["z"] = 10
        kennel.weights["x"] = 1.5
        kennel.weights["y"] = 2.5
    }

    private func managedKennel() throws -> (Realm, Kennel) {
        let realm = try openRealm(types)
        let kennel = Kennel()
        try realm.write {
            realm.add(kennel)
            fill(kennel)
        }
        return (realm, kennel)
    }

    private func names(_ results: Results<Dog?>) -> [String] { results.map { $0?.name ?? "nil" } }

    // MARK: Generic code

    /// Uses only RealmKeyedCollection: what a RealmSwift app's generic helper would.
    private func summary<C: RealmKeyedCollection>(_ map: C) -> String where C.Key == String, C.Value == Int {
        let total: Int = map.sum(ofProperty: "self")
        let big = map.contains { key, value in key != "x" && value > 5 }
        return "\(map.count) \(map.keys) \(map.values) sum \(total) max \(map.max() ?? -1) big \(big) \(map["y"] ?? -1)"
    }

    private func add<C: RealmKeyedCollection>(_ value: C.Value, at key: C.Key, to map: C) { map.updateValue(value, forKey: key) }

    private func olderThan<C: RealmKeyedCollection>(_ age: Int, in map: C) -> [String] where C.Value == Dog? {
        map.filter("age > %@", age).map { $0!.name }
    }

    func testGenericCodeOverRealmKeyedCollection() throws {
        let unmanaged = Kennel()
        fill(unmanaged)
        XCTAssertEqual(summary(unmanaged.counts), "3 [\"x\", \"y\", \"z\"] [4, 1, 10] sum 15 max 10 big true 1")

        let (realm, kennel) = try managedKennel()
        XCTAssertEqual(summary(kennel.counts), "3 [\"x\", \"y\", \"z\"] [4, 1, 10] sum 15 max 10 big true 1")
        try realm.write { add(2, at: "w", to: kennel.counts) }
        XCTAssertEqual(summary(kennel.counts), "4 [\"w\", \"x\", \"y\", \"z\"] [2, 4, 1, 10] sum 17 max 10 big true 1")
        XCTAssertEqual(olderThan(4, in: kennel.dogs), ["Ace", "Max"])

        // Observation, frozen maps and the Realm through the protocol.
        func observeAndFreeze<C: RealmKeyedCollection>(_ map: C) -> (NotificationToken, C, Bool) {
            let token = map.observe { _ in }
            return (token, map.freeze(), map.realm != nil && !map.isInvalidated)
        }
        let (token, frozen, live) = observeAndFreeze(kennel.counts)
        XCTAssertTrue(live)
        XCTAssertTrue(frozen.isFrozen)
        try realm.write { kennel.counts["v"] = 100 }
        XCTAssertEqual(frozen.count, 4, "the frozen map keeps its version")
        XCTAssertEqual(frozen.thaw()?.count, 5)
        token.invalidate()
    }

    // MARK: Maps of objects

    func testFilterSortAndWhereOnAMapOfObjects() throws {
        let (_, kennel) = try managedKennel()
        let dogs = kennel.dogs
        // The values, in key order; the nil under "d" is left out.
        XCTAssertEqual(names(dogs.filter("age > 4")), ["Ace", "Max"])
        XCTAssertEqual(names(dogs.filter("name BEGINSWITH %@", "R")), ["Rex"])
        XCTAssertEqual(names(dogs.where { $0.age < 6 }), ["Rex", "Max"])
        XCTAssertEqual(names(dogs.where { $0.name == "Ace" || $0.age == 3 }), ["Rex", "Ace"])

        XCTAssertEqual(names(dogs.sorted(byKeyPath: "age")), ["Rex", "Max", "Ace"])
        XCTAssertEqual(names(dogs.sorted(byKeyPath: "age", ascending: false)), ["Ace", "Max", "Rex"])
        XCTAssertEqual(names(dogs.sorted(by: \.name, ascending: true)), ["Ace", "Max", "Rex"])
        XCTAssertEqual(names(dogs.sorted(by: [SortDescriptor(keyPath: "name", ascending: false)])), ["Rex", "Max", "Ace"])
        // Results of a map go on like any Results.
        let filtered = dogs.filter("age >= 5")
        XCTAssertEqual(names(filtered.sorted(byKeyPath: "age")), ["Max", "Ace"])
        XCTAssertEqual(filtered.sum(ofProperty: "age") as Int, 12)
        XCTAssertEqual(filtered.first??.name, "Ace")
        XCTAssertEqual(filtered.index(of: dogs["c"]!), 1)

        expectRealmError(.invalidValue, mentioning: ["weight"]) { _ = try dogs.queryResults().checkedSorted(byKeyPath: "weight") }
    }

    func testContainsWhereAndMergeMap() throws {
        let (realm, kennel) = try managedKennel()
        XCTAssertTrue(kennel.dogs.contains { $1?.name == "Max" })
        XCTAssertTrue(kennel.dogs.contains { key, value in key == "d" && value == nil })
        XCTAssertFalse(kennel.counts.contains { $0 == "x" && $1 == 5 })

        let other = Map<String, Int>()
        other["x"] = 6
        other["q"] = 9
        try realm.write { kennel.counts.merge(other) { old, new in old + new } }
        XCTAssertEqual(kennel.counts.asKeyValueSequence().map { "\($0.key)=\($0.value)" }, ["q=9", "x=10", "y=1", "z=10"])

        let unmanaged = Map<String, Int>()
        unmanaged["x"] = 1
        unmanaged.merge(kennel.counts) { old, _ in old }
        XCTAssertEqual(unmanaged.asKeyValueSequence().map { "\($0.key)=\($0.value)" }, ["q=9", "x=1", "y=1", "z=10"])
    }

    func testAggregatesOnAMapOfObjects() throws {
        func check(_ kennel: Kennel, _ label: String) {
            let dogs = kennel.dogs
            XCTAssertEqual(dogs.min(of: \.age), 3, label)
            XCTAssertEqual(dogs.max(of: \.age), 7, label)
            XCTAssertEqual(dogs.sum(of: \.age), 15, label)
            XCTAssertEqual(dogs.average(of: \.age) as Double?, 5, label)
            XCTAssertEqual(dogs.min(ofProperty: "age") as Int?, 3, label)
            XCTAssertEqual(dogs.max(ofProperty: "age") as Int?, 7, label)
            XCTAssertEqual(dogs.sum(ofProperty: "age") as Int, 15, label)
            XCTAssertEqual(dogs.average(ofProperty: "age") as Double?, 5, label)
        }
        let unmanaged = Kennel()
        fill(unmanaged)
        check(unmanaged, "unmanaged")
        let (_, kennel) = try managedKennel()
        check(kennel, "managed")

        let empty = Kennel()
        XCTAssertNil(empty.dogs.min(of: \.age))
        XCTAssertEqual(empty.dogs.sum(of: \.age), 0)
        XCTAssertNil(empty.dogs.average(of: \.age) as Double?)
        expectRealmError(.invalidValue, mentioning: ["name"]) {
            _ = try kennel.dogs.queryResults().checkedSum(ofProperty: "name") as Int
        }
    }

    // MARK: Maps of numbers

    func testAggregatesOnAMapOfNumbers() throws {
        func check(_ kennel: Kennel, _ label: String) {
            XCTAssertEqual(kennel.counts.min(), 1, label)
            XCTAssertEqual(kennel.counts.max(), 10, label)
            XCTAssertEqual(kennel.counts.sum(), 15, label)
            XCTAssertEqual(kennel.counts.average() as Double?, 5, label)
            XCTAssertEqual(kennel.weights.min(), 1.5, label)
            XCTAssertEqual(kennel.weights.sum(), 4, label)
            XCTAssertEqual(kennel.weights.average() as Double?, 2, label)
            XCTAssertEqual(kennel.weights.max(ofProperty: "self") as Double?, 2.5, label)
        }
        let unmanaged = Kennel()
        fill(unmanaged)
        check(unmanaged, "unmanaged")
        let (realm, kennel) = try managedKennel()
        check(kennel, "managed")
        try realm.write { kennel.counts.removeAll() }
        XCTAssertNil(kennel.counts.min())
        XCTAssertEqual(kennel.counts.sum(), 0)
        XCTAssertNil(kennel.counts.average() as Double?)
    }

    func testEmbeddedObjectsOptionalValuesAndFrozenResults() throws {
        let realm = try openRealm([EveryCollection.self, Geo.self])
        let holder = EveryCollection()
        try realm.write {
            realm.add(holder)
            holder.embeddedMap["n"] = Geo(value: ["lat": 50.0, "lon": 7.0])
            holder.embeddedMap["s"] = Geo(value: ["lat": -30.0, "lon": 20.0])
            holder.embeddedMap["x"] = .some(nil)
            holder.optDateMap["a"] = Date(timeIntervalSince1970: 20)
            holder.optDateMap["b"] = .some(nil)
            holder.optDateMap["c"] = Date(timeIntervalSince1970: 10)
        }
        XCTAssertEqual(holder.embeddedMap.filter("lat > 0").map { $0?.lon }, [7.0])
        XCTAssertEqual(holder.embeddedMap.sorted(byKeyPath: "lat").map { $0?.lat }, [-30.0, 50.0])
        XCTAssertEqual(holder.embeddedMap.sum(ofProperty: "lon") as Double, 27)
        // A map of optional values aggregates its non-nil values.
        XCTAssertEqual(holder.optDateMap.min(ofProperty: "self") as Date?, Date(timeIntervalSince1970: 10))
        XCTAssertEqual(holder.optDateMap.max(ofProperty: "self") as Date?, Date(timeIntervalSince1970: 20))

        let frozen = holder.embeddedMap.sorted(byKeyPath: "lon", ascending: false).freeze()
        try realm.write { holder.embeddedMap["e"] = Geo(value: ["lat": 1.0, "lon": 99.0]) }
        XCTAssertEqual(frozen.map { $0?.lon }, [20.0, 7.0], "frozen Results of a map keep their version")
        XCTAssertEqual(frozen.thaw()?.map { $0?.lon }, [99.0, 20.0, 7.0])
    }

    func testAggregatesOnAMapOfOptionalNumbers() throws {
        func check(_ map: Map<String, Int?>, _ label: String) {
            XCTAssertEqual(map.min(), 2, label)
            XCTAssertEqual(map.max(), 9, label)
            XCTAssertEqual(map.sum(), 11, label)
            XCTAssertEqual(map.average() as Double?, 5.5, label)
        }
        let bag = Bag()
        bag.optInts["a"] = 9
        bag.optInts["b"] = .some(nil)
        bag.optInts["c"] = 2
        check(bag.optInts, "unmanaged")
        let realm = try openRealm([Bag.self])
        try realm.write { realm.add(bag) }
        check(bag.optInts, "managed")
        try realm.write { bag.optInts.removeAll() }
        XCTAssertEqual(bag.optInts.min(), Int??.none)
        XCTAssertEqual(bag.optInts.sum(), 0)
    }

    // MARK: Live results

    func testResultsOfAMapAreLive() throws {
        let (realm, kennel) = try managedKennel()
        let older = kennel.dogs.filter("age > 4")
        let byAge = kennel.dogs.sorted(byKeyPath: "age")
        XCTAssertEqual(names(older), ["Ace", "Max"])

        try realm.write { kennel.dogs["e"] = Dog(value: ["name": "Bob", "age": 9]) }
        XCTAssertEqual(names(older), ["Ace", "Max", "Bob"], "a new entry joins")
        let rex = try XCTUnwrap(kennel.dogs["a"] ?? nil)
        try realm.write { rex.age = 10 }
        XCTAssertEqual(names(older), ["Rex", "Ace", "Max", "Bob"], "a changed object joins")
        try realm.write { kennel.dogs["b"] = nil }
        XCTAssertEqual(names(older), ["Rex", "Max", "Bob"], "a removed key leaves")
        try realm.write { kennel.dogs["d"] = Dog(value: ["name": "Zed", "age": 1]) }
        XCTAssertEqual(names(byAge), ["Zed", "Max", "Bob", "Rex"])
        XCTAssertEqual(kennel.dogs.max(of: \.age), 10)

        try realm.write { realm.delete(kennel) }
        XCTAssertEqual(older.count, 0, "the owner's deletion empties them")
    }

    // MARK: What stops

    func testMisusesStopWithTheirReason() {
        assertStops("unmanagedFilter", printing: "Only managed Maps can be filtered or sorted", runner: Self.runner)
        assertStops("sortObjectsBySelf", printing: "Cannot sort a Map of Optional<Dog> by its values themselves", runner: Self.runner)
        assertStops("unmanagedWhere", printing: "Only managed Maps can be filtered or sorted", runner: Self.runner)
    }

    private static let runner = "RealmLiteTests.MapQueryTests/testRunStopScenario"

    func testRunStopScenario() throws {
        guard let name = ProcessInfo.processInfo.environment[stopScenarioVariable] else {
            throw XCTSkip("the child-process entry point of testMisusesStopWithTheirReason")
        }
        switch name {
        case "unmanagedFilter":
            let kennel = Kennel()
            fill(kennel)
            _ = kennel.dogs.filter("age > 1")
        case "sortObjectsBySelf":
            let (_, kennel) = try managedKennel()
            _ = kennel.dogs.sorted()
        case "unmanagedWhere":
            _ = Kennel().dogs.where { $0.age > 1 }
        default:
            XCTFail("unknown scenario \(name)")
        }
        XCTFail("scenario '\(name)' should have stopped")
    }
}
