import Foundation
import XCTest
@testable import RealmLite

// object(ofType:forPrimaryKey:) encodes Int, String, ObjectId and UUID keys
// of the property's own type on the stack (RealmCore.directPrimaryKeyLookup)
// and converts other key types; both must find exactly the stored objects.

final class PrimaryKeyLookupTests: RealmTestCase {
    func testDirectAndConvertedKeysFindTheSameObjects() throws {
        let realm = try openRealm()
        let ints = [-5, 0, 1, 255, 256, Int.max, Int.min, 1 << 40]
        let strings = ["", "a", "a\0b", "a\0", "\0", "é", "日本", String(repeating: "x", count: 500)]
        let uuids = (0..<5).map { _ in UUID() }
        let objectIds = (0..<5).map { _ in ObjectId.generate() }
        try realm.write {
            for id in ints { realm.create(Owner.self, value: ["id": id, "name": "o\(id)"]) }
            for (i, key) in strings.enumerated() { realm.create(StringKeyed.self, value: ["key": key, "value": i]) }
            for (i, key) in uuids.enumerated() { realm.create(UUIDKeyed.self, value: ["key": key, "value": i]) }
            for (i, key) in objectIds.enumerated() { realm.create(Person.self, value: ["_id": key, "name": "p\(i)"]) }
            realm.create(OptionalIntKeyed.self, value: ["key": 3, "value": 3])
            realm.create(OptionalIntKeyed.self, value: ["key": NSNull(), "value": 0])
        }
        for id in ints {
            XCTAssertEqual(realm.object(ofType: Owner.self, forPrimaryKey: id)?.name, "o\(id)")
            XCTAssertEqual(realm.object(ofType: Owner.self, forPrimaryKey: Int64(id))?.name, "o\(id)")
        }
        XCTAssertEqual(realm.object(ofType: Owner.self, forPrimaryKey: Int8(-5))?.name, "o-5")
        for missing in [2, -1, 257, Int.max - 1, Int.min + 1] {
            XCTAssertNil(realm.object(ofType: Owner.self, forPrimaryKey: missing))
        }
        for (i, key) in strings.enumerated() {
            XCTAssertEqual(realm.object(ofType: StringKeyed.self, forPrimaryKey: key)?.value, i, "'\(key)'")
            XCTAssertEqual(realm.object(ofType: StringKeyed.self, forPrimaryKey: Substring(key))?.value, i, "'\(key)' (Substring)")
        }
        for missing in ["b", "a\0c", "a\0b\0", "e", String(repeating: "x", count: 499), String(repeating: "x", count: 5000)] {
            XCTAssertNil(realm.object(ofType: StringKeyed.self, forPrimaryKey: missing), "'\(missing)'")
        }
        for (i, key) in uuids.enumerated() {
            XCTAssertEqual(realm.object(ofType: UUIDKeyed.self, forPrimaryKey: key)?.value, i)
            XCTAssertEqual(realm.object(ofType: UUIDKeyed.self, forPrimaryKey: key.uuidString)?.value, i)
        }
        XCTAssertNil(realm.object(ofType: UUIDKeyed.self, forPrimaryKey: UUID()))
        for (i, key) in objectIds.enumerated() {
            XCTAssertEqual(realm.object(ofType: Person.self, forPrimaryKey: key)?.name, "p\(i)")
        }
        XCTAssertNil(realm.object(ofType: Person.self, forPrimaryKey: ObjectId.generate()))
        XCTAssertEqual(realm.object(ofType: OptionalIntKeyed.self, forPrimaryKey: 3)?.value, 3)
        XCTAssertEqual(realm.object(ofType: OptionalIntKeyed.self, forPrimaryKey: Int?(3))?.value, 3)
        XCTAssertNotNil(realm.object(ofType: OptionalIntKeyed.self, forPrimaryKey: Int?.none))
        XCTAssertNil(realm.object(ofType: OptionalIntKeyed.self, forPrimaryKey: 4))
        // Inside a write transaction, after changes, the lookups see them.
        try realm.write {
            realm.delete(realm.object(ofType: Owner.self, forPrimaryKey: 1)!)
            XCTAssertNil(realm.object(ofType: Owner.self, forPrimaryKey: 1))
            realm.create(Owner.self, value: ["id": 2, "name": "two"])
            XCTAssertEqual(realm.object(ofType: Owner.self, forPrimaryKey: 2)?.name, "two")
        }
        XCTAssertEqual(realm.object(ofType: Owner.self, forPrimaryKey: 2)?.name, "two")
    }
}
