import Foundation
import XCTest
@testable import RealmLite

let crossProcessCommitVariable = "REALMLITE_CROSS_PROCESS_COMMIT"

/// A commit by another process wakes this process's Realms without a
/// refresh: autorefresh advances them and observers are called
/// (SharedEnv.swift, CommitWatcher: a futex on the lock file).
final class CrossProcessNotificationTests: RealmTestCase {
    /// The child-process entry point: adds a Dog to the file and exits.
    func testCommitFromAChildProcess() throws {
        guard let path = ProcessInfo.processInfo.environment[crossProcessCommitVariable] else {
            throw XCTSkip("the child-process entry point of CrossProcessNotificationTests: runs only with \(crossProcessCommitVariable) set")
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Dog.self]))
        try realm.write { realm.create(Dog.self, value: ["name": "from the child", "age": 3]) }
        exit(0)
    }

    func testAnotherProcessesCommitIsDeliveredWithoutRefresh() throws {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, objectTypes: [Dog.self]))
        try realm.write { realm.create(Dog.self, value: ["name": "here", "age": 1]) }
        let dogs = realm.objects(Dog.self)
        var updates: [[String]] = []
        let delivered = expectation(description: "the other process's dog")
        let token = dogs.observe { change in
            if case let .update(results, _, insertions, _) = change {
                updates.append(insertions.map { results[$0].name })
                delivered.fulfill()
            }
        }
        defer { token.invalidate() }
        nextTurn() // the initial call
        guard let (child, output) = runChildTest("RealmLiteTests.CrossProcessNotificationTests/testCommitFromAChildProcess",
                                                 [crossProcessCommitVariable: fileURL.path]) else { return }
        XCTAssertEqual(child.terminationStatus, 0, output)
        // No refresh() here: only the watcher can tell this process.
        wait(for: [delivered], timeout: 30)
        XCTAssertEqual(updates, [["from the child"]])
        XCTAssertEqual(dogs.count, 2)
    }

    /// The watcher starts on the core's first turn, not at open: a commit
    /// another process made in between still wakes the Realm (the watcher
    /// waits from the commit sequence of the open).
    func testACommitBeforeTheWatcherStartsIsDelivered() throws {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: fileURL, objectTypes: [Dog.self]))
        XCTAssertFalse(realm.core.env.isWatching, "no thread at open")
        // The child runs from another thread: waiting for a process turns the
        // waiting thread's run loop, which here must not be the main one.
        let path = fileURL.path
        let result = Protected<(Process, String)?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let ran = runChildTest("RealmLiteTests.CrossProcessNotificationTests/testCommitFromAChildProcess",
                                   [crossProcessCommitVariable: path])
            result.withLock { $0 = ran }
            done.signal()
        }.start()
        done.wait()
        guard let (child, output) = result.withLock({ $0 }) else { return }
        XCTAssertEqual(child.terminationStatus, 0, output)
        XCTAssertFalse(realm.core.env.isWatching, "no turn yet")
        XCTAssertEqual(realm.objects(Dog.self).count, 0, "not refreshed yet")
        let delivered = expectation(description: "the other process's dog")
        // The initial call may already include it (the refresh can land
        // before the initial results are computed): either call will do.
        let token = realm.objects(Dog.self).observe { change in
            switch change {
            case .initial(let results), .update(let results, _, _, _):
                if results.map(\.name) == ["from the child"] { delivered.fulfill() }
            case .error: break
            }
        }
        defer { token.invalidate() }
        wait(for: [delivered], timeout: 30)
        XCTAssertTrue(realm.core.env.isWatching)
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
    }

    /// A Realm confined to a plain thread cannot be woken by the watcher
    /// (nothing can be scheduled on that thread): none is started for it.
    func testNoWatcherForAThreadConfinedRealm() throws {
        let config = Realm.Configuration(fileURL: fileURL, objectTypes: [Dog.self])
        let watching = Protected<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            do {
                let realm = try! Realm(configuration: config)
                try! realm.write { realm.create(Dog.self, value: ["name": "on a thread", "age": 1]) }
                watching.withLock { $0 = realm.core.env.isWatching }
            }
            done.signal()
        }.start()
        done.wait()
        XCTAssertEqual(watching.withLock { $0 }, false)
        nextTurn()
        let realm = try Realm(configuration: config) // the main actor's: watched from its first turn
        XCTAssertFalse(realm.core.env.isWatching)
        nextTurn()
        XCTAssertTrue(realm.core.env.isWatching)
    }
}
