import Foundation
import XCTest
@testable import RealmLite

// Results built from queries: sorting, distinct, aggregates, liveness,
// index use, the where {} builder, and queries on collections.

final class QueryResultsTests: QueryTestCase {
    func addItems(_ realm: Realm, _ rows: [(String, Int, Double?)]) throws {
        try Self.addItems(realm, rows)
    }

    static func addItems(_ realm: Realm, _ rows: [(String, Int, Double?)]) throws {
        try realm.write {
            for (name, rank, score) in rows {
                let item = QItem()
                item.name = name
                item.rank = rank
                item.plainRank = rank
                item.tag = name
                item.plainTag = name
                item.score = score ?? 0
                item.optScore = score
                realm.add(item)
            }
        }
    }

    func testSortDistinctAndAggregates() throws {
        let realm = try openQueryRealm()
        try addItems(realm, [("b", 2, 1.5), ("a", 3, nil), ("c", 1, .nan), ("a", 1, -4)])
        let items = realm.objects(QItem.self)
        XCTAssertEqual(names(items.sorted(byKeyPath: "name")), ["a", "a", "b", "c"])
        XCTAssertEqual(items.sorted(byKeyPath: "name").map(\.rank), [3, 1, 2, 1], "stable: ties keep key order")
        XCTAssertEqual(items.sorted(by: [SortDescriptor(keyPath: "name"), SortDescriptor(keyPath: "rank", ascending: false)]).map(\.rank), [3, 1, 2, 1])
        XCTAssertEqual(items.sorted(by: [SortDescriptor(keyPath: "name"), SortDescriptor(keyPath: "rank")]).map(\.rank), [1, 3, 2, 1])
        XCTAssertEqual(items.sorted(byKeyPath: "rank", ascending: false).map(\.rank), [3, 2, 1, 1])
        XCTAssertEqual(items.sorted(by: [SortDescriptor(keyPath: \QItem.name), SortDescriptor(keyPath: \QItem.rank).reversed()]).map(\.rank), [3, 1, 2, 1])
        // nil first, then NaN, then numbers
        XCTAssertEqual(names(items.sorted(byKeyPath: "optScore")), ["a", "c", "a", "b"])
        XCTAssertEqual(names(items.sorted(by: \.name, ascending: false)), ["c", "b", "a", "a"])
        XCTAssertEqual(names(items.distinct(by: ["name"])), ["b", "a", "c"])
        XCTAssertEqual(items.distinct(by: ["name", "rank"]).count, 4)
        XCTAssertEqual(names(items.sorted(byKeyPath: "rank").distinct(by: ["rank"])), ["c", "b", "a"])
        XCTAssertEqual(names(items.distinct(by: [\QItem.name])), ["b", "a", "c"])
        // filter after sort keeps the order; chained filters AND
        XCTAssertEqual(items.sorted(byKeyPath: "name").filter("rank < 3").map(\.rank), [1, 2, 1])
        XCTAssertEqual(items.filter("rank < 3").filter("name != 'c'").map(\.name), ["b", "a"])

        // SORT / DISTINCT / LIMIT inside the predicate string
        XCTAssertEqual(items.filter("rank > 0 SORT(name ASC, rank DESC)").map(\.rank), [3, 1, 2, 1])
        XCTAssertEqual(names(items.filter("TRUEPREDICATE SORT(rank ASCENDING) DISTINCT(rank)")), ["c", "b", "a"])
        XCTAssertEqual(names(items.filter("name != 'c' SORT(rank DESC) LIMIT(2)")), ["a", "b"])
        XCTAssertEqual(items.filter("TRUEPREDICATE LIMIT(0)").count, 0)
        XCTAssertEqual(names(items.filter("TRUEPREDICATE SORT(rank DESC) LIMIT(2)").filter("name == 'b'")), ["b"])
        XCTAssertEqual(names(items.filter("TRUEPREDICATE SORT(rank DESC) LIMIT(2)").filter("name == 'c'")), [], "filters the 2 kept")
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["ASC or DESC"]) { _ = try items.checkedFilter("rank > 0 SORT(name)") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["LIMIT", "integer"]) { _ = try items.checkedFilter("rank > 0 LIMIT(x)") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["collection"]) { _ = try realm.objects(QOwner.self).checkedFilter("id > 0 SORT(items ASC)") }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["only accepted by filter"]) { _ = try QueryParser.parse("rank > 0 LIMIT(1)", []) }

        XCTAssertEqual(items.min(ofProperty: "rank") as Int?, 1)
        XCTAssertEqual(items.max(ofProperty: "rank") as Int?, 3)
        XCTAssertEqual(items.sum(ofProperty: "rank") as Int, 7)
        XCTAssertEqual(items.average(ofProperty: "rank") as Double?, 1.75)
        XCTAssertEqual(items.sum(ofProperty: "optScore") as Double, -2.5, "nil and NaN are skipped")
        XCTAssertEqual(items.min(ofProperty: "optScore") as Double?, -4)
        XCTAssertEqual(items.filter("rank > 10").average(ofProperty: "rank") as Double?, nil)
        XCTAssertEqual(items.filter("rank > 10").sum(ofProperty: "rank") as Int, 0)
        XCTAssertEqual(items.filter("name == 'a'").max(ofProperty: "rank") as Int?, 3)
        XCTAssertEqual(items.min(of: \.rank), 1)
        XCTAssertEqual(items.max(of: \.optScore), 1.5)
        XCTAssertEqual(items.sum(of: \.rank), 7)
        XCTAssertEqual(items.average(of: \.rank) as Double?, 1.75)
        XCTAssertEqual(items.max(ofProperty: "when") as Date?, Date(timeIntervalSince1970: 0))

        XCTAssertEqual(items.index(matching: "name == 'c'"), 2)
        XCTAssertEqual(items.sorted(byKeyPath: "name").index(matching: "name == 'c'"), 3)
        XCTAssertEqual(items.index(matching: { $0.rank == 1 }), 2)
        XCTAssertNil(items.index(matching: "name == 'zz'"))
        let c = items.filter("name == 'c'").first!
        XCTAssertEqual(items.sorted(byKeyPath: "name").index(of: c), 3)
        XCTAssertEqual(items.sorted(byKeyPath: "name").last?.name, "c")
        XCTAssertEqual(items.sorted(byKeyPath: "name")[1].rank, 1)
        XCTAssertTrue(items.filter("rank == 2").contains { $0.name == "b" })
    }

    func testResultsAreLive() throws {
        let realm = try openQueryRealm()
        try addItems(realm, [("a", 1, nil)])
        let big = realm.objects(QItem.self).filter("rank >= 2").sorted(byKeyPath: "rank", ascending: false)
        let indexed = realm.objects(QItem.self).filter("tag == 'x'")
        XCTAssertEqual(big.count, 0)
        try addItems(realm, [("b", 5, nil), ("x", 3, nil)])
        XCTAssertEqual(big.map(\.name), ["b", "x"])
        XCTAssertEqual(indexed.count, 1)
        try realm.write {
            realm.objects(QItem.self).filter("name == 'a'").first!.rank = 9
            XCTAssertEqual(big.map(\.name), ["a", "b", "x"], "visible inside the write transaction")
            realm.delete(realm.objects(QItem.self).filter("name == 'x'").first!)
            XCTAssertEqual(indexed.count, 0)
        }
        XCTAssertEqual(big.map(\.rank), [9, 5])
        try realm.write { realm.objects(QItem.self).first!.tag = "x" }
        XCTAssertEqual(indexed.map(\.name), ["a"])

        // A cancelled write leaves the Results as before.
        realm.beginWrite()
        realm.objects(QItem.self).first!.rank = 100
        XCTAssertEqual(big.first?.rank, 100)
        realm.cancelWrite()
        XCTAssertEqual(big.map(\.rank), [9, 5])

        // Another thread's commit is seen after refresh.
        let otherBig = realm.objects(QItem.self).filter("rank >= 2")
        XCTAssertEqual(otherBig.count, 2)
        let config = configuration(queryTestTypes)
        onOtherThread {
            let other = try Realm(configuration: config)
            try QueryResultsTests.addItems(other, [("c", 7, nil)])
        }
        XCTAssertEqual(otherBig.count, 2, "snapshot until refresh")
        realm.refresh()
        XCTAssertEqual(otherBig.count, 3)

        // Iteration works on the keys when it started; deleting while iterating is safe.
        try realm.write {
            for item in big { realm.delete(item) }
        }
        XCTAssertEqual(big.count, 0)
        XCTAssertEqual(realm.objects(QItem.self).count, 0)
    }

    /// Indexed (secondary index and primary key), unindexed and plain Swift
    /// filtering agree on random data and random ==/IN/other predicates.
    func testIndexedUnindexedAndSwiftAgree() throws {
        let realm = try openQueryRealm()
        var rng = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 0..<UInt64.max, using: &rng)
        var generator = SplitMix(seed: seed)
        let tags = ["", "a", "b", "ab", "é", "long-" + String(repeating: "x", count: 1100), "long-" + String(repeating: "x", count: 1101)]
        try realm.write {
            for i in 0..<400 {
                let item = QItem()
                let tag = tags[Int(generator.next() % UInt64(tags.count))]
                item.name = "n\(i)"
                item.tag = tag
                item.plainTag = tag
                item.rank = Int(generator.next() % 20) - 10
                item.plainRank = item.rank
                item.optRank = generator.next() % 3 == 0 ? nil : item.rank
                item.flag = generator.next() % 2 == 0
                realm.add(item)
                if i % 4 == 0 {
                    let owner = QOwner()
                    owner.id = Int(generator.next() % 50)
                    if realm.object(ofType: QOwner.self, forPrimaryKey: owner.id) == nil {
                        owner.name = "o\(owner.id)"
                        realm.add(owner)
                    }
                }
            }
            // Some deletions and updates so the indexes have churn.
            for item in realm.objects(QItem.self).filter("rank == 0") { item.tag = "changed"; item.plainTag = "changed" }
            realm.delete(realm.objects(QItem.self).filter("rank == 1"))
        }
        let all = Array(realm.objects(QItem.self))
        for round in 0..<25 {
            let rank = Int(generator.next() % 24) - 12
            let tag = (tags + ["changed", "zz"])[Int(generator.next() % UInt64(tags.count + 2))]
            let ranks = (0..<Int(generator.next() % 4)).map { _ in Int(generator.next() % 24) - 12 }
            let prefix = String(tag.prefix(Int(generator.next() % 1200)))
            let cases: [(String, String, [Any], (QItem) -> Bool)] = [
                ("rank == %@", "plainRank == %@", [rank], { $0.plainRank == rank }),
                ("tag == %@", "plainTag == %@", [tag], { $0.plainTag == tag }),
                ("rank IN %@", "plainRank IN %@", [ranks], { ranks.contains($0.plainRank) }),
                ("tag == %@ AND rank > %@", "plainTag == %@ AND plainRank > %@", [tag, rank], { $0.plainTag == tag && $0.plainRank > rank }),
                ("rank == %@ OR flag == true", "plainRank == %@ OR flag == true", [rank], { $0.plainRank == rank || $0.flag }),
                ("optRank == %@", "optRank == %@", [rank], { $0.optRank == rank }),
                ("optRank == nil AND rank == %@", "optRank == nil AND plainRank == %@", [rank], { $0.optRank == nil && $0.plainRank == rank }),
                ("NOT tag IN %@", "NOT plainTag IN %@", [[tag, "a"]], { !($0.plainTag == tag || $0.plainTag == "a") }),
                ("rank > %@", "plainRank > %@", [rank], { $0.plainRank > rank }),
                ("tag BEGINSWITH %@", "plainTag BEGINSWITH %@", [prefix], { $0.plainTag.utf8.starts(with: prefix.utf8) }),
                ("rank <= %@ AND flag == true", "plainRank <= %@ AND flag == true", [rank], { $0.plainRank <= rank && $0.flag }),
                ("rank BETWEEN %@", "plainRank BETWEEN %@", [[rank, rank + 5]], { $0.plainRank >= rank && $0.plainRank <= rank + 5 }),
                ("optRank < %@", "optRank < %@", [rank], { ($0.optRank ?? .max) < rank }),
                ("optRank >= %@", "optRank >= %@", [Double(rank) + 0.5], { $0.optRank.map { Double($0) >= Double(rank) + 0.5 } ?? false }),
            ]
            for (indexedFormat, plainFormat, args, swiftFilter) in cases {
                let viaIndex = try realm.objects(QItem.self).checkedFilter(indexedFormat, arguments: args)
                let noIndex = try realm.objects(QItem.self).checkedFilter(indexedFormat, arguments: args, useIndexes: false)
                let plain = try realm.objects(QItem.self).checkedFilter(plainFormat, arguments: args)
                let expected = all.filter(swiftFilter).map(\.name)
                XCTAssertEqual(viaIndex.map(\.name), expected, "seed \(seed) round \(round): \(indexedFormat) \(args)")
                XCTAssertEqual(noIndex.map(\.name), expected, "seed \(seed) round \(round): \(indexedFormat) (no index)")
                XCTAssertEqual(plain.map(\.name), expected, "seed \(seed) round \(round): \(plainFormat)")
            }
            let id = Int(generator.next() % 50)
            let owners = try realm.objects(QOwner.self).checkedFilter("id == %@ OR id IN %@", id, [id + 1, id + 2])
            let owners2 = try realm.objects(QOwner.self).checkedFilter("id == %@ OR id IN %@", arguments: [id, [id + 1, id + 2]], useIndexes: false)
            let byKey = try realm.objects(QOwner.self).checkedFilter("id IN %@", [id, id + 1, id + 2])
            let pkRange = try realm.objects(QOwner.self).checkedFilter("id > %@ AND id <= %@", id, id + 10)
            XCTAssertEqual(pkRange.map(\.id), Array(realm.objects(QOwner.self)).filter { $0.id > id && $0.id <= id + 10 }.map(\.id), "seed \(seed)")
            let expectedOwners = Array(realm.objects(QOwner.self)).filter { [id, id + 1, id + 2].contains($0.id) }.map(\.id)
            XCTAssertEqual(owners.map(\.id), expectedOwners, "seed \(seed)")
            XCTAssertEqual(owners2.map(\.id), expectedOwners, "seed \(seed)")
            XCTAssertEqual(byKey.map(\.id), expectedOwners, "seed \(seed)")
        }
    }

    func testIndexProbeIsUsed() throws {
        let realm = try openQueryRealm()
        try addItems(realm, [("a", 1, nil), ("b", 2, nil)])
        guard case .query(let plan) = realm.objects(QItem.self).filter("tag == 'a' AND score > 0").source else { return XCTFail() }
        XCTAssertEqual(plan.compiled?.probe?.column.name, "tag")
        guard case .query(let plan2) = realm.objects(QOwner.self).filter("name == 'x' AND id IN {1, 2}").source else { return XCTFail() }
        XCTAssertEqual(plan2.compiled?.probe?.isPrimaryKey, true)
        guard case .query(let plan3) = realm.objects(QItem.self).filter("tag ==[c] 'a' OR rank == 1").source else { return XCTFail() }
        XCTAssertNil(plan3.compiled?.probe)
        guard case .query(let plan4) = realm.objects(QItem.self).filter("rank BETWEEN {1, 5} AND name == 'a'").source else { return XCTFail() }
        XCTAssertNotNil(plan4.compiled?.probe?.range)
        guard case .query(let plan5) = realm.objects(QItem.self).filter("rank > 1 AND tag == 'b'").source else { return XCTFail() }
        XCTAssertEqual(plan5.compiled?.probe?.column.name, "tag", "equality is preferred over a range")
        guard case .query(let plan6) = realm.objects(QItem.self).filter("tag BEGINSWITH 'a' AND score > 0").source else { return XCTFail() }
        XCTAssertEqual(plan6.compiled?.probe?.prefixScan, true)
        XCTAssertEqual(realm.objects(QItem.self).filter("tag BEGINSWITH ''").count, 2)
        XCTAssertEqual(realm.objects(QOwner.self).filter("name BEGINSWITH 'x'").count, 0)
        try realm.write {
            for key in ["ab", "abc", "b", "a\u{0}b", "", "ab\u{0}"] {
                let o = StringKeyed()
                o.key = key
                realm.add(o)
            }
        }
        let keyed = realm.objects(StringKeyed.self)
        guard case .query(let plan7) = keyed.filter("key BEGINSWITH 'ab'").source else { return XCTFail() }
        XCTAssertEqual(plan7.compiled?.probe?.isPrimaryKey, true)
        XCTAssertEqual(plan7.compiled?.probe?.prefixScan, true)
        XCTAssertEqual(keyed.filter("key BEGINSWITH 'ab'").map(\.key), ["ab", "abc", "ab\u{0}"])
        XCTAssertEqual(keyed.filter("key BEGINSWITH %@", "a\u{0}").map(\.key), ["a\u{0}b"])
        XCTAssertEqual(keyed.filter("key BEGINSWITH ''").count, 6)
        XCTAssertEqual(keyed.filter("key > 'ab' AND key < 'b'").map(\.key), ["abc", "ab\u{0}"])
        XCTAssertEqual(realm.objects(QItem.self).filter("rank > 1").map(\.name), ["b"])
        XCTAssertEqual(realm.objects(QItem.self).filter("rank >= 1 AND rank < 2").map(\.name), ["a"])
    }

    func testWhereBuilder() throws {
        let realm = try openQueryRealm()
        try addItems(realm, [("Lassie", 5, 1.5), ("Lucky", 2, nil), ("rex", 7, 3)])
        try realm.write {
            let owner = QOwner()
            owner.id = 1
            owner.name = "Ann"
            owner.items.append(objectsIn: realm.objects(QItem.self).filter("rank > 3"))
            realm.add(owner)
            for item in owner.items { item.owner = owner }
        }
        let items = realm.objects(QItem.self)
        XCTAssertEqual(names(items.where { $0.rank > 3 && $0.name.starts(with: "L") }), ["Lassie"])
        XCTAssertEqual(names(items.where { $0.rank >= 5 || $0.name == "Lucky" }), ["Lassie", "Lucky", "rex"])
        XCTAssertEqual(names(items.where { $0.name.starts(with: "l", options: .caseInsensitive) }), ["Lassie", "Lucky"])
        XCTAssertEqual(names(items.where { $0.name.ends(with: "X", options: [.caseInsensitive, .diacriticInsensitive]) }), ["rex"])
        XCTAssertEqual(names(items.where { $0.name.contains("ck") }), ["Lucky"])
        XCTAssertEqual(names(items.where { $0.name.like("L*e") }), ["Lassie"])
        XCTAssertEqual(names(items.where { $0.name.equals("REX", options: .caseInsensitive) }), ["rex"])
        XCTAssertEqual(names(items.where { $0.rank.in([2, 7]) }), ["Lucky", "rex"])
        XCTAssertEqual(names(items.where { $0.rank.contains(2...5) }), ["Lassie", "Lucky"])
        XCTAssertEqual(names(items.where { $0.optScore == nil }), ["Lucky"])
        XCTAssertEqual(names(items.where { $0.optScore > 2 }), ["rex"])
        XCTAssertEqual(names(items.where { !($0.rank < 5) }), ["Lassie", "rex"])
        XCTAssertEqual(names(items.where { $0.owner.name == "Ann" }), ["Lassie", "rex"])
        XCTAssertEqual(names(items.where { $0.owner == nil }), ["Lucky"])
        XCTAssertEqual(names(items.where { $0.flag == false && $0.score != 0 }), ["Lassie", "rex"])
        let owners = realm.objects(QOwner.self)
        XCTAssertEqual(owners.where { $0.items.count == 2 }.count, 1)
        XCTAssertEqual(owners.where { $0.items.name == "rex" }.count, 1)
        XCTAssertEqual(owners.where { $0.items.rank > 100 }.count, 0)
        XCTAssertEqual(owners.where { $0.owned.count > 0 }.count, 1)
        let lassie = items.where { $0.name == "Lassie" }.first!
        XCTAssertEqual(owners.where { $0.items.contains(lassie) }.count, 1)
        XCTAssertEqual(names(items.where { $0.owner == owners.first! }), ["Lassie", "rex"])

        // Enums by raw value, dates, decimals through the builder.
        let typed = try openQueryRealm()
        try typed.write {
            for (i, color) in [Color.red, .green, .blue].enumerated() {
                let o = AllTypes()
                o.int = i
                o.color = color
                o.optColor = i == 0 ? nil : color
                o.date = Date(timeIntervalSince1970: Double(i))
                o.decimal = Decimal128(i)
                typed.add(o)
            }
        }
        let allTypes = typed.objects(AllTypes.self)
        XCTAssertEqual(allTypes.where { $0.color == .green }.map(\.int), [1])
        XCTAssertEqual(allTypes.where { $0.optColor == nil }.map(\.int), [0])
        XCTAssertEqual(allTypes.where { $0.color.in([.red, .blue]) }.map(\.int), [0, 2])
        XCTAssertEqual(allTypes.where { $0.date > Date(timeIntervalSince1970: 0.5) }.map(\.int), [1, 2])
        XCTAssertEqual(allTypes.where { $0.decimal >= Decimal128(1) && $0.int8 == 0 }.map(\.int), [1, 2])

        // The builder and the parser produce the same results.
        XCTAssertEqual(names(items.where { $0.rank > 3 && !$0.name.contains("x") }), names(items.filter("rank > 3 AND NOT name CONTAINS 'x'")))

        let bags = try openQueryRealm()
        try bags.write {
            let bag = Bag()
            bag.ints.append(objectsIn: [1, 5])
            bag.tags.insert("t")
            bags.add(bag)
            bags.add(Bag())
        }
        XCTAssertEqual(bags.objects(Bag.self).where { $0.ints.contains(5) }.count, 1)
        XCTAssertEqual(bags.objects(Bag.self).where { $0.ints.sum == 6 }.count, 1)
        XCTAssertEqual(bags.objects(Bag.self).where { $0.ints.avg > 2.9 }.count, 1)
        XCTAssertEqual(bags.objects(Bag.self).where { $0.ints.max == 5 && $0.ints.min == 1 }.count, 1)
        XCTAssertEqual(bags.objects(Bag.self).where { $0.tags.count == 0 }.count, 1)
        XCTAssertEqual(bags.objects(Bag.self).where { $0.tags.contains("t") }.count, 1)

        // Key paths that are not persisted properties are an error, not a crash.
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["persisted"]) {
            _ = try items.checkedWhere { $0.description == "x" }
        }
    }

    func testCollectionQueries() throws {
        let realm = try openQueryRealm()
        try addItems(realm, [("a", 3, 1), ("b", 1, 2), ("c", 2, 3), ("d", 4, 4)])
        let owner = QOwner()
        try realm.write {
            owner.id = 7
            owner.items.append(objectsIn: realm.objects(QItem.self).filter("name IN {'c', 'a', 'b'}").sorted(byKeyPath: "name", ascending: false))
            realm.add(owner)
            for item in realm.objects(QItem.self).filter("name != 'd'") { item.owner = owner }
        }
        XCTAssertEqual(owner.items.map(\.name), ["c", "b", "a"])
        let filtered = owner.items.filter("rank >= 2")
        XCTAssertEqual(filtered.map(\.name), ["c", "a"], "list order is kept")
        XCTAssertEqual(owner.items.sorted(byKeyPath: "rank").map(\.name), ["b", "c", "a"])
        XCTAssertEqual(owner.items.where { $0.score > 1 }.map(\.name), ["c", "b"])
        XCTAssertEqual(owner.items.sum(ofProperty: "rank") as Int, 6)
        XCTAssertEqual(owner.items.max(of: \.score), 3)
        XCTAssertEqual(owner.items.distinct(by: ["owner"]).count, 1)
        XCTAssertEqual(owner.owned.filter("rank < 3").map(\.name), ["b", "c"])
        XCTAssertEqual(owner.owned.sorted(byKeyPath: "rank", ascending: false).map(\.name), ["a", "c", "b"])
        XCTAssertEqual(owner.owned.average(ofProperty: "rank") as Double?, 2)
        try realm.write { owner.items.remove(at: 0) }
        XCTAssertEqual(filtered.map(\.name), ["a"], "collection queries are live too")
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["managed"]) { _ = try List<QItem>().checkedFilter("rank > 1") }

        // Key paths through to-one links, sorting by a linked property.
        try realm.write {
            let other = QOwner()
            other.id = 1
            other.name = "Zed"
            realm.add(other)
            realm.objects(QItem.self).filter("name == 'd'").first!.owner = other
            owner.name = "Amy"
        }
        let byOwner = realm.objects(QItem.self).sorted(by: \.owner?.name, ascending: false)
        XCTAssertEqual(byOwner.first?.name, "d")
        XCTAssertEqual(try KeyPathRecorder.name(of: \QItem.owner?.name, root: QItem.self), "owner.name")
        XCTAssertEqual(names(realm.objects(QItem.self).sorted(byKeyPath: "owner.name").filter("owner.id == 7")), ["a", "b", "c"])
        XCTAssertTrue(realm.objects(QItem.self).filter("rank == 4").description.contains("Results<QItem> <1>"))
    }

    func testMutableSetQueries() throws {
        let realm = try openQueryRealm()
        try realm.write {
            let owner = Owner()
            owner.id = 1
            for (name, kind) in [("Tom", "cat"), ("Rex", "dog"), ("Kit", "cat")] {
                let pet = Pet()
                pet.name = name
                pet.kind = kind
                owner.petSet.insert(pet)
            }
            realm.add(owner)
        }
        let owner = realm.objects(Owner.self).first!
        XCTAssertEqual(Set(owner.petSet.filter("kind == 'cat'").map(\.name)), ["Tom", "Kit"])
        XCTAssertEqual(owner.petSet.sorted(byKeyPath: "name").map(\.name), ["Kit", "Rex", "Tom"])
        XCTAssertEqual(owner.petSet.where { $0.kind == "dog" }.count, 1)
        XCTAssertEqual(owner.petSet.distinct(by: ["kind"]).count, 2)
    }
}

/// A small deterministic generator so failures print a reproducible seed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
