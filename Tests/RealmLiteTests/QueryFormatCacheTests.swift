import Foundation
import XCTest
@testable import RealmLite

// Formats kept by QueryFormatCache (parsed once, the argument put in per
// call) and lookups compiled to an IndexedLookup (QueryCompiler+Lookup.swift),
// whose `first` and `count` read the index without a general evaluation.

final class QueryFormatCacheTests: QueryTestCase {
    private func addTags(_ realm: Realm, _ tags: [String]) throws {
        try realm.write {
            for (i, tag) in tags.enumerated() {
                let item = QItem()
                item.tag = tag
                item.plainTag = tag
                item.rank = i
                item.plainRank = i
                realm.add(item)
            }
        }
    }

    func testOneKeptFormatAnswersEachArgument() throws {
        let realm = try openQueryRealm()
        try addTags(realm, ["a", "b", "b", "c"])
        let items = realm.objects(QItem.self)
        let format = "tag == %@"
        XCTAssertEqual(items.filter(format, "b").map(\.plainRank), [1, 2])
        XCTAssertTrue(QueryFormatCache.isComparison(format))
        XCTAssertEqual(items.filter(format, "a").map(\.plainRank), [0])
        XCTAssertEqual(items.filter(format, "c").first?.plainRank, 3)
        XCTAssertEqual(items.filter(format, "b").count, 2)
        XCTAssertNil(items.filter(format, "d").first)
        // Another type of argument than the one kept is parsed.
        XCTAssertEqual(items.filter("rank == %@", 2).first?.plainRank, 2)
        XCTAssertEqual(items.filter("rank == %@", 3).first?.plainRank, 3)
        XCTAssertEqual(items.filter("rank == %@", 2.0).first?.plainRank, 2)
        // Another class with a property of the same name, unindexed there.
        XCTAssertEqual(realm.objects(QOwner.self).filter("name == %@", "x").count, 0)
        XCTAssertEqual(items.filter("name == %@", "").count, 4)
    }

    func testAFormatWhoseValueIsNotItsArgumentIsParsedEachTime() throws {
        let realm = try openQueryRealm()
        try addTags(realm, ["tag", "plainTag", "x"])
        let items = realm.objects(QItem.self)
        // %K names the property: the value is the literal.
        XCTAssertEqual(items.filter("%K == 'tag'", "tag").map(\.plainRank), [0])
        XCTAssertFalse(QueryFormatCache.isComparison("%K == 'tag'"))
        XCTAssertEqual(items.filter("%K == 'tag'", "plainTag").map(\.plainRank), [0])
        // Arithmetic on the argument: 0 * 0 is the argument only by chance.
        XCTAssertEqual(items.filter("rank == 0 * %@", 0).map(\.plainRank), [0])
        XCTAssertFalse(QueryFormatCache.isComparison("rank == 0 * %@"))
        XCTAssertEqual(items.filter("rank == 0 * %@", 2).map(\.plainRank), [0])
        XCTAssertEqual(items.filter("rank == 2 + %@", 0).map(\.plainRank), [2])
        XCTAssertEqual(items.filter("rank == 2 + %@", -1).map(\.plainRank), [1])
    }

    func testAHeldLookupSeesLaterWrites() throws {
        // Nothing of a lookup is evaluated ahead: each `first` and `count`
        // reads the index of the Realm's current version.
        let realm = try openQueryRealm()
        let lookup = realm.objects(QItem.self).where { $0.tag == "x" }
        let byRank = realm.objects(QItem.self).filter("rank == %@", 5)
        XCTAssertNil(lookup.first)
        XCTAssertEqual(lookup.count, 0)
        try addTags(realm, ["y", "x"])
        XCTAssertEqual(lookup.first?.plainRank, 1)
        XCTAssertEqual(lookup.count, 1)
        try realm.write {
            let item = QItem()
            item.tag = "x"
            item.rank = 5
            item.plainRank = 7
            realm.add(item)
            XCTAssertEqual(lookup.count, 2)
            XCTAssertEqual(byRank.first?.plainRank, 7)
        }
        XCTAssertEqual(lookup.map(\.plainRank), [1, 7])
        try realm.write { lookup.first!.tag = "z" }
        XCTAssertEqual(lookup.first?.plainRank, 7)
        XCTAssertEqual(lookup.count, 1)
        try realm.write { realm.delete(byRank.first!) }
        XCTAssertNil(lookup.first)
        XCTAssertEqual(lookup.count, 0)
        XCTAssertNil(byRank.first)
        // A frozen lookup keeps its version.
        try addTags(realm, ["x"])
        let frozen = lookup.freeze()
        try realm.write { realm.delete(lookup) }
        XCTAssertEqual(lookup.count, 0)
        XCTAssertEqual(frozen.count, 1)
        XCTAssertEqual(frozen.first?.tag, "x")
    }

    func testALookupOfAnotherFileUsesThatFilesIndex() throws {
        // Two files, the same format and class: each query reads its own
        // file's index (a shape is the ClassInfo's, one per file).
        let first = try openQueryRealm()
        let second = try Realm(configuration: configuration(queryTestTypes, file: "other.realm"))
        try addTags(first, ["a", "b"])
        try addTags(second, ["b", "a", "a"])
        for _ in 0..<2 {
            XCTAssertEqual(first.objects(QItem.self).filter("tag == %@", "a").map(\.plainRank), [0])
            XCTAssertEqual(second.objects(QItem.self).filter("tag == %@", "a").map(\.plainRank), [1, 2])
            XCTAssertEqual(second.objects(QItem.self).where { $0.tag == "b" }.first?.plainRank, 0)
            XCTAssertEqual(first.objects(QItem.self).where { $0.tag == "b" }.first?.plainRank, 1)
        }
    }

    func testKeptFormatsAcrossThreads() throws {
        let realm = try openQueryRealm()
        try addTags(realm, (0..<50).map { "t\($0)" })
        let configuration = realm.configuration
        let failures = Protected(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            guard let realm = try? Realm(configuration: configuration) else { return failures.withLock { $0 += 1 } }
            let items = realm.objects(QItem.self)
            for i in 0..<200 {
                let n = (i * 7 + thread) % 60
                // A format per thread and one shared by all of them.
                let expected = n < 50 ? n : nil
                if items.filter("tag == %@", "t\(n)").first?.plainRank != expected { failures.withLock { $0 += 1 } }
                if items.filter("plainTag == %@ AND rank >= \(thread)", "t\(n)").first?.plainRank != (n >= thread ? expected : nil) {
                    failures.withLock { $0 += 1 }
                }
                if i % 50 == 0 { _ = items.filter("rank == %@ + \(i)", 1).count }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, 0)
    }
}
