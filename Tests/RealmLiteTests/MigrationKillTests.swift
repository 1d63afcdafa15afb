import CStorage
import Foundation
import XCTest
@testable import RealmLite

let migrateFileVariable = "REALMLITE_MIGRATE_FILE"

/// A migration is one write transaction: a child process migrating a large
/// file is killed (SIGKILL) at random moments, and after every kill the
/// file is either at the old version with all the old data or fully
/// migrated, never in between, and the engine's checker finds it clean.
///
/// `swift test` runs a short loop; `make stress` runs it with
/// REALMLITE_MIGRATION_OBJECTS=200000 and REALMLITE_MIGRATION_KILLS (release build).
final class MigrationKillTests: RealmTestCase {
    static func v1(_ url: URL) -> Realm.Configuration {
        Realm.Configuration(fileURL: url, schemaVersion: 1, migrationBlock: { migration, old in
            guard old < 1 else { return }
            migration.enumerateObjects(ofType: "MPerson") { oldObject, newObject in
                let first = oldObject!["firstName"] as! String, last = oldObject!["lastName"] as! String
                newObject!["fullName"] = "\(first) \(last)"
            }
        }, objectTypes: [MPersonV1.self])
    }

    /// The child-process entry point: migrates the file and says so.
    func testMigrateTheFile() throws {
        guard let path = ProcessInfo.processInfo.environment[migrateFileVariable] else {
            throw XCTSkip("the child-process entry point of MigrationKillTests: runs only with \(migrateFileVariable) set")
        }
        let realm = try Realm(configuration: Self.v1(URL(fileURLWithPath: path)))
        FileHandle.standardOutput.write(Data("MIGRATED \(realm.objects(MPersonV1.self).count)\n".utf8))
        exit(0)
    }

    enum State: Equatable { case old, migrated }

    /// Which state the file is in, after checking that it is exactly that
    /// state: version 0 with every original person, or version 1 with every
    /// person's fullName computed.
    func verify(_ url: URL, objects: Int, _ label: String) throws -> State? {
        let version = try Realm.schemaVersionAtURL(url)
        var state: State?
        try autoreleasepool {
            if version == 0 {
                let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [MPersonV0.self]))
                var bad = 0
                for person in realm.objects(MPersonV0.self) where person.firstName != "F\(person.age)" || person.lastName != "L\(person.age)" {
                    bad += 1
                }
                XCTAssertEqual(realm.objects(MPersonV0.self).count, objects, "\(label): old objects")
                XCTAssertEqual(bad, 0, "\(label): old data damaged")
                assertCheckerClean(realm, label)
                state = .old
            } else if version == 1 {
                let realm = try Realm(configuration: Self.v1(url))
                var bad = 0
                for person in realm.objects(MPersonV1.self) where person.fullName != "F\(person.age) L\(person.age)" {
                    bad += 1
                }
                XCTAssertEqual(realm.objects(MPersonV1.self).count, objects, "\(label): migrated objects")
                XCTAssertEqual(bad, 0, "\(label): half migrated")
                assertCheckerClean(realm, label)
                state = .migrated
            } else {
                XCTFail("\(label): schema version \(version)")
            }
        }
        XCTAssertFalse(SharedEnv.isOpen(path: url.path), "\(label): closed again, so that the child can migrate")
        return state
    }

    func assertCheckerClean(_ realm: Realm, _ label: String) {
        var report = cs_check_report()
        let rc = cs_check(realm.core.env.handle, &report)
        XCTAssertEqual(rc, 0, "\(label): \(withUnsafeBytes(of: report.first_error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })")
    }

    func testKillDuringMigrationLeavesOldOrMigratedFile() throws {
        let environment = ProcessInfo.processInfo.environment
        let objects = environment["REALMLITE_MIGRATION_OBJECTS"].flatMap { Int($0) } ?? 20_000
        let kills = environment["REALMLITE_MIGRATION_KILLS"].flatMap { Int($0) } ?? 4
        // The old file, kept pristine: each round starts from a copy of it.
        let pristine = directory.appendingPathComponent("pristine.realm")
        try autoreleasepool {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: pristine, objectTypes: [MPersonV0.self]))
            try realm.write {
                for i in 0..<objects { realm.create(MPersonV0.self, value: ["firstName": "F\(i)", "lastName": "L\(i)", "age": i]) }
            }
        }
        func fresh() throws {
            _ = try Realm.deleteFiles(for: Realm.Configuration(fileURL: fileURL))
            try FileManager.default.copyItem(at: pristine, to: fileURL)
        }
        func startChild() throws -> Process {
            let child = childTestProcess("RealmLiteTests.MigrationKillTests/testMigrateTheFile", [migrateFileVariable: fileURL.path])
            child.standardOutput = FileHandle.nullDevice
            try child.run()
            return child
        }

        // One migration to its end: how long it takes sets the kill window.
        try fresh()
        let started = Date()
        let full = try startChild()
        full.waitUntilExit()
        let duration = Date().timeIntervalSince(started)
        XCTAssertEqual(full.terminationStatus, 0)
        XCTAssertEqual(try verify(fileURL, objects: objects, "uninterrupted"), .migrated)

        var outcomes: [State: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        try fresh()
        for round in 0..<kills {
            let child = try startChild()
            usleep(UInt32(Double.random(in: 0...(duration * 1.1), using: &generator) * 1_000_000))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            guard let state = try verify(fileURL, objects: objects, "round \(round)") else { break }
            outcomes[state, default: 0] += 1
            if state == .migrated { try fresh() }
            if (testRun?.totalFailureCount ?? 0) > 0 { break }
        }
        print("MigrationKillTests: \(objects) objects, a migration takes \(String(format: "%.2f", duration)) s; \(kills) kills: \(outcomes[.old] ?? 0) left the old file, \(outcomes[.migrated] ?? 0) the migrated one")
    }
}
