import CStorage
import Foundation
import XCTest
@testable import RealmLite

final class FMItem: Object {
    @Persisted var n = 0
    @Persisted var generation = 0
    @Persisted var payload = ""
}

/// writeCopy, shouldCompactOnLaunch and seedFilePath: the copies and
/// compacted files are checked by the engine's checker, hold one committed
/// version, and keep every object.
final class FileManagementTests: RealmTestCase {
    func config(_ url: URL? = nil) -> Realm.Configuration {
        Realm.Configuration(fileURL: url ?? fileURL, objectTypes: [FMItem.self])
    }

    func fileSize(_ url: URL) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? -1
    }

    /// The engine's checker finds the file of `realm` clean.
    func assertClean(_ realm: Realm, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        var report = cs_check_report()
        let rc = cs_check(realm.core.env.handle, &report)
        let first = withUnsafeBytes(of: report.first_error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        XCTAssertEqual(rc, 0, "\(label): \(first)", file: file, line: line)
    }

    /// `count` objects with 200-byte payloads, then all but every tenth
    /// deleted: a file mostly free space.
    func fillAndThin(_ realm: Realm, count: Int = 20_000) throws {
        let payload = String(repeating: "x", count: 200)
        try realm.write {
            for i in 0..<count { realm.create(FMItem.self, value: ["n": i, "payload": payload]) }
        }
        try realm.write { realm.delete(realm.objects(FMItem.self).filter { $0.n % 10 != 0 }) }
    }

    // MARK: - writeCopy

    func testWriteCopyIsCompactCheckedAndComplete() throws {
        let copyURL = directory.appendingPathComponent("copy.realm")
        try autoreleasepool {
            let realm = try Realm(configuration: config())
            try fillAndThin(realm)
            assertClean(realm, "source before")
            try realm.writeCopy(toFile: copyURL)
            assertClean(realm, "source after")
            XCTAssertEqual(realm.objects(FMItem.self).count, 2_000)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: copyURL.path + ".lock"), "the copy comes without a lock file")
        XCTAssertLessThan(fileSize(copyURL) * 3, fileSize(fileURL), "the copy has no free space")
        let copy = try Realm(configuration: config(copyURL))
        assertClean(copy, "copy")
        let items = copy.objects(FMItem.self)
        XCTAssertEqual(items.count, 2_000)
        XCTAssertEqual(items.sum(ofProperty: "n") as Int, (0..<20_000).filter { $0 % 10 == 0 }.reduce(0, +))
        XCTAssertEqual(items.first?.payload.count, 200)
        // The copy is an ordinary Realm file.
        try copy.write { copy.create(FMItem.self, value: ["n": -1]) }
        XCTAssertEqual(copy.objects(FMItem.self).count, 2_001)
    }

    func testWriteCopyRefusesAnExistingFileAndAMissingDirectory() throws {
        let realm = try Realm(configuration: config())
        try realm.write { realm.create(FMItem.self, value: ["n": 1]) }
        let existing = directory.appendingPathComponent("existing.realm")
        try Data("keep me".utf8).write(to: existing)
        XCTAssertThrowsRealmError(.fileExists, mentioning: ["exists", "another path"]) {
            try realm.writeCopy(toFile: existing)
        }
        XCTAssertEqual(try Data(contentsOf: existing), Data("keep me".utf8), "the existing file is untouched")
        XCTAssertThrowsRealmError(.fileNotFound, mentioning: ["directory"]) {
            try realm.writeCopy(toFile: self.directory.appendingPathComponent("nowhere/copy.realm"))
        }
        XCTAssertThrowsRealmError(.invalidValue, mentioning: ["encryptionKey"]) {
            try realm.writeCopy(toFile: self.directory.appendingPathComponent("enc.realm"), encryptionKey: Data(count: 64))
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".copy-") }
        XCTAssertEqual(leftovers, [], "no temporary file is left behind")
    }

    func testWriteCopyOfAnInMemoryRealm() throws {
        let memory = Realm.Configuration(inMemoryIdentifier: "fm-\(UUID())", objectTypes: [FMItem.self])
        let realm = try Realm(configuration: memory)
        try realm.write { for i in 0..<10 { realm.create(FMItem.self, value: ["n": i]) } }
        let copyURL = directory.appendingPathComponent("from-memory.realm")
        try realm.writeCopy(toFile: copyURL)
        XCTAssertEqual(try Realm(configuration: config(copyURL)).objects(FMItem.self).count, 10)
    }

    /// Writers on other threads commit generations that set every object's
    /// `generation`; each copy taken meanwhile holds one generation only.
    func testWriteCopyUnderConcurrentWritersHoldsOneCommittedVersion() throws {
        let objects = 5_000
        let realm = try Realm(configuration: config())
        try realm.write { for i in 0..<objects { realm.create(FMItem.self, value: ["n": i]) } }
        let configuration = config()
        let stop = Handoff<Bool>(), commits = Handoff<Int>()
        let writers = (0..<2).map { writer in
            Thread {
                let realm = try! Realm(configuration: configuration)
                var generation = writer * 1_000_000
                while stop.value != true {
                    generation += 1
                    try! realm.write { for item in realm.objects(FMItem.self) { item.generation = generation } }
                    commits.value = (commits.value ?? 0) + 1
                }
            }
        }
        writers.forEach { $0.start() }
        while (commits.value ?? 0) < 3 { usleep(1000) }
        var generationsSeen = Set<Int>()
        for round in 0..<8 {
            let copyURL = directory.appendingPathComponent("busy-\(round).realm")
            try realm.writeCopy(toFile: copyURL)
            try autoreleasepool {
                let copy = try Realm(configuration: config(copyURL))
                assertClean(copy, "copy \(round)")
                let generations = Set(copy.objects(FMItem.self).map(\.generation))
                XCTAssertEqual(generations.count, 1, "copy \(round) mixes versions: \(generations.sorted().prefix(5))")
                XCTAssertEqual(copy.objects(FMItem.self).count, objects)
                generationsSeen.formUnion(generations)
            }
        }
        stop.value = true
        while writers.contains(where: { !$0.isFinished }) { usleep(1000) }
        assertClean(realm, "source after")
        XCTAssertGreaterThan(generationsSeen.count, 1, "copies were taken while the writers committed")
    }

    // MARK: - shouldCompactOnLaunch

    func testShouldCompactOnLaunchCompactsWithSaneSizes() throws {
        try autoreleasepool {
            let realm = try Realm(configuration: config())
            try fillAndThin(realm)
            assertClean(realm, "before")
        }
        let before = fileSize(fileURL)
        let seen = Handoff<[(Int, Int)]>()
        var compacting = config()
        compacting.shouldCompactOnLaunch = { total, used in
            seen.value = (seen.value ?? []) + [(total, used)]
            return true
        }
        try autoreleasepool {
            let realm = try Realm(configuration: compacting)
            let calls = seen.value ?? []
            XCTAssertEqual(calls.count, 1)
            if let (total, used) = calls.first {
                XCTAssertEqual(total, before, "totalBytes is the file's size")
                XCTAssertGreaterThan(used, 2_000 * 200, "usedBytes covers the live objects")
                XCTAssertLessThan(used * 2, total, "most of the thinned file is free")
            }
            XCTAssertLessThan(fileSize(fileURL) * 3, before, "the file shrank")
            assertClean(realm, "after")
            XCTAssertEqual(realm.objects(FMItem.self).count, 2_000)
            XCTAssertEqual(realm.objects(FMItem.self).sum(ofProperty: "n") as Int, (0..<20_000).filter { $0 % 10 == 0 }.reduce(0, +))
            try realm.write { realm.create(FMItem.self, value: ["n": -1]) }
            // Not the first open in this process now: not asked again.
            _ = try Realm(configuration: compacting)
            XCTAssertEqual(seen.value?.count, 1)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: fileURL.path + ".compact"))
    }

    func testShouldCompactOnLaunchReturningFalseLeavesTheFile() throws {
        try autoreleasepool { try fillAndThin(try Realm(configuration: config())) }
        let before = try Data(contentsOf: fileURL)
        var configuration = config()
        configuration.shouldCompactOnLaunch = { _, _ in false }
        let realm = try Realm(configuration: configuration)
        XCTAssertEqual(realm.objects(FMItem.self).count, 2_000)
        XCTAssertEqual(try Data(contentsOf: fileURL), before)
    }

    func testShouldCompactOnLaunchIsNotAllowedWithReadOnly() throws {
        try autoreleasepool { _ = try Realm(configuration: config()) }
        var configuration = config()
        configuration.readOnly = true
        configuration.shouldCompactOnLaunch = { _, _ in true }
        XCTAssertThrowsRealmError(.fail, mentioning: ["shouldCompactOnLaunch", "readOnly"]) {
            _ = try Realm(configuration: configuration)
        }
    }

    /// Another process has the file open: no compaction (and no question).
    func testNoCompactionWhileAnotherProcessHasTheFileOpen() throws {
        try autoreleasepool { try fillAndThin(try Realm(configuration: config())) }
        let (child, input, seen) = try holdOpenInChildProcess(fileURL)
        XCTAssertTrue(seen.contains("HOLDING"), "the child opened the file: \(seen)")
        let before = fileSize(fileURL)
        let asked = Handoff<Int>()
        var compacting = config()
        compacting.shouldCompactOnLaunch = { _, _ in asked.value = (asked.value ?? 0) + 1; return true }
        try autoreleasepool {
            let realm = try Realm(configuration: compacting)
            XCTAssertEqual(realm.objects(FMItem.self).count, 2_000)
        }
        XCTAssertNil(asked.value)
        XCTAssertEqual(fileSize(fileURL), before, "not compacted under the other process")
        try input.fileHandleForWriting.close()
        child.waitUntilExit()
        XCTAssertEqual(child.terminationStatus, 0)
        // With the other process gone, the next first open compacts.
        let realm = try Realm(configuration: compacting)
        XCTAssertEqual(asked.value, 1)
        XCTAssertLessThan(fileSize(fileURL) * 3, before)
        assertClean(realm, "after")
    }

    // MARK: - seedFilePath

    func testSeedFilePathIsCopiedOnFirstOpenOnly() throws {
        let seedURL = directory.appendingPathComponent("seed.realm")
        try autoreleasepool {
            let seed = try Realm(configuration: config(seedURL))
            try seed.write { for i in 0..<5 { seed.create(FMItem.self, value: ["n": i]) } }
        }
        var seeded = config()
        seeded.seedFilePath = seedURL
        try autoreleasepool {
            let realm = try Realm(configuration: seeded)
            XCTAssertEqual(realm.objects(FMItem.self).count, 5, "the seed's objects")
            try realm.write { realm.create(FMItem.self, value: ["n": 99]) }
            assertClean(realm, "seeded")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: fileURL.path + ".seed"))
        // The file exists now: the seed is not copied again.
        let realm = try Realm(configuration: seeded)
        XCTAssertEqual(realm.objects(FMItem.self).count, 6)
        XCTAssertEqual(try Realm(configuration: config(seedURL)).objects(FMItem.self).count, 5, "the seed is untouched")

        var missing = config(directory.appendingPathComponent("other.realm"))
        missing.seedFilePath = directory.appendingPathComponent("no-seed.realm")
        XCTAssertThrowsRealmError(.fileNotFound, mentioning: ["seed file", "does not exist"]) {
            _ = try Realm(configuration: missing)
        }
    }

    /// Another opener of the file (another process; here an engine env of
    /// it, which the lock file cannot tell apart) keeps its files: deleting
    /// them under it would leave it writing to a file nobody else can see.
    func testDeleteFilesRefusesWhileAnotherProcessHasTheFileOpen() throws {
        try autoreleasepool { _ = try Realm(configuration: config()) }
        var other: OpaquePointer?
        var options = cs_options()
        options.durability = CS_DURABLE_FULL
        XCTAssertEqual(cs_env_open(fileURL.path, &options, &other), 0)
        XCTAssertThrowsRealmError(.fileAccess, mentioning: ["another process"]) {
            try Realm.deleteFiles(for: self.config())
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: fileURL.path))
        cs_env_close(other)
        XCTAssertTrue(try Realm.deleteFiles(for: config()))
        XCTAssertFalse(FileManager.default.fileExists(atPath: fileURL.path))
    }

    func testDeleteFilesRemovesWhatACompactionLeft() throws {
        try autoreleasepool { _ = try Realm(configuration: config()) }
        for leftover in [".compact", ".compact.lock", ".seed"] {
            _ = FileManager.default.createFile(atPath: fileURL.path + leftover, contents: Data("x".utf8))
        }
        XCTAssertTrue(try Realm.deleteFiles(for: config()))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertEqual(left, [])
    }
}
