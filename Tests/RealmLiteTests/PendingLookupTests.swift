import Foundation
import XCTest
@testable import RealmLite

// A lone indexed equality's Results keeps its lookup pending (no QueryPlan)
// until something beyond first/count reads it (QueryCompiler+Lookup.swift).
// Pending or built, it must answer as the general compiler, stay live, and
// notify.

final class PendingLookupTests: QueryTestCase {
    private func add(_ realm: Realm, _ rows: [(tag: String, rank: Int, optRank: Int?, plainRank: Int)]) throws {
        try realm.write {
            for row in rows {
                let item = QItem()
                (item.tag, item.rank, item.optRank, item.plainRank) = (row.tag, row.rank, row.optRank, row.plainRank)
                realm.add(item)
            }
        }
    }

    func testOnlyALoneIndexedEqualityIsPending() throws {
        let realm = try openQueryRealm()
        let items = realm.objects(QItem.self)
        XCTAssertNotNil(items.where { $0.tag == "x" }.pending)
        XCTAssertNotNil(items.where { $0.rank == 1 }.pending)
        XCTAssertNotNil(items.where { $0.optRank == 1 }.pending)
        XCTAssertNotNil(items.filter("tag == %@", "x").pending)
        XCTAssertNil(items.where { $0.plainTag == "x" }.pending)
        XCTAssertNil(items.where { $0.tag != "x" }.pending)
        XCTAssertNil(items.sorted(byKeyPath: "rank").where { $0.tag == "x" }.pending)
        XCTAssertNil(items.where { $0.rank > 0 }.where { $0.tag == "x" }.pending)
        // A frozen Results is read by several threads: its plan is built at once.
        XCTAssertNil(items.freeze().where { $0.tag == "x" }.pending)
        // Reading it as a query (here: its description) builds the plan.
        let lookup = items.where { $0.tag == "x" }
        _ = lookup.description
        XCTAssertNil(lookup.pending)
    }

    /// The same answers as the general compiler for String, Int and
    /// optional Int columns, read pending (first, count) and built
    /// (iteration, subscript, last, chained), and held across writes.
    func testPendingAndBuiltAnswerAsTheGeneralCompilerAcrossWrites() throws {
        let realm = try openQueryRealm()
        let long = String(repeating: "L", count: 3000)
        try add(realm, [("a", 1, nil, 0), ("b", 2, 2, 1), (long + "1", 1, 1, 2), ("é", -1, -1, 3)])
        let items = realm.objects(QItem.self)
        let tags = ["a", "b", "c", long + "1", long + "2", "é", "e\u{301}"]
        let ints = [1, 2, 3, -1]
        typealias Case = (name: String, pending: Results<QItem>, general: Results<QItem>)
        var held: [Case] = []
        for s in tags {
            held.append(("tag == \(s.prefix(8))", items.where { $0.tag == s },
                         try items.checkedFilter("tag == %@", arguments: [s], useIndexes: false)))
        }
        for v in ints {
            held.append(("rank == \(v)", items.where { $0.rank == v },
                         try items.checkedFilter("rank == %@", arguments: [v], useIndexes: false)))
            held.append(("optRank == \(v)", items.filter("optRank == %@", v),
                         try items.checkedFilter("optRank == %@", arguments: [v], useIndexes: false)))
        }
        func check(_ step: String) {
            for c in held {
                XCTAssertEqual(c.pending.first?.plainRank, c.general.first?.plainRank, "\(step): \(c.name) first")
                XCTAssertEqual(c.pending.count, c.general.count, "\(step): \(c.name) count")
            }
        }
        check("initial")
        XCTAssertTrue(held.allSatisfy { $0.pending.pending != nil }, "first and count build no plan")
        // Writes: new matches, a changed value, a deletion, all seen by the held Results.
        try add(realm, [("c", 3, 3, 4), ("a", 2, 1, 5), (long + "2", 3, nil, 6), ("e\u{301}", 1, 2, 7)])
        check("after adding")
        try realm.write {
            items.where { $0.tag == "a" }.first!.tag = "b"
            items.where { $0.rank == 2 }.first!.optRank = nil
            realm.delete(items.where { $0.tag == long + "1" }.first!)
        }
        check("after changing")
        XCTAssertTrue(held.allSatisfy { $0.pending.pending != nil })
        // Built: every other read, then more writes.
        for c in held {
            XCTAssertEqual(c.pending.map(\.plainRank), c.general.map(\.plainRank), c.name)
            // (An empty Results is mapped from its count alone.)
            XCTAssertTrue(c.pending.pending == nil || c.general.isEmpty, "\(c.name): iteration builds the plan")
            XCTAssertEqual(c.pending.last?.plainRank, c.general.last?.plainRank, c.name)
            XCTAssertEqual(c.pending.where { $0.plainRank >= 5 }.map(\.plainRank),
                           c.general.where { $0.plainRank >= 5 }.map(\.plainRank), c.name)
        }
        try add(realm, [("a", 1, 1, 8), ("b", 2, 2, 9)])
        check("built, after adding")
        for c in held { XCTAssertEqual(c.pending.map(\.plainRank), c.general.map(\.plainRank), c.name) }
    }

    /// The builder's nodes from generic code (a Query<T> of unknown T): a
    /// failure made by one comparison operator survives the next ones and is
    /// thrown with its message; constants of other types than the plain four
    /// take the general comparison.
    func testBuilderFailuresAndGeneralConstantsThroughGenericCode() throws {
        let realm = try openQueryRealm()
        try add(realm, [("a", 1, nil, 0), ("b", 2, 2, 1)])
        func query<T: Object>(_ results: Results<T>, _ build: (Query<T>) -> Query<Bool>) throws -> [T] {
            Array(try results.checkedWhere(build))
        }
        let items = realm.objects(QItem.self)
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["a predicate cannot be compared"]) {
            _ = try query(items) { ($0.tag == "a") == true }
        }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["a predicate cannot be compared"]) {
            _ = try query(items) { (($0.tag == "a") != false) == true && $0.rank == 1 }
        }
        XCTAssertEqual(try query(items) { $0.tag == "b" && $0.rank != 1 }.map(\.plainRank), [1])
        XCTAssertEqual(try query(items) { $0.when == Date(timeIntervalSince1970: 0) && $0.optRank == nil }.map(\.plainRank), [0])
        XCTAssertEqual(try query(items) { $0.rank >= Int(2) || $0.tag < "b" }.map(\.plainRank), [0, 1])
    }

    /// `$0.property == constant` for a String or Int is an equality node,
    /// which `where` reads into a lookup without a predicate tree; every
    /// other use builds the comparison the general path always built.
    func testAnEqualityOfAPathAndAStringOrIntIsANodeOfItsOwn() throws {
        let realm = try openQueryRealm()
        try add(realm, [("a", 1, nil, 0), ("b", 2, 2, 1)])
        let info = realm.objects(QItem.self).queryParts.info
        let root = Query<QItem>(.root(info))
        guard case .equality(let path, .string(let s)) = (root.tag == "b").node else { return XCTFail("String ==") }
        XCTAssertEqual(path, ["tag"])
        XCTAssertEqual(s, "b")
        guard case .equality(_, .int(let v)) = (root.plainRank == 7).node else { return XCTFail("Int ==") }
        XCTAssertEqual(v, 7)
        // Optionals, other operators and other constants stay predicates.
        guard case .predicate = (root.optRank == 2).node, case .predicate = (root.tag != "b").node,
              case .predicate = (root.score == 1.5).node else { return XCTFail("not an equality") }
        guard case .comparison(let c) = try (root.tag == "b").predicate(), case .keyPath(["tag"], _) = c.left,
              case .value(.string("b"), _) = c.right, c.op == .equal, !c.caseInsensitive else { return XCTFail("the comparison") }
        // The lookup itself holds no predicate until its plan is built.
        let items = realm.objects(QItem.self)
        let lookup = items.where { $0.tag == "b" }
        XCTAssertEqual(lookup.pending?.lookup.holdsPredicate, false)
        XCTAssertEqual(lookup.where { $0.rank == 2 }.map(\.plainRank), [1])
        XCTAssertEqual(items.filter("tag == %@", "b").pending?.lookup.holdsPredicate, true)
        // An unindexed column, or a path through a link, take the general path.
        XCTAssertEqual(items.where { $0.plainTag == "" }.count, 2)
        XCTAssertNil(items.where { $0.plainTag == "" }.pending)
        XCTAssertEqual(items.where { $0.owner.name == "x" }.count, 0)
    }

    /// `$0` of a Results of objects keeps the names of the key paths used
    /// on it in the class, by key path identity, up to a bound; key paths
    /// made at run time beyond it still work.
    func testTheRootCachesKeyPathNamesInTheClass() throws {
        let realm = try openQueryRealm()
        try add(realm, [("a", 1, nil, 0), ("b", 2, 2, 1)])
        let items = realm.objects(QItem.self)
        let info = items.queryParts.info
        let tag: KeyPath<QItem, String> = \.tag
        XCTAssertNil(info.keyPathNames.names(of: tag))
        XCTAssertEqual(items.where { $0[dynamicMember: tag] == "b" }.first?.plainRank, 1)
        XCTAssertEqual(info.keyPathNames.names(of: tag), ["tag"])
        XCTAssertEqual(items.where { $0[dynamicMember: tag] == "a" }.first?.plainRank, 0)
        for _ in 0..<3 {
            let rank = (\QItem.self).appending(path: \QItem.plainRank)
            XCTAssertEqual(items.where { $0[dynamicMember: rank] == 1 }.map(\.plainRank), [1])
        }
        // Bounded: past the bound, key paths are not kept.
        let table = KeyPathNames()
        let paths: [AnyKeyPath] = [\QItem.name, \QItem.tag, \QItem.rank, \QItem.optRank, \QItem.plainTag, \QItem.plainRank,
                                   \QItem.score, \QItem.optScore, \QItem.when, \QItem.flag, \QItem.owner, \QItem.name.count,
                                   \QItem.tag.count, \QItem.plainTag.count, \QItem.name.isEmpty, \QItem.tag.isEmpty,
                                   \QItem.plainTag.isEmpty, \QItem.rank.bitWidth]
        for (i, path) in paths.enumerated() { table.remember(path, ["\(i)"]) }
        table.remember(paths[0], ["again"])
        XCTAssertEqual(table.names(of: paths[0]), ["0"])
        XCTAssertEqual(table.names(of: paths[15]), ["15"])
        XCTAssertNil(table.names(of: paths[16]))
    }

    func testAPendingLookupNotifies() throws {
        let realm = try openQueryRealm()
        try add(realm, [("a", 1, nil, 0), ("b", 2, nil, 1)])
        let lookup = realm.objects(QItem.self).where { $0.tag == "a" }
        XCTAssertEqual(lookup.first?.plainRank, 0)
        var log: [String] = []
        let token = lookup.observe { change in
            switch change {
            case .initial(let results): log.append("initial \(results.map(\.plainRank))")
            case .update(let results, let deletions, let insertions, _):
                log.append("update \(results.map(\.plainRank)) -\(deletions) +\(insertions)")
            case .error: log.append("error")
            }
        }
        nextTurn()
        try add(realm, [("a", 3, nil, 2), ("c", 4, nil, 3)])
        nextTurn()
        try realm.write { realm.delete(lookup.first!) }
        nextTurn()
        XCTAssertEqual(log, ["initial [0]", "update [0, 2] -[] +[1]", "update [2] -[0] +[]"])
        XCTAssertEqual(lookup.count, 1)
        token.invalidate()
    }
}
