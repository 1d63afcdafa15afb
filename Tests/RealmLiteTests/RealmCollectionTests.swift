import Foundation
import XCTest
@testable import RealmLite

// Code generic over `C: RealmCollection`, run for each collection type and
// for AnyRealmCollection wrapping each: counting, queries, sorting,
// aggregates, key-value coding, observation, freezing, equality.

class RCItem: Object {
    @Persisted var name = ""
    @Persisted var value = 0
    @Persisted var score: Double = 0
    @Persisted var target: RCTarget?
}

class RCHolder: Object {
    @Persisted var items: List<RCItem>
    @Persisted var itemSet: MutableSet<RCItem>
    @Persisted var ints: List<Int>
    @Persisted var intSet: MutableSet<Int>
}

class RCTarget: Object {
    @Persisted var name = ""
    @Persisted(originProperty: "target") var sources: LinkingObjects<RCItem>
}

final class RealmCollectionTests: RealmTestCase {
    let types: [ObjectBase.Type] = [RCItem.self, RCHolder.self, RCTarget.self]

    /// Five items (values 1...5, names a, b, b, c, c) in a list, a set and
    /// the linking objects of one target.
    func makeRealm() throws -> (Realm, RCHolder, RCTarget) {
        let realm = try openRealm(types)
        let holder = RCHolder(), target = RCTarget()
        try realm.write {
            realm.add(holder)
            realm.add(target)
            for (i, name) in ["a", "b", "b", "c", "c"].enumerated() {
                let item = realm.create(RCItem.self, value: ["name": name, "value": i + 1, "score": Double(i) / 2])
                item.target = target
                holder.items.append(item)
                holder.itemSet.insert(item)
            }
            holder.ints.append(objectsIn: [3, 1, 2])
            holder.intSet.insert(objectsIn: [10, 30, 20])
        }
        return (realm, holder, target)
    }

    /// Every object collection of the fixture, by name, as the generic
    /// checks receive them.
    func objectCollections(_ realm: Realm, _ holder: RCHolder, _ target: RCTarget,
                           _ body: (String, any RealmCollection<RCItem>) throws -> Void) rethrows {
        let results = realm.objects(RCItem.self)
        try body("Results", results)
        try body("List", holder.items)
        try body("MutableSet", holder.itemSet)
        try body("LinkingObjects", target.sources)
        try body("AnyRealmCollection(Results)", AnyRealmCollection(results))
        try body("AnyRealmCollection(List)", AnyRealmCollection(holder.items))
        try body("AnyRealmCollection(MutableSet)", AnyRealmCollection(holder.itemSet))
        try body("AnyRealmCollection(LinkingObjects)", AnyRealmCollection(target.sources))
    }

    // MARK: Generic code

    func checkReading<C: RealmCollection>(_ c: C, _ kind: String) where C.Element == RCItem {
        XCTAssertEqual(c.count, 5, kind)
        XCTAssertFalse(c.isEmpty, kind)
        XCTAssertFalse(c.isInvalidated, kind)
        XCTAssertNotNil(c.realm, kind)
        XCTAssertEqual(Set(c.map(\.value)), [1, 2, 3, 4, 5], kind)
        let first = try! XCTUnwrap(c.first, kind)
        XCTAssertNotNil(c.last, kind)
        XCTAssertEqual(c.index(of: first), 0, kind)
        XCTAssertEqual(c.objects(at: IndexSet([0, 2])).map(\.value), [c[0].value, c[2].value], kind)
        XCTAssertTrue(c.description.contains("RCItem"), kind)
        XCTAssertEqual(c, c, kind)
    }

    func checkQueries<C: RealmCollection>(_ c: C, _ kind: String) where C.Element == RCItem {
        XCTAssertEqual(c.filter("value > %@", 2).count, 3, kind)
        XCTAssertEqual(c.where { $0.value > 2 && $0.name == "c" }.count, 2, kind)
        XCTAssertEqual(c.sorted(byKeyPath: "value", ascending: false).map(\.value), [5, 4, 3, 2, 1], kind)
        XCTAssertEqual(c.sorted(by: \.value).map(\.value), [1, 2, 3, 4, 5], kind)
        XCTAssertEqual(c.sorted(by: [SortDescriptor(keyPath: "name", ascending: false), SortDescriptor(keyPath: "value")]).map(\.value),
                       [4, 5, 2, 3, 1], kind)
        XCTAssertEqual(c.distinct(by: ["name"]).count, 3, kind)
        XCTAssertEqual(c.distinct(by: [\RCItem.name]).count, 3, kind)
        let three = c.index(matching: "value == %@", 3)
        XCTAssertEqual(three.map { c[$0].value }, 3, kind)
        XCTAssertEqual(c.index(matching: { $0.value == 4 }).map { c[$0].value }, 4, kind)
        XCTAssertNil(c.index(matching: "value == 42"), kind)
    }

    func checkAggregates<C: RealmCollection>(_ c: C, _ kind: String) where C.Element == RCItem {
        XCTAssertEqual(c.min(ofProperty: "value") as Int?, 1, kind)
        XCTAssertEqual(c.max(ofProperty: "value") as Int?, 5, kind)
        XCTAssertEqual(c.sum(ofProperty: "value") as Int, 15, kind)
        XCTAssertEqual(c.average(ofProperty: "value") as Double?, 3, kind)
        XCTAssertEqual(c.min(of: \.score), 0, kind)
        XCTAssertEqual(c.max(of: \.score), 2, kind)
        XCTAssertEqual(c.sum(of: \.score), 5, kind)
        XCTAssertEqual(c.average(of: \.score) as Double?, 1, kind)
        XCTAssertEqual(c.filter("value > 3").sum(ofProperty: "value") as Int, 9, kind)
    }

    func checkKeyValueCoding<C: RealmCollection>(_ c: C, _ kind: String, _ realm: Realm) where C.Element == RCItem {
        let names = c.value(forKey: "name") as? [Any?]
        XCTAssertEqual(names?.compactMap { $0 as? String }.sorted(), ["a", "b", "b", "c", "c"], kind)
        let targets = c.value(forKeyPath: "target.name") as? [Any?]
        XCTAssertEqual(targets?.compactMap { $0 as? String }, Array(repeating: "t", count: 5), kind)
        try! realm.write { c.setValue(7.5, forKey: "score") }
        XCTAssertEqual(Set(c.map(\.score)), [7.5], kind)
        try! realm.write { for item in c { item.score = Double(item.value - 1) / 2 } }
    }

    func checkFreezing<C: RealmCollection>(_ c: C, _ kind: String, _ realm: Realm) where C.Element == RCItem {
        XCTAssertFalse(c.isFrozen, kind)
        let frozen = c.freeze()
        XCTAssertTrue(frozen.isFrozen, kind)
        try! realm.write { realm.create(RCItem.self, value: ["name": "later", "value": 100]) }
        XCTAssertEqual(frozen.count, 5, "\(kind): a frozen collection keeps its version")
        XCTAssertEqual(frozen.sum(ofProperty: "value") as Int, 15, kind)
        XCTAssertEqual(frozen.filter("value > 2").count, 3, kind)
        let thawed = try! XCTUnwrap(frozen.thaw(), kind)
        XCTAssertFalse(thawed.isFrozen, kind)
        XCTAssertEqual(thawed.count, c.count, kind)
        try! realm.write { realm.delete(realm.objects(RCItem.self).filter("name == 'later'")) }
    }

    /// The initial call, then an update that marks the modified object.
    func checkObserve<C: RealmCollection>(_ c: C, _ kind: String, _ realm: Realm) where C.Element == RCItem {
        var initial: C?
        var modifications: [[Int]] = []
        let token = c.observe { change in
            switch change {
            case .initial(let collection): initial = collection
            case .update(_, _, _, let modified): modifications.append(modified)
            case .error(let error): XCTFail("\(kind): \(error)")
            }
        }
        nextTurn()
        XCTAssertEqual(initial?.count, 5, kind)
        let index = c.index(matching: "value == 3")!
        try! realm.write { c[index].name = "renamed" }
        nextTurn()
        XCTAssertEqual(modifications, [[index]], kind)
        token.invalidate()
        try! realm.write { c[index].name = "b" }
    }

    // MARK: Tests

    func testGenericCodeOverEveryCollectionType() throws {
        let (realm, holder, target) = try makeRealm()
        try realm.write { target.name = "t" }
        objectCollections(realm, holder, target) { kind, c in
            checkReading(c, kind)
            checkQueries(c, kind)
            checkAggregates(c, kind)
            checkKeyValueCoding(c, kind, realm)
        }
    }

    func testGenericObserveAndFreeze() throws {
        let (realm, holder, target) = try makeRealm()
        objectCollections(realm, holder, target) { kind, c in
            checkObserve(c, kind, realm)
            checkFreezing(c, kind, realm)
        }
    }

    /// Generic code observing Swift key paths: only `score` changes count.
    func checkObserveKeyPaths<C: RealmCollection>(_ c: C, _ kind: String, _ realm: Realm) where C.Element == RCItem {
        var updates = 0
        let token = c.observe(keyPaths: [\RCItem.score]) { change in
            if case .update = change { updates += 1 }
        }
        nextTurn()
        try! realm.write { c[0].name = c[0].name }
        nextTurn()
        XCTAssertEqual(updates, 0, "\(kind): name is not observed")
        try! realm.write { c[0].score += 1 }
        nextTurn()
        XCTAssertEqual(updates, 1, kind)
        token.invalidate()
    }

    func testGenericObserveWithKeyPaths() throws {
        let (realm, holder, target) = try makeRealm()
        objectCollections(realm, holder, target) { kind, c in checkObserveKeyPaths(c, kind, realm) }
    }

    func testAnyRealmCollectionObserveDeliversTheErasedCollection() throws {
        let (realm, holder, _) = try makeRealm()
        let erased = AnyRealmCollection(holder.items)
        var seen: [AnyRealmCollection<RCItem>] = [], counts: [Int] = []
        let token = erased.observe { change in
            if case .initial(let c) = change {
                seen.append(c)
                counts.append(c.count)
            }
            if case .update(let c, _, let insertions, _) = change {
                seen.append(c)
                counts.append(c.count)
                XCTAssertEqual(insertions, [5])
            }
        }
        nextTurn()
        try realm.write { holder.items.append(RCItem()) }
        nextTurn()
        XCTAssertEqual(counts, [5, 6])
        XCTAssertEqual(seen.first, erased, "the change carries the same wrapped list")
        token.invalidate()
    }

    func testAggregatesAndErrorsOnCollectionsOfValues() throws {
        let (_, holder, _) = try makeRealm()
        func check<C: RealmCollection>(_ c: C, min: Int, max: Int, sum: Int) where C.Element == Int {
            XCTAssertEqual(c.min(), min)
            XCTAssertEqual(c.max(), max)
            XCTAssertEqual(c.sum(), sum)
            XCTAssertEqual(c.average() as Double?, Double(sum) / 3)
            XCTAssertEqual(c.min(ofProperty: "self") as Int?, min)
            XCTAssertEqual(Array(try c.checkedFilter("self > %@", min)).sorted(), [min * 2, min * 3], "values are queried through self")
            expectRealmError(.invalidValue, mentioning: ["\"self\""]) { _ = try c.checkedSum(ofProperty: "value") as Int }
        }
        check(holder.ints, min: 1, max: 3, sum: 6)
        check(holder.intSet, min: 10, max: 30, sum: 60)
        check(AnyRealmCollection(holder.ints), min: 1, max: 3, sum: 6)
        XCTAssertNil(List<Int>().min(), "an empty collection has no minimum")
        XCTAssertEqual(List<Double>().sum(), 0)
    }

    func testEqualityIsIdentityOfTheCollection() throws {
        let (realm, holder, target) = try makeRealm()
        XCTAssertEqual(realm.objects(RCItem.self), realm.objects(RCItem.self), "every object of one class in one Realm")
        let filtered = realm.objects(RCItem.self).filter("value > 1")
        XCTAssertEqual(filtered, filtered)
        XCTAssertNotEqual(filtered, realm.objects(RCItem.self).filter("value > 1"), "two queries are two Results")
        let again = realm.objects(RCHolder.self).first!
        XCTAssertEqual(holder.items, again.items, "the same list read through two accessors")
        XCTAssertEqual(holder.itemSet, again.itemSet)
        XCTAssertEqual(target.sources, realm.objects(RCTarget.self).first!.sources)
        XCTAssertNotEqual(List<Int>(), List<Int>(), "two unmanaged lists")
        XCTAssertEqual(AnyRealmCollection(holder.items), AnyRealmCollection(again.items))
        XCTAssertNotEqual(AnyRealmCollection(holder.items), AnyRealmCollection(realm.objects(RCItem.self)))
        XCTAssertEqual(AnyRealmCollection(AnyRealmCollection(holder.items)), AnyRealmCollection(holder.items),
                       "wrapping twice wraps the collection once")
    }

    func testAnyRealmCollectionCrossesThreadsAndStaysConfined() throws {
        let (realm, holder, _) = try makeRealm()
        let reference = ThreadSafeReference(to: AnyRealmCollection(holder.items))
        let config = realm.configuration
        let count = onOtherThread(returning: {
            let other = try Realm(configuration: config)
            return other.resolve(reference)?.count ?? -1
        })
        XCTAssertEqual(count, 5)
        XCTAssertEqual(AnyRealmCollection(holder.items).freeze().realm?.isFrozen, true)
    }

    func testObjectsAtOutOfBoundsStops() {
        assertStops("objectsAtOutOfBounds", printing: "Index 9 is out of bounds for a collection of 3 elements.")
    }

    func testNameForKeyPath() {
        XCTAssertEqual(_name(for: \RCItem.target?.name), "target.name")
        XCTAssertEqual(_name(for: \RCHolder.items), "items")
    }
}
