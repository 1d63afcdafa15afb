import Foundation
import XCTest
@testable import RealmLite

// `first` of a query: the first match in the Results' order, found without
// evaluating every match when nothing reorders them (an index read in key
// order, or a scan that stops at the match).

final class QueryFirstTests: QueryTestCase {
    func testFirstIsTheFirstMatchInKeyOrder() throws {
        let realm = try openQueryRealm()
        try QueryResultsTests.addItems(realm, [("x", 1, nil), ("y", 2, nil), ("x", 3, nil), ("x", 4, nil), ("z", 5, nil)])
        let items = realm.objects(QItem.self)
        // Through the index (tag) and by scanning (plainTag).
        XCTAssertEqual(items.where { $0.tag == "x" }.first?.rank, 1)
        XCTAssertEqual(items.where { $0.plainTag == "x" }.first?.rank, 1)
        XCTAssertEqual(items.filter("tag == %@", "z").first?.rank, 5)
        // The filter rejects the index's first candidates.
        XCTAssertEqual(items.where { $0.tag == "x" && $0.plainRank > 1 }.first?.rank, 3)
        XCTAssertEqual(items.where { $0.plainTag == "x" && $0.plainRank > 3 }.first?.rank, 4)
        XCTAssertNil(items.where { $0.tag == "x" && $0.plainRank > 10 }.first)
        XCTAssertNil(items.where { $0.tag == "w" }.first)
        XCTAssertNil(items.where { $0.plainTag == "w" }.first)
        // Several values, sorts and the last match: every match decides.
        XCTAssertEqual(items.filter("tag IN {'z', 'y'}").first?.rank, 2)
        XCTAssertEqual(items.where { $0.tag == "x" }.sorted(byKeyPath: "rank", ascending: false).first?.rank, 4)
        XCTAssertEqual(items.where { $0.tag == "x" }.last?.rank, 4)
        XCTAssertEqual(items.filter("tag == 'x' SORT(rank DESC) LIMIT(2)").first?.rank, 4)
    }

    func testFirstFollowsWritesAndSnapshots() throws {
        let realm = try openQueryRealm()
        try QueryResultsTests.addItems(realm, [("x", 1, nil), ("x", 2, nil), ("x", 3, nil)])
        let indexed = realm.objects(QItem.self).where { $0.tag == "x" }
        let scanned = realm.objects(QItem.self).where { $0.plainTag == "x" }
        XCTAssertEqual(indexed.first?.rank, 1)
        XCTAssertEqual(indexed.count, 3) // evaluated: later reads of this snapshot use the rows
        XCTAssertEqual(indexed.first?.rank, 1)
        let frozen = indexed.freeze()
        try realm.write { realm.delete(indexed.first!) }
        XCTAssertEqual(indexed.first?.rank, 2)
        XCTAssertEqual(scanned.first?.rank, 2)
        XCTAssertEqual(frozen.first?.rank, 1)
        try realm.write { realm.delete(realm.objects(QItem.self)) }
        XCTAssertNil(indexed.first)
        XCTAssertNil(scanned.first)
    }

    func testFirstOfAScanSpanningManyBatches() throws {
        let realm = try openQueryRealm()
        // More rows than one engine batch or leaf: the match is far in.
        try QueryResultsTests.addItems(realm, (0..<3000).map { ("n\($0 % 1000)", $0, nil) })
        let items = realm.objects(QItem.self)
        XCTAssertEqual(items.where { $0.plainTag == "n777" }.first?.rank, 777)
        XCTAssertEqual(items.where { $0.plainTag == "n777" && $0.plainRank > 777 }.first?.rank, 1777)
        XCTAssertEqual(items.where { $0.tag == "n999" && $0.plainRank > 1000 }.first?.rank, 1999)
        XCTAssertEqual(items.where { $0.name.starts(with: "n99") && $0.plainRank > 2990 }.first?.rank, 2991)
        XCTAssertNil(items.where { $0.plainTag == "n1000" }.first)
    }
}
