import XCTest
@testable import RealmLite

/// IdentityTable (Schema/IdentityTable.swift): the schema's tables keyed by
/// identity, which open without Dictionary's run-time conformance lookups.
final class IdentityTableTests: XCTestCase {
    func testLookupsAcrossGrowth() {
        let objects = (0..<1000).map { _ in NSObject() }
        var table = IdentityTable<Int>()
        XCTAssertNil(table[ObjectIdentifier(objects[0])], "empty")
        for (i, object) in objects.enumerated() { table[ObjectIdentifier(object)] = i }
        XCTAssertEqual(table.count, 1000)
        for (i, object) in objects.enumerated() { XCTAssertEqual(table[ObjectIdentifier(object)], i) }
        XCTAssertNil(table[ObjectIdentifier(NSObject.self)])
        table[ObjectIdentifier(objects[5])] = -5 // replaces
        XCTAssertEqual(table[ObjectIdentifier(objects[5])], -5)
        XCTAssertEqual(table.count, 1000)
    }

    func testTypesAsKeysFirstInsertWins() {
        var table = IdentityTable<String>()
        XCTAssertTrue(table.insert(ObjectIdentifier(Dog.self), "dog"))
        XCTAssertTrue(table.insert(ObjectIdentifier(Person.self), "person"))
        XCTAssertFalse(table.insert(ObjectIdentifier(Dog.self), "second dog"))
        XCTAssertEqual(table.count, 2)
        XCTAssertEqual(table[ObjectIdentifier(Dog.self)], "dog")
        XCTAssertEqual(table[ObjectIdentifier(Person.self)], "person")
        XCTAssertNil(table[ObjectIdentifier(Owner.self)])
        var seen = IdentityTable<Bool>()
        XCTAssertTrue(seen.insert(ObjectIdentifier(Dog.self), true))
        XCTAssertFalse(seen.insert(ObjectIdentifier(Dog.self), true))
        XCTAssertTrue(seen.insert(ObjectIdentifier(Owner.self), true))
        XCTAssertEqual(seen.count, 2)
    }
}
