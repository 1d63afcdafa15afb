import Foundation
import RealmLite
import XCTest

// The tool on a file whose records span generations (a migration added and
// removed properties without rewriting them): check is clean, dump reads
// the added columns' stored defaults for older records, schema leaves
// retired columns out.

final class CLIGenV0: Object {
    override class func className() -> String { "CLIGen" }
    @Persisted var title = ""
    @Persisted var gone = 5
}

final class CLIGenV1: Object {
    override class func className() -> String { "CLIGen" }
    @Persisted var title = ""
    @Persisted var rating = 7
    @Persisted var tags = List<String>()
}

extension CLITests {
    func testOlderRecordGenerationsCheckCleanAndDumpWithTheirDefaults() throws {
        let url = URL(fileURLWithPath: path)
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [CLIGenV0.self]))
            try realm.write {
                realm.create(CLIGenV0.self, value: ["title": "old"])
            }
        }
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [CLIGenV1.self]))
            try realm.write { realm.create(CLIGenV1.self, value: ["title": "new", "rating": 1, "tags": ["a"]]) }
        }
        let check = try run(["check", path])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        let dump = try run(["dump", path, "--class", "CLIGen"])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        XCTAssertTrue(dump.stdout.contains(#""title":"old","rating":7,"tags":[]"#), dump.stdout)
        XCTAssertTrue(dump.stdout.contains(#""title":"new","rating":1,"tags":["a"]"#), dump.stdout)
        XCTAssertFalse(dump.stdout.contains("gone"), dump.stdout)
        let schema = try run(["schema", path])
        XCTAssertFalse(schema.stdout.contains("gone"), schema.stdout)
        XCTAssertTrue(schema.stdout.contains("var rating: Int"), schema.stdout)

        // import writes the current generation, with the retired column's place kept.
        let row = #"{"title":"imported","rating":3,"tags":["x","y"]}"# + "\n"
        let imported = try run(["import", path, "--class", "CLIGen"], input: try write(row, "gen.jsonl"))
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(try run(["check", path]).status, 0)
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [CLIGenV1.self]))
        let object = try XCTUnwrap(realm.objects(CLIGenV1.self).filter("title == 'imported'").first)
        XCTAssertEqual(object.rating, 3)
        XCTAssertEqual(Array(object.tags), ["x", "y"])
        XCTAssertEqual(realm.objects(CLIGenV1.self).filter("rating == 7").first?.title, "old")
    }
}
