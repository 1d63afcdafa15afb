import CStorage
import Foundation
import XCTest
@testable import RealmLite

final class ShrinkItem: Object {
    @Persisted var n = 0
    @Persisted var payload = ""
}

/// `Realm.Configuration.autoShrink` (beyond RealmSwift): after large deletes
/// ordinary writes give the file's free space back, while a frozen Realm
/// keeps reading its version; off, the file keeps its size.
final class AutoShrinkTests: RealmTestCase {
    func fileSize() -> Int {
        (try? FileManager.default.attributesOfItem(atPath: fileURL.path)[.size] as? Int) ?? -1
    }

    func config(autoShrink: Bool) -> Realm.Configuration {
        var config = Realm.Configuration(fileURL: fileURL, objectTypes: [ShrinkItem.self])
        config.autoShrink = autoShrink
        return config
    }

    /// Fills, keeps a frozen Realm on the full version, deletes 90% and makes
    /// small writes; returns (size full, size after).
    func run(autoShrink: Bool) throws -> (Int, Int) {
        let realm = try Realm(configuration: config(autoShrink: autoShrink))
        let payload = String(repeating: "x", count: 200)
        for batch in 0..<4 {
            try realm.write {
                for i in batch * 10_000..<(batch + 1) * 10_000 {
                    realm.create(ShrinkItem.self, value: ["n": i, "payload": payload])
                }
            }
        }
        let full = fileSize()
        try autoreleasepool {
            let frozen = realm.freeze()
            try realm.write { realm.delete(realm.objects(ShrinkItem.self).filter { $0.n % 10 != 0 }) }
            for i in 0..<20 { try realm.write { realm.create(ShrinkItem.self, value: ["n": -1 - i]) } }
            XCTAssertGreaterThanOrEqual(fileSize(), full, "the frozen version keeps its pages")
            XCTAssertEqual(frozen.objects(ShrinkItem.self).count, 40_000)
            XCTAssertEqual(frozen.objects(ShrinkItem.self).sum(ofProperty: "n") as Int, (0..<40_000).reduce(0, +))
        }
        for i in 0..<300 { try realm.write { realm.create(ShrinkItem.self, value: ["n": -100 - i]) } }
        XCTAssertEqual(realm.objects(ShrinkItem.self).count, 4_000 + 320)
        var report = cs_check_report()
        XCTAssertEqual(cs_check(realm.core.env.handle, &report), 0)
        return (full, fileSize())
    }

    func testFileShrinksAfterLargeDeletesWithTheSwitchOn() throws {
        XCTAssertTrue(Realm.Configuration().autoShrink, "on by default")
        let (full, after) = try run(autoShrink: true)
        XCTAssertLessThan(after * 3, full, "full \(full) bytes, after \(after)")
    }

    func testFileKeepsItsSizeWithTheSwitchOff() throws {
        let (full, after) = try run(autoShrink: false)
        XCTAssertGreaterThanOrEqual(after, full)
    }
}
