import Foundation
@testable import RealmLite
import XCTest

final class CLIMixed: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value: AnyRealmValue
    @Persisted var values: List<AnyRealmValue>
}

/// AnyRealmValue properties through `realmlite dump` (decoded values) and
/// `import` (refused with a message naming the property).
extension CLITests {
    func testDumpDecodesAnyRealmValuesAndImportRefusesThem() throws {
        let config = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [CLIMixed.self, CLIPet.self, CLIOwner.self, CLIAddress.self])
        func write() throws {
            let realm = try Realm(configuration: config)
            try realm.write {
                let pet = CLIPet()
                pet.name = "Rex"
                let a = CLIMixed()
                a.id = 1
                a.value = .fromDictionary(["n": .int(3), "s": .string("x"), "l": .fromArray([.bool(true), .none])])
                a.values.append(objectsIn: [.double(1.5), .object(pet), .data(Data([1, 2]))])
                realm.add(a)
                let b = CLIMixed()
                b.id = 2
                realm.add(b)
            }
        }
        try write() // the Realm is closed when it returns
        let r = try run(["dump", path, "--class", "CLIMixed"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let rows = try r.lines.map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        XCTAssertEqual(rows.count, 2)
        let value = try XCTUnwrap(rows[0]["value"] as? [String: Any])
        XCTAssertEqual(value["n"] as? Int, 3)
        XCTAssertEqual(value["s"] as? String, "x")
        XCTAssertEqual((value["l"] as? [Any])?.first as? Bool, true)
        XCTAssertTrue((value["l"] as? [Any])?.last is NSNull)
        let values = try XCTUnwrap(rows[0]["values"] as? [Any])
        XCTAssertEqual(values.first as? Double, 1.5)
        XCTAssertEqual((values[1] as? [String: Any])?["class"] as? String, "CLIPet")
        XCTAssertEqual(values[2] as? String, Data([1, 2]).base64EncodedString())
        XCTAssertTrue(rows[1]["value"] is NSNull)
        let check = try run(["check", path])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        // A link the records do not hold: R6 names the mixed backlink tree.
        try { () throws -> Void in
            let realm = try Realm(configuration: config)
            let info = realm.core.classInfoOrStop(CLIMixed.self)
            let column = try XCTUnwrap(info.columns.first { $0.name == "value" })
            realm.beginWrite()
            try XCTUnwrap(realm.core.write).put(column.backlinkTree, Array("CLIPet".utf8) + [0] + [UInt8](repeating: 0, count: 7) + [1]
                + [UInt8](repeating: 0, count: 7) + [1], [1, 0, 0, 0], "test")
            try realm.commitWrite()
        }()
        let damaged = try run(["check", path])
        XCTAssertEqual(damaged.status, 1)
        XCTAssertTrue(damaged.stdout.contains("R6 backlinks: bl:CLIMixed.value counts 1 links, the records hold 0"), damaged.stdout)
        let source = try XCTUnwrap(r.lines.first).data(using: .utf8)!
        let input = directory.appendingPathComponent("mixed.jsonl")
        try source.write(to: input)
        let imported = try run(["import", path, "--class", "CLIMixed"], input: input.path)
        XCTAssertEqual(imported.status, 1)
        XCTAssertTrue(imported.stderr.contains("CLIMixed.value is AnyRealmValue"), imported.stderr)
    }
}
