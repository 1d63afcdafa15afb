import Foundation
import XCTest
@testable import RealmLite

final class LogItem: Object {
    @Persisted var n = 0
}

/// Messages a test's logger received (the function runs on any thread).
final class LogSink: @unchecked Sendable {
    struct Entry { let level: LogLevel; let category: String; let message: String }
    private let lock = NSLock()
    private var stored: [Entry] = []

    var entries: [Entry] { lock.withLock { stored } }

    func add(_ level: LogLevel, _ category: String, _ message: String) {
        lock.withLock { stored.append(Entry(level: level, category: category, message: message)) }
    }

    func clear() { lock.withLock { stored = [] } }

    /// Entries about `path` (other tests' background threads may log too).
    func about(_ path: String) -> [Entry] { entries.filter { $0.message.contains(path) } }
}

/// Logger (RealmSwift's API): the engine's and the object layer's messages
/// reach Logger.shared at their levels, nothing above the logger's level
/// arrives or is even formatted, and a level change reaches open files.
final class LoggerTests: RealmTestCase {
    private var saved: Logger!
    private let sink = LogSink()

    override func setUp() {
        super.setUp()
        saved = Logger.shared
    }

    override func tearDown() {
        Logger.shared = saved
        super.tearDown()
    }

    private func install(_ level: LogLevel) -> Logger {
        let sink = self.sink
        let logger = Logger(level: level) { level, category, message in sink.add(level, category.rawValue, message) }
        Logger.shared = logger
        return logger
    }

    private func writeOne(_ realm: Realm) throws {
        try realm.write { realm.add(LogItem()) }
    }

    func testEngineAndObjectLayerMessagesAtTheirLevels() throws {
        _ = install(.debug)
        let path = fileURL.path
        try autoreleasepool {
            let realm = try Realm(configuration: configuration([LogItem.self]))
            try writeOne(realm)
            realm.beginWrite()
            realm.cancelWrite()
        }
        let entries = sink.about(path)
        func first(_ text: String) -> LogSink.Entry? { entries.first { $0.message.contains(text) } }

        let opened = try XCTUnwrap(first("DB: Opened \(path)"), "\(entries.map(\.message))")
        XCTAssertEqual(opened.level, .detail)
        XCTAssertEqual(opened.category, "Realm.Storage")
        let commit = try XCTUnwrap(first("DB: Commit of txn"))
        XCTAssertEqual(commit.level, .debug)
        XCTAssertEqual(commit.category, "Realm.Storage.Transaction")
        XCTAssertTrue(commit.message.contains("pages written"), commit.message)
        XCTAssertEqual(first("Begin write")?.level, .debug)
        XCTAssertEqual(first("Committed write")?.level, .debug)
        XCTAssertEqual(first("Cancelled write")?.level, .debug)
        let registered = try XCTUnwrap(first("Registered 1 classes"))
        XCTAssertEqual(registered.level, .detail)
        XCTAssertEqual(registered.category, "Realm.SDK")
        XCTAssertEqual(first("DB: Closed")?.level, .detail)
        XCTAssertFalse(entries.contains { $0.level.rawValue > LogLevel.debug.rawValue })
    }

    func testNothingAboveTheLevelArrives() throws {
        _ = install(.detail)
        let path = fileURL.path
        try autoreleasepool {
            let realm = try Realm(configuration: configuration([LogItem.self]))
            try writeOne(realm)
        }
        let entries = sink.about(path)
        XCTAssertTrue(entries.contains { $0.message.contains("DB: Opened") }, "\(entries.map(\.message))")
        XCTAssertFalse(entries.contains { $0.level.rawValue > LogLevel.detail.rawValue }, "\(entries.map(\.message))")
        XCTAssertFalse(entries.contains { $0.message.contains("Commit") })

        sink.clear()
        Logger.shared.level = .off
        try autoreleasepool { try writeOne(try Realm(configuration: configuration([LogItem.self]))) }
        XCTAssertTrue(sink.about(path).isEmpty)
    }

    /// The engine of a file already open follows the shared logger's level.
    func testLevelChangeReachesAnOpenFile() throws {
        let logger = install(.off)
        let realm = try Realm(configuration: configuration([LogItem.self]))
        try writeOne(realm)
        XCTAssertTrue(sink.about(fileURL.path).isEmpty)
        logger.level = .debug
        try writeOne(realm)
        XCTAssertTrue(sink.entries.contains { $0.message.hasPrefix("DB: Commit of txn") })
        sink.clear()
        Logger.shared = Logger(level: .off) { _, _ in }
        try writeOne(realm)
        XCTAssertTrue(sink.entries.isEmpty)
    }

    func testLogFunctionWithoutCategory() throws {
        let sink = self.sink
        Logger.shared = Logger(level: .detail) { level, message in sink.add(level, "", message) }
        XCTAssertEqual(Logger.shared.level, .detail)
        _ = try Realm(configuration: configuration([LogItem.self]))
        XCTAssertTrue(sink.about(fileURL.path).contains { $0.level == .detail && $0.message.hasPrefix("DB: Opened") })
    }

    /// A message whose level is off is not built: the autoclosure never runs.
    func testMessageIsNotFormattedWhenOff() {
        let built = Handoff<Int>()
        built.value = 0
        func message() -> String { built.value! += 1; return "built" }
        _ = install(.info)
        realmLog(.debug, Category.sdk, message())
        XCTAssertEqual(built.value, 0)
        Logger.shared.level = .off
        realmLog(.error, Category.sdk, message())
        XCTAssertEqual(built.value, 0)
        Logger.shared.level = .debug
        realmLog(.debug, Category.sdk, message())
        XCTAssertEqual(built.value, 1)
        XCTAssertTrue(sink.entries.contains { $0.message == "built" && $0.category == "Realm.SDK" && $0.level == .debug })
    }

    /// A log point whose level is off: an atomic load and a branch.
    func testCostOfALogPointWhenOff() {
        _ = install(.off)
        let count = 10_000_000
        var sum = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for i in 0..<count {
            realmLog(.debug, Category.Storage.transaction, "write \(i)")
            sum &+= i
        }
        let perCall = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count)
        print("log point with logging off: \(String(format: "%.2f", perCall)) ns per call (\(sum))")
        // A debug build calls the atomic's generic code out of line; the
        // release figure (docs/ARCHITECTURE.md, Logging) is about 1 ns.
        XCTAssertLessThan(perCall, 1000)
        XCTAssertTrue(sink.entries.isEmpty)
    }

    /// shouldCompactOnLaunch: the engine's compaction message at info, the
    /// object layer's decision at detail.
    func testCompactionIsLogged() throws {
        try autoreleasepool {
            let realm = try Realm(configuration: configuration([LogItem.self]))
            try realm.write { for n in 0..<2000 { realm.add(LogItem(value: ["n": n])) } }
            try realm.write { realm.delete(realm.objects(LogItem.self)) }
        }
        _ = install(.info)
        var compacting = configuration([LogItem.self])
        compacting.shouldCompactOnLaunch = { _, _ in true }
        try autoreleasepool { _ = try Realm(configuration: compacting) }
        let compacted = try XCTUnwrap(sink.about(fileURL.path).first { $0.message.hasPrefix("DB: Compacted") },
                                      "\(sink.entries.map(\.message))")
        XCTAssertEqual(compacted.level, .info)
        XCTAssertTrue(compacted.message.contains("bytes"), compacted.message)

        sink.clear()
        Logger.shared.level = .detail
        compacting.shouldCompactOnLaunch = { _, _ in false }
        try autoreleasepool { _ = try Realm(configuration: compacting) }
        XCTAssertTrue(sink.about(fileURL.path).contains { $0.level == .detail && $0.message.contains("declined to compact") })
    }

    func testLoggerLogRespectsItsLevel() {
        let logger = Logger(level: .warn) { [sink] level, category, message in sink.add(level, category.rawValue, message) }
        logger.log(level: .info, message: "no")
        logger.log(level: .warn, category: Category.Storage.query, message: "yes")
        logger.log(level: .off, message: "never")
        XCTAssertEqual(sink.entries.map(\.message), ["yes"])
        XCTAssertEqual(sink.entries.first?.category, "Realm.Storage.Query")
    }
}
