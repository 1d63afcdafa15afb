import CStorage
import Foundation
import XCTest
@testable import RealmLite

/// Three var fields around a packed integer: the last one's end is implied.
final class ILText: Object {
    @Persisted var first = ""
    @Persisted var n = 0
    @Persisted var middle: Data?
    @Persisted var last = ""
}

/// Object format 11 (Storage/Record.swift): a record stores no end offset
/// for its last var field, which ends where the record does.
final class ImpliedLastEndTests: RealmTestCase {
    private func raw(_ realm: Realm, _ object: Object, _ className: String) -> [UInt8] {
        let tree = realm.core.schemaState.byName[className]!.objectsTree
        return records(realm, tree).first { $0.key == object._key }!.record
    }

    /// generation, null bitmap, the packed integer, k - 1 end offsets (as
    /// wide as the record's size calls for), the var data.
    private func expectedSize(_ lengths: [Int], n: Int) -> Int {
        let fixed = 2 + (1 << intWidthCode(Int64(n))), data = lengths.reduce(0, +), ends = lengths.count - 1
        return fixed + data + (fixed + data + ends < 0x100 ? 1 : fixed + data + 2 * ends < 0x10000 ? 2 : 4) * ends
    }

    /// One var field: no end offset at all (a Person's name).
    func testARecordWithOneVarFieldStoresNoEndOffset() throws {
        try withRealm([RFPet.self]) { realm in
            let pet = try realm.write { realm.create(RFPet.self, value: ["name": "rex", "age": 7]) }
            XCTAssertEqual(realm.core.schemaState.stored!.class(named: "RFPet")!.impliedLastEnd, true)
            XCTAssertEqual(realm.core.schemaState.stored!.format, StoredSchema.currentFormat)
            XCTAssertEqual(raw(realm, pet, "RFPet").count, 3 + 3, "generation, bitmap, age, name")
            try realm.write { pet.name = String(repeating: "x", count: 300) }
            XCTAssertEqual(raw(realm, pet, "RFPet").count, 3 + 300)
            XCTAssertEqual(pet.name.utf8.count, 300)
            try realm.write { pet.age = 70_000 }
            XCTAssertEqual(raw(realm, pet, "RFPet").count, 2 + 4 + 300, "a repack keeps the implied end")
            XCTAssertEqual(pet.name.utf8.count, 300)
            XCTAssertEqual(realm.objects(RFPet.self).filter("name == %@", String(repeating: "x", count: 300)).count, 1)
            try assertConsistent(realm, "one var field")
        }
    }

    /// Every field read back at each offset width, inserted and updated
    /// (each field through lengths across the widths' boundaries), found
    /// by the engine's filters and sorted by the last field.
    func testThreeVarFieldsAcrossOffsetWidths() throws {
        let lengths = [0, 1, 120, 240, 250, 300, 40_000, 65_600, 3]
        func text(_ c: Character, _ length: Int) -> String { String(repeating: c, count: length) }
        try withRealm([ILText.self]) { realm in
            var objects: [ILText] = []
            try realm.write {
                for (i, length) in lengths.enumerated() {
                    let other = lengths[(i + 3) % lengths.count]
                    objects.append(realm.create(ILText.self, value: [
                        "first": text("f", other), "n": i * 1000, "middle": i % 3 == 0 ? NSNull() as Any : Data(repeating: 7, count: i) as Any,
                        "last": text("l", length),
                    ]))
                }
            }
            func check(_ label: String) throws {
                for (i, o) in objects.enumerated() {
                    let first = o.first.utf8.count, middle = o.middle?.count ?? 0, last = o.last.utf8.count
                    XCTAssertEqual(raw(realm, o, "ILText").count, expectedSize([first, middle, last], n: o.n), "\(label): object \(i)")
                    XCTAssertEqual(o.n, i * 1000, label)
                    XCTAssertEqual(realm.objects(ILText.self).filter("last == %@ AND first == %@ AND n == %@", o.last, o.first, o.n).count,
                                   1, "\(label): the engine's filter reads object \(i)'s fields")
                    if let m = o.middle {
                        XCTAssertEqual(realm.objects(ILText.self).filter("middle == %@ AND n == %@", m, o.n).count, 1, label)
                    }
                }
                let sorted = realm.objects(ILText.self).sorted(byKeyPath: "last").map { $0.last.utf8.count }
                XCTAssertEqual(Array(sorted), objects.map { $0.last.utf8.count }.sorted(), "\(label): sorted by the last field")
                try assertConsistent(realm, label)
            }
            try check("inserted")
            for step in [1, 4] {
                try realm.write {
                    for (i, o) in objects.enumerated() { o.last = text("u", lengths[(i + step) % lengths.count]) }
                }
                try check("last field updated, step \(step)")
                try realm.write {
                    for (i, o) in objects.enumerated() { o.first = text("g", lengths[(i + step + 2) % lengths.count]) }
                }
                try check("first field updated, step \(step)")
            }
            try realm.write {
                for (i, o) in objects.enumerated() { o.middle = i % 2 == 0 ? nil : Data(repeating: 9, count: lengths[i]) }
            }
            try check("middle field updated")
        }
    }
}
