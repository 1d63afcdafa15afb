import Foundation
import XCTest
@testable import RealmLite

// What queries keep between calls (QueryPathCache.swift, KeyPathRecorder):
// a property's resolved path per class, key-path names by identity. A kept
// piece must serve every constant and every file with its own answer.

final class QueryCacheTests: QueryTestCase {
    func testOneKeptPathServesEveryConstant() throws {
        let realm = try openQueryRealm()
        try QueryResultsTests.addItems(realm, [("x", 1, nil), ("y", 2, 2.5), ("z", 3, nil), ("y", 4, nil)])
        let info = try realm.core.classInfo(for: QItem.self)
        let tag = info.descriptor.propertyIndex["tag"]!, plainTag = info.descriptor.propertyIndex["plainTag"]!
        let owner = info.descriptor.propertyIndex["owner"]!
        XCTAssertFalse(info.directPaths.isCached(tag))
        let items = realm.objects(QItem.self)
        for (value, rank) in [("x", 1), ("y", 2), ("z", 3)] {
            XCTAssertEqual(items.where { $0.tag == value }.first?.rank, rank)
            XCTAssertEqual(items.filter("tag == %@", value).first?.rank, rank)
            XCTAssertEqual(items.where { $0.plainTag == value }.first?.rank, rank)
            XCTAssertEqual(items.filter("plainTag == %@", value).count, value == "y" ? 2 : 1)
        }
        // An indexed lookup compiles without a path (QueryCompiler+Lookup.swift).
        XCTAssertFalse(info.directPaths.isCached(tag))
        XCTAssertTrue(info.directPaths.isCached(plainTag))
        // Other operators and types on the same kept paths.
        XCTAssertEqual(items.where { $0.tag != "y" }.map(\.rank), [1, 3])
        XCTAssertTrue(info.directPaths.isCached(tag))
        XCTAssertEqual(items.where { $0.tag > "x" }.map(\.rank), [2, 3, 4])
        XCTAssertNil(items.where { $0.tag == "w" }.first)
        XCTAssertEqual(items.where { $0.optScore == nil }.count, 3)
        XCTAssertEqual(items.where { $0.optScore == 2.5 }.first?.rank, 2)
        XCTAssertThrowsError(try items.checkedFilter("tag == %@", 3))
        XCTAssertEqual(items.sorted(byKeyPath: "plainTag", ascending: false).first?.rank, 3)
        // A path through a link is resolved per query (it holds the linked class).
        XCTAssertEqual(items.where { $0.owner.name == "nobody" }.count, 0)
        XCTAssertFalse(info.directPaths.isCached(owner))
    }

    func testEachFileKeepsItsOwnPaths() throws {
        // The same class in two files: each file has its own ClassInfo,
        // so its own kept paths, which read its own records.
        let first = try openQueryRealm()
        try QueryResultsTests.addItems(first, [("a", 1, nil), ("b", 2, nil)])
        XCTAssertEqual(first.objects(QItem.self).where { $0.plainTag == "b" }.first?.rank, 2)
        let second = try Realm(configuration: configuration(queryTestTypes, file: "second.realm"))
        try QueryResultsTests.addItems(second, [("b", 7, nil), ("c", 8, nil)])
        XCTAssertEqual(second.objects(QItem.self).where { $0.plainTag == "b" }.first?.rank, 7)
        XCTAssertEqual(first.objects(QItem.self).where { $0.plainTag == "b" }.first?.rank, 2)
        XCTAssertFalse(try first.core.classInfo(for: QItem.self) === second.core.classInfo(for: QItem.self))
    }

    func testKeyPathNamesByIdentityAndByValue() throws {
        let realm = try openQueryRealm()
        try QueryResultsTests.addItems(realm, [("x", 1, nil), ("y", 2, nil)])
        let items = realm.objects(QItem.self)
        // Key paths made at run time are new objects each time: found by value.
        for _ in 0..<3 {
            let path: KeyPath<QItem, String> = (\QItem.self).appending(path: \QItem.plainTag)
            XCTAssertEqual(items.sorted(by: path, ascending: false).first?.rank, 2)
        }
        XCTAssertEqual(items.sorted(by: \.tag).first?.rank, 1)
        XCTAssertEqual(items.sorted(by: \.rank, ascending: false).first?.rank, 2)
    }
}
