import Foundation
import XCTest
@testable import RealmLite

// The stored schema's JSON read without JSONDecoder must give exactly what
// JSONDecoder gives, and leave to it whatever it does not read itself.

final class StoredSchemaReaderTests: XCTestCase {
    private func property(_ name: String, _ type: PropertyType, optional: Bool = false, collection: _CollectionKind = .none,
                          objectClass: String? = nil, primaryKey: Bool = false, indexed: Bool = false,
                          origin: String? = nil, fullText: Bool? = nil, retired: Bool? = nil) -> StoredProperty {
        StoredProperty(name: name, type: type, optional: optional, collection: collection, objectClass: objectClass,
                       primaryKey: primaryKey, indexed: indexed, originProperty: origin, fullText: fullText, retired: retired)
    }

    private var sample: StoredSchema {
        let dog = StoredClass(name: "Dög ✓", embedded: false,
                              properties: [property("id", .int, primaryKey: true), property("name", .string, indexed: true),
                                           property("bio", .string, fullText: true),
                                           property("owner", .object, optional: true, objectClass: "Person"),
                                           property("tags", .string, collection: .list), property("old", .double, retired: true),
                                           property("ratings", .any, collection: .map)],
                              keyedByPrimaryKey: true, swiftType: "8Tests3DogC", generations: [3, 5], defaults: Data([0, 1, 255, 7]),
                              compactOffsets: true)
        let person = StoredClass(name: "Person", embedded: false,
                                 properties: [property("dogs", .linkingObjects, collection: .list, objectClass: "Dög ✓", origin: "owner"),
                                              property("born", .date, optional: true), property("uuid", .UUID)],
                                 keyedByPrimaryKey: nil, swiftType: nil, generations: nil, defaults: nil)
        let part = StoredClass(name: "Part", embedded: true, properties: [], keyedByPrimaryKey: false, swiftType: nil,
                               generations: [0], defaults: nil)
        return StoredSchema(version: 18_446_744_073_709_551_615, classes: [dog, person, part], format: StoredSchema.currentFormat)
    }

    private func readBoth(_ json: String) -> (fast: StoredSchema?, decoder: StoredSchema?) {
        let bytes = Array(json.utf8)
        let fast = bytes.withUnsafeBytes { StoredSchemaReader.read($0) }
        return (fast, try? JSONDecoder().decode(StoredSchema.self, from: Data(bytes)))
    }

    /// The open's schema check: equal live properties in order, retired
    /// columns (which only the records hold) skipped on either side.
    func testSameSchemaComparesTheLivePropertiesOnly() {
        let live = [property("x", .int), property("y", .string)]
        let stored = StoredClass(name: "A", embedded: false,
                                 properties: [property("x", .int), property("old", .double, retired: true), property("y", .string)],
                                 keyedByPrimaryKey: false, swiftType: nil, generations: [3], defaults: nil)
        var code = stored
        code.properties = live
        XCTAssertTrue(stored.sameSchema(as: code))
        XCTAssertTrue(code.sameSchema(as: stored))
        code.properties = live + [property("gone", .int, retired: true)]
        XCTAssertTrue(stored.sameSchema(as: code))
        for changed in [live + [property("z", .int)], [live[0]], Array(live.reversed()),
                        [live[0], property("y", .string, optional: true)], [property("old", .double)] + live] {
            code.properties = changed
            XCTAssertFalse(stored.sameSchema(as: code), "\(changed.map(\.name))")
            XCTAssertFalse(code.sameSchema(as: stored), "\(changed.map(\.name))")
        }
        code.properties = live
        code.embedded = true
        XCTAssertFalse(stored.sameSchema(as: code))
    }

    func testReadsWhatRealmLiteWritesAsJSONDecoderDoes() throws {
        for schema in [sample, StoredSchema(version: 0, classes: [], format: StoredSchema.currentFormat)] {
            let encoded = schema.encoded()
            let fast = try XCTUnwrap(encoded.withUnsafeBytes { StoredSchemaReader.read($0) }, "the writer's output is read directly")
            XCTAssertEqual(fast, schema)
            XCTAssertEqual(fast, try JSONDecoder().decode(StoredSchema.self, from: Data(encoded)))
            XCTAssertEqual(try encoded.withUnsafeBytes { try StoredSchema.decode($0) }, schema)
        }
        // A key the reader does not know is left to JSONDecoder, so that a
        // field added to the schema is never dropped here.
        let unknown = readBoth(#"{"version": 4, "extra": 1, "classes": []}"#)
        XCTAssertNil(unknown.fast)
        XCTAssertNotNil(unknown.decoder)
        // Spacing and nulls, as JSONDecoder takes them.
        let (fast, decoder) = readBoth(#" { "format" : null, "version": 4, "classes": [ {"name": "A", "embedded": false, "swiftType": null, "properties": [{"name": "p", "type": 4, "optional": true, "collection": 1, "primaryKey": false, "indexed": false, "objectClass": null}]} ] } "#)
        XCTAssertNotNil(fast)
        XCTAssertEqual(fast, decoder)
    }

    func testLeavesEverythingElseToJSONDecoder() throws {
        // \u escapes, fractions, a missing or mistyped member, an unknown
        // property type, trailing bytes: not read here (JSONDecoder decides).
        for json in [#"{"version": 1, "classes": [{"name": "A\u0041", "embedded": false, "properties": []}]}"#,
                     #"{"version": 1.0, "classes": []}"#,
                     #"{"version": 1}"#,
                     #"{"version": "1", "classes": []}"#,
                     #"{"version": 1, "classes": [{"name": "A", "embedded": false, "properties": [{"name": "p", "type": 99, "optional": true, "collection": 0, "primaryKey": false, "indexed": false}]}]}"#,
                     #"{"version": 1, "classes": []} x"#,
                     #"{"version": 1, "classes": [}"#,
                     ""] {
            XCTAssertNil(readBoth(json).fast, json)
        }
        // A \u-escaped name still opens: JSONDecoder reads it.
        let escaped = #"{"version": 2, "classes": [{"name": "A\u0041", "embedded": false, "properties": []}], "format": 3}"#
        let schema = try Array(escaped.utf8).withUnsafeBytes { try StoredSchema.decode($0) }
        XCTAssertEqual(schema.classes.first?.name, "AA")
        // One-character escapes are read here, as JSONDecoder reads them.
        let slashes = readBoth(#"{"version": 2, "classes": [{"name": "A\/B\"\\\n\t", "embedded": false, "properties": []}]}"#)
        XCTAssertEqual(slashes.fast?.classes.first?.name, "A/B\"\\\n\t")
        XCTAssertEqual(slashes.fast, slashes.decoder)
        XCTAssertThrowsError(try Array(#"{"version": 1}"#.utf8).withUnsafeBytes { try StoredSchema.decode($0) })
    }
}
