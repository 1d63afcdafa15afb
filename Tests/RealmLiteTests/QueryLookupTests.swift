import Foundation
import XCTest
@testable import RealmLite

// Lookups by an indexed property (QueryCompiler+Lookup.swift): compiled
// without the general compiler, and read through the transaction's shared
// index cursor. Their answers must be the general compiler's.

final class QueryLookupTests: QueryTestCase {
    private func predicate(_ build: (Query<QItem>) -> Query<Bool>) throws -> QueryPredicate {
        try build(Query<QItem>(path: [])).predicate()
    }

    func testOnlyTheLookupShapeTakesTheShortCompile() throws {
        let realm = try openQueryRealm()
        let compiler = QueryCompiler(info: try realm.core.classInfo(for: QItem.self), format: "")
        XCTAssertNotNil(compiler.indexedEquality(try predicate { $0.tag == "x" }))
        XCTAssertNotNil(compiler.indexedEquality(try predicate { $0.rank == 3 }))
        XCTAssertNotNil(compiler.indexedEquality(try predicate { $0.optRank == 3 }))
        XCTAssertNotNil(compiler.indexedEquality(try QueryParser.parse("tag == %@", ["x"])))
        // Everything else goes to the general compiler.
        XCTAssertNil(compiler.indexedEquality(try predicate { $0.plainTag == "x" }))        // no index
        XCTAssertNil(compiler.indexedEquality(try predicate { $0.tag != "x" }))
        XCTAssertNil(compiler.indexedEquality(try predicate { $0.tag.equals("x", options: .caseInsensitive) }))
        XCTAssertNil(compiler.indexedEquality(try predicate { $0.optRank == nil }))
        XCTAssertNil(compiler.indexedEquality(try QueryParser.parse("rank == 3.0", [])))    // a Double constant
        XCTAssertNil(compiler.indexedEquality(try QueryParser.parse("'x' == tag", [])))     // not normalized
        XCTAssertNil(compiler.indexedEquality(try predicate { $0.tag == "x" && $0.rank == 1 }))
        var scanning = compiler
        scanning.useIndexes = false
        XCTAssertNil(scanning.indexedEquality(try predicate { $0.tag == "x" }))
        XCTAssertNil(try QueryCompiler(info: realm.core.classInfo(for: QOwner.self), format: "")
            .indexedEquality(QueryParser.parse("id == 1", [])))                             // a primary key
    }

    func testLookupColumnsAreTheIndexedStringAndIntScalars() throws {
        // A lookup finds its column among these by name; any other
        // property (unindexed, a primary key, a link, a collection) is nil
        // there and goes to the general compiler.
        let realm = try openQueryRealm()
        let item = try realm.core.classInfo(for: QItem.self)
        XCTAssertEqual(Set(item.lookupColumns.map(\.name)), ["tag", "rank", "optRank"])
        XCTAssertEqual(item.lookupColumn(named: "rank")?.name, "rank")
        XCTAssertTrue(item.lookupColumn(named: "tag") === item.columns[item.descriptor.propertyIndex["tag"]!])
        for name in ["name", "plainTag", "owner", "", "Tag", "tag "] { XCTAssertNil(item.lookupColumn(named: name), name) }
        let owner = try realm.core.classInfo(for: QOwner.self)
        XCTAssertTrue(owner.lookupColumns.isEmpty)
        XCTAssertNil(owner.lookupColumn(named: "id"))
    }

    func testLookupsAnswerAsTheGeneralCompiler() throws {
        let realm = try openQueryRealm()
        // Embedded NULs, the empty string, non-ASCII, and strings longer
        // than an index key keeps (their keys are truncated: the filter
        // tells them apart); numbers at the ends of Int64.
        let long = String(repeating: "L", count: 3000)
        let strings = ["", "a", "a\u{0}b", "a\u{0}", "é", "e\u{301}", long + "1", long + "2", "x", "x"]
        let ints: [Int] = [.min, -1, 0, 1, .max, 0, 7]
        try realm.write {
            for (i, s) in strings.enumerated() {
                let item = QItem()
                item.tag = s
                item.rank = ints[i % ints.count]
                item.optRank = i % 3 == 0 ? nil : ints[i % ints.count]
                item.plainRank = i
                realm.add(item)
            }
        }
        let items = realm.objects(QItem.self)
        func order(_ results: Results<QItem>) -> [Int] { results.map(\.plainRank) }
        for s in strings + ["b", long, "a\u{0}c", "E"] {
            let general = try items.checkedFilter("tag == %@", arguments: [s], useIndexes: false)
            XCTAssertEqual(order(items.where { $0.tag == s }), order(general), "tag == \(s.prefix(8))")
            XCTAssertEqual(items.where { $0.tag == s }.first?.plainRank, general.first?.plainRank)
            XCTAssertEqual(items.filter("tag == %@", s).count, general.count)
        }
        for v in ints + [2, -2] {
            let general = try items.checkedFilter("rank == %@", arguments: [v], useIndexes: false)
            XCTAssertEqual(order(items.where { $0.rank == v }), order(general), "rank == \(v)")
            let optional = try items.checkedFilter("optRank == %@", arguments: [v], useIndexes: false)
            XCTAssertEqual(order(items.where { $0.optRank == v }), order(optional), "optRank == \(v)")
            XCTAssertEqual(items.where { $0.optRank == v }.first?.plainRank, optional.first?.plainRank)
        }
    }

    func testLookupsInsideAWriteSeeItsChanges() throws {
        // The write transaction's shared index cursor, moved by each lookup,
        // must find what the puts between them added, changed and removed.
        let realm = try openQueryRealm()
        let items = realm.objects(QItem.self)
        try realm.write {
            for i in 0..<300 {
                let item = QItem()
                item.tag = "n\(i)"
                item.plainRank = i
                realm.add(item)
                XCTAssertEqual(items.where { $0.tag == "n\(i)" }.first?.plainRank, i)
                if i % 7 == 0, let earlier = items.where({ $0.tag == "n\(i / 2)" }).first {
                    earlier.tag = "moved\(i / 2)"
                }
            }
            XCTAssertNil(items.where { $0.tag == "n0" }.first)
            XCTAssertEqual(items.where { $0.tag == "moved7" }.first?.plainRank, 7)
            realm.delete(items.where { $0.tag == "n299" }.first!)
            XCTAssertNil(items.where { $0.tag == "n299" }.first)
        }
        XCTAssertEqual(items.where { $0.tag == "n298" }.first?.plainRank, 298)
        XCTAssertNil(items.where { $0.tag == "n299" }.first)
    }

    func testALookupWhileIteratingTheSameIndex() throws {
        // Iteration and lookups share the transaction's cursors: a lookup in
        // the loop's body must leave the iteration where it was.
        let realm = try openQueryRealm()
        try QueryResultsTests.addItems(realm, (0..<600).map { ("t\($0 % 200)", $0, nil) })
        let items = realm.objects(QItem.self)
        var seen = 0
        for item in items.where({ $0.tag.starts(with: "t1") }) {
            XCTAssertEqual(items.where { $0.tag == item.tag }.first?.rank, item.rank % 200)
            seen += 1
        }
        XCTAssertEqual(seen, 3 * 111)
    }
}
