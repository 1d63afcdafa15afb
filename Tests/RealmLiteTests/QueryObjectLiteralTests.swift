import Foundation
import XCTest
@testable import RealmLite

// Object literals in query strings, as realm-core reads them:
// obj('Class', primaryKey), O<objectKey>, and the refused L<table>:<key>.

final class RQLOwner: Object {
    @Persisted(primaryKey: true) var id = ""
    @Persisted var friend: RQLOwner?
    @Persisted var friends: List<RQLOwner>
    @Persisted var anything: AnyRealmValue
}

final class RQLTagged: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var owner: RQLOwner?
}

final class QueryObjectLiteralTests: RealmTestCase {
    private var realm: Realm!
    private var keyOfY: UInt64 = 0

    /// Owners x, y, z: friend x→y, z→y, y nil; friends x [y, z];
    /// anything x .object(z), y .object(tagged 1). Tagged 1 owner x, 2 nil.
    override func setUp() {
        super.setUp()
        do {
            realm = try openRealm([RQLOwner.self, RQLTagged.self])
            try realm.write {
                let x = realm.create(RQLOwner.self, value: ["id": "x"])
                let y = realm.create(RQLOwner.self, value: ["id": "y"])
                let z = realm.create(RQLOwner.self, value: ["id": "z"])
                let t1 = realm.create(RQLTagged.self, value: ["id": 1])
                realm.create(RQLTagged.self, value: ["id": 2])
                x.friend = y
                z.friend = y
                x.friends.append(objectsIn: [y, z])
                x.anything = .object(z)
                y.anything = .object(t1)
                t1.owner = x
                keyOfY = y._key
            }
        } catch { XCTFail("\(error)") }
    }

    override func tearDown() {
        realm = nil
        super.tearDown()
    }

    private func owners(_ format: String, _ args: Any..., file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            return try realm.objects(RQLOwner.self).checkedFilter(format, arguments: args).map(\.id)
        } catch {
            XCTFail("\(format): \(error)", file: file, line: line)
            return []
        }
    }

    private func error(_ format: String) -> String {
        do {
            _ = try realm.objects(RQLOwner.self).checkedFilter(format, arguments: []).count
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    func testObjectByPrimaryKey() {
        XCTAssertEqual(owners("friend == obj('RQLOwner', 'y')"), ["x", "z"])
        XCTAssertEqual(owners("obj('RQLOwner', 'y') == friend"), ["x", "z"], "either side")
        XCTAssertEqual(owners("friend != obj('RQLOwner', 'y')"), ["y"], "a nil link differs")
        XCTAssertEqual(owners("friend == obj('RQLOwner', 'nobody')"), [])
        XCTAssertEqual(owners("friend == OBJ(\"RQLOwner\", $0)", "y"), ["x", "z"], "the key as an argument")
        XCTAssertEqual(owners("friends == obj('RQLOwner', 'z')"), ["x"], "any element of a list")
        XCTAssertEqual(owners("ALL friends != obj('RQLOwner', 'z')"), ["y", "z"])
        XCTAssertEqual(try realm.objects(RQLTagged.self).checkedFilter("owner == obj('RQLOwner', 'x')", arguments: []).map(\.id), [1])
    }

    func testObjectLiteralAgainstAnyRealmValue() {
        XCTAssertEqual(owners("anything == obj('RQLOwner', 'z')"), ["x"])
        XCTAssertEqual(owners("anything == obj('RQLTagged', 1)"), ["y"], "an int primary key")
        XCTAssertEqual(owners("anything != obj('RQLTagged', 1)"), ["x", "z"])
        XCTAssertEqual(owners("anything == obj('RQLTagged', 2)"), [])
    }

    func testObjectLiteralIsLookedUpWhenEvaluated() throws {
        let results = try realm.objects(RQLOwner.self).checkedFilter("friend == obj('RQLOwner', 'w')", arguments: [])
        XCTAssertEqual(results.count, 0)
        try realm.write {
            let w = realm.create(RQLOwner.self, value: ["id": "w"])
            realm.object(ofType: RQLOwner.self, forPrimaryKey: "z")!.friend = w
        }
        XCTAssertEqual(results.map(\.id), ["z"])
    }

    func testObjectKeyLiteral() {
        XCTAssertEqual(owners("friend == O\(keyOfY)"), ["x", "z"])
        XCTAssertEqual(owners("friends != O\(keyOfY)"), ["x"], "x's z differs")
    }

    func testObjectLiteralErrors() {
        let cases: [(String, String)] = [
            ("friend == obj('RQLTagged', 1)", "links to class 'RQLOwner' and cannot be compared"),
            ("friend == obj('RQLOwner', 5)", "The primary key of 'RQLOwner' is string"),
            ("friend > obj('RQLOwner', 'y')", "with == or != only"),
            ("anything == O1", "use obj('Class', primaryKey)"),
            ("friend == L0:1", "names a realm-core table key"),
            ("friend == obj(RQLOwner, 'y')", "takes a class name string first"),
            ("friend == obj('RQLOwner', 1.5)", "cannot be a primary key"),
            ("id == obj('RQLOwner', 'y')", "Cannot compare 'id'"),
        ]
        for (format, expected) in cases {
            let message = error(format)
            XCTAssertTrue(message.contains(expected), "\(format): \(message)")
        }
    }
}
