import Foundation
import RealmLite
import XCTest

/// realmlite compact FILE: in place, with the engine's cs_env_compact.
extension CLITests {
    /// compact FILE replaces FILE with its compact copy: same objects, check
    /// clean before and after, smaller, no temporary file left, and an
    /// ordinary Realm file afterwards.
    func testCompactInPlaceShrinksTheFileAndKeepsEveryObject() throws {
        try makeFile()
        let config = Realm.Configuration(fileURL: URL(fileURLWithPath: path), schemaVersion: 7, objectTypes: cliTypes)
        do {
            let realm = try Realm(configuration: config)
            try realm.write { for i in 0..<3000 { realm.create(CLIPet.self, value: ["name": "tmp\(i)"]) } }
            try realm.write { realm.delete(realm.objects(CLIPet.self).filter("name BEGINSWITH 'tmp'")) }
        }
        let dumpBefore = try run(["dump", path]).stdout
        XCTAssertEqual(try run(["check", path]).status, 0)
        let before = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        let r = try run(["compact", path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let after = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        XCTAssertEqual(r.lines, ["\(path): compacted in place, \(before) -> \(after) bytes"])
        XCTAssertLessThan(after * 2, before)
        XCTAssertEqual(try run(["check", path]).status, 0)
        XCTAssertEqual(try run(["dump", path]).stdout, dumpBefore)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".compact"))
        let info = try run(["info", path]).stdout
        XCTAssertTrue(info.contains("(reusable 0, pending 0, "), info)
        let realm = try Realm(configuration: config)
        XCTAssertEqual(realm.objects(CLIOwner.self).count, 3)
        try realm.write { realm.create(CLIPet.self, value: ["name": "after"]) }
    }

    /// While another process (this test) has the file open, compact in place
    /// is refused and the file is untouched; compact of a missing file fails.
    func testCompactInPlaceIsRefusedWhileAnotherProcessHasTheFileOpen() throws {
        try makeFile()
        let config = Realm.Configuration(fileURL: URL(fileURLWithPath: path), schemaVersion: 7, objectTypes: cliTypes)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            let realm = try Realm(configuration: config)
            let r = try run(["compact", path])
            XCTAssertEqual(r.status, 1)
            XCTAssertEqual(r.errorLines, ["realmlite: \(path): open in another process; close it there to compact in place, or write a compact copy with --to OUT"])
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes)
            XCTAssertEqual(realm.objects(CLIOwner.self).count, 3)
        }
        XCTAssertEqual(try run(["compact", "-q", path]).status, 0, "with the file closed here, it compacts")
        let missing = directory.appendingPathComponent("missing.realm").path
        let m = try run(["compact", missing])
        XCTAssertEqual(m.status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
    }
}
