import CStorage
import Foundation
import RealmLite
import XCTest

// realmlite and Bools held in their null bit (object format 12): dump reads
// them from the bit, import writes the bit, check accepts both values.

/// Non-optional Bools past the bitmap's first byte, beside optional ones
/// and a packed integer.
final class CLIBits: Object {
    @Persisted var n = 0
    @Persisted var name = ""
    @Persisted var o1: Bool?
    @Persisted var x1 = 0.0
    @Persisted var x2 = 0.0
    @Persisted var x3 = 0.0
    @Persisted var x4 = 0.0
    @Persisted var x5 = 0.0
    @Persisted var flag = false
    @Persisted var other = true
    @Persisted var o2: Bool?
}

extension CLITests {
    func testDumpImportAndCheckOfBoolsInTheNullBitmap() throws {
        func config(_ file: String) -> Realm.Configuration {
            Realm.Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: [CLIBits.self])
        }
        do { // the Realm closes at the end of the scope
            let realm = try Realm(configuration: config(path))
            try realm.write {
                for i in 0..<8 {
                    realm.create(CLIBits.self, value: ["n": i * 100, "name": "b\(i)", "o1": i % 3 == 0 ? NSNull() : (i % 2 == 0) as Any,
                                                       "flag": i % 2 == 1, "other": i % 4 == 0, "o2": i % 4 == 3 ? NSNull() : (i < 4) as Any])
                }
            }
        }
        let clean = try run(["check", path])
        XCTAssertEqual(clean.status, 0, clean.stdout + clean.stderr)
        let d = try run(["dump", path, "--class", "CLIBits"])
        XCTAssertEqual(d.status, 0, d.stderr)
        let rows = d.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(rows.count, 8)
        XCTAssertEqual(rows.map { $0["flag"] as? Bool }, (0..<8).map { $0 % 2 == 1 })
        XCTAssertEqual(rows.map { $0["other"] as? Bool }, (0..<8).map { $0 % 4 == 0 })
        XCTAssertEqual(rows.map { $0["o1"] is NSNull }, (0..<8).map { $0 % 3 == 0 })
        XCTAssertEqual(rows.map { $0["o2"] as? Bool }, (0..<8).map { $0 % 4 == 3 ? nil : $0 < 4 })

        let target = directory.appendingPathComponent("bits-target.realm").path
        _ = try Realm(configuration: config(target))
        let file = directory.appendingPathComponent("bits.jsonl").path
        try Data(d.stdout.utf8).write(to: URL(fileURLWithPath: file))
        let imported = try run(["import", target, "--class", "CLIBits"], input: file)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(try run(["dump", target, "--class", "CLIBits"]).stdout, d.stdout)
        XCTAssertEqual(try run(["check", target]).status, 0)
        let realm = try Realm(configuration: config(target))
        XCTAssertEqual(realm.objects(CLIBits.self).filter("flag == true").map(\.n).sorted(), [100, 300, 500, 700])
        XCTAssertEqual(realm.objects(CLIBits.self).filter("other == true AND flag == false").map(\.n).sorted(), [0, 400])
        XCTAssertEqual(realm.objects(CLIBits.self).sorted(byKeyPath: "n").map(\.o1), [nil, false, true, nil, true, false, nil, false])
    }
}
