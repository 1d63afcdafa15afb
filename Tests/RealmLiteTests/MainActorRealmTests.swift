import Foundation
import XCTest
@testable import RealmLite

/// A Realm opened on the main actor stays valid wherever the main actor's
/// executor runs, in every shape a program can take. On Linux, once
/// `dispatchMain()` runs (as it does for `@main` async entry points and
/// top-level `await`), worker threads drain the main queue, so the code after
/// an `await` runs on another thread than the code before it. Each shape
/// runs in a child process (this test binary re-run with
/// `programShapeVariable` set), because `dispatchMain()` never returns and
/// ends the main thread. The class name matches the Makefile's TSAN_TESTS
/// ("RealmTests").
final class MainActorRealmTests: RealmTestCase {
    /// The child-process entry point of runShape; skipped in a normal run.
    func testRunProgramShape() throws {
        guard let shape = ProcessInfo.processInfo.environment[programShapeVariable] else {
            throw XCTSkip("the child-process entry point of the program-shape tests: runs only with \(programShapeVariable) set")
        }
        let configuration = configuration()
        let directory = self.directory!
        startWatchdog(shape)
        @MainActor @Sendable func finish(_ scenario: @MainActor () async throws -> String) async -> Never {
            do {
                let report = try await scenario()
                try? FileManager.default.removeItem(at: directory)
                print("PROGRAM SHAPE PASSED \(report)")
                exit(0)
            } catch {
                try? FileManager.default.removeItem(at: directory)
                print("PROGRAM SHAPE FAILED \(error)")
                exit(1)
            }
        }
        switch shape {
        case "runLoop":
            // A synchronous main that opens the Realm on the main thread and
            // then runs the main run loop.
            MainActor.assumeIsolated {
                let realm = orFail { try Realm(configuration: configuration) }
                let box = UncheckedBox(value: realm)
                Task { @MainActor in
                    await finish { try await mainActorScenario(configuration, opened: box.value) }
                }
            }
            RunLoop.main.run()
        case "dispatchMain":
            // A synchronous main that opens the Realm on the main thread, then
            // calls dispatchMain(): the main thread exits, workers drain the queue.
            MainActor.assumeIsolated {
                let realm = orFail { try Realm(configuration: configuration) }
                let box = UncheckedBox(value: realm)
                Task { @MainActor in
                    await finish { try await mainActorScenario(configuration, opened: box.value) }
                }
            }
            dispatchMain()
        case "asyncMain":
            // `@main struct App { static func main() async }`: the runtime
            // runs main() as a main-actor task and drains the main queue
            // with swift_task_asyncMainDrainQueue (dispatchMain() on Linux).
            Task { @MainActor in
                await finish { try await mainActorScenario(configuration, opened: try await Realm(configuration: configuration)) }
            }
            asyncMainDrainQueue()
        case "topLevelAwait":
            // Top-level code that awaits: the same entry as @main async, with
            // the Realm opened synchronously (`let realm = try Realm()`).
            Task { @MainActor in
                await finish { try await mainActorScenario(configuration, opened: try openSynchronously(configuration)) }
            }
            asyncMainDrainQueue()
        default:
            XCTFail("unknown program shape \(shape)")
        }
    }

    /// The shapes where the main queue is drained by worker threads must
    /// actually have used the Realm off the main thread (else they show nothing).
    func testSynchronousMainWithRunLoop() { runShape("runLoop", offMainThread: false) }
    func testDispatchMain() { runShape("dispatchMain", offMainThread: true) }
    func testAsyncMain() { runShape("asyncMain", offMainThread: true) }
    func testTopLevelAwait() { runShape("topLevelAwait", offMainThread: true) }

    /// XCTest's own shape: an async test on the main actor.
    @MainActor
    func testXCTestMainActorTest() async throws {
        let report = try await mainActorScenario(configuration(), opened: try await Realm(configuration: configuration()))
        XCTAssertTrue(report.hasPrefix("offMainThread="), report)
    }

    /// `Realm(configuration:queue: .main)` and `Realm()` on the main actor
    /// give the one main-actor instance.
    @MainActor
    func testMainQueueRealmIsTheMainActorRealm() async throws {
        let opened = try await Realm(configuration: configuration())
        XCTAssertEqual(opened, try openSynchronously(configuration()))
        XCTAssertEqual(opened, try Realm(configuration: configuration(), queue: .main))
    }

    /// A main-actor Realm opened on the main thread keeps the inline check:
    /// reads there compare the thread token and take no further check.
    @MainActor
    func testMainThreadReadsKeepTheInlineCheck() async throws {
        XCTAssertTrue(Thread.isMainThread)
        for realm in [try await Realm(configuration: configuration()), try openSynchronously(configuration(file: "sync.realm"))] {
            guard case .main = realm.core.confinement else { return XCTFail("not the main actor's Realm: \(realm.core.confinement)") }
            XCTAssertNotEqual(realm.core.hot.pointee.confinedToken, 0)
            XCTAssertTrue(realm.core.hot.pointee.isCurrentThreadOrFrozen)
        }
    }

    /// A Realm opened on the main actor is still confined to it.
    @MainActor
    func testMainActorRealmOnAnotherThreadThrows() async throws {
        let realm = try await Realm(configuration: configuration())
        let box = UncheckedBox(value: realm)
        onOtherThread {
            expectRealmError(.incorrectThread, mentioning: ["incorrect thread"]) { try box.value.write {} }
        }
    }

    private func runShape(_ shape: String, offMainThread: Bool, file: StaticString = #filePath, line: UInt = #line) {
        guard let (process, output) = runChildTest("RealmLiteTests.MainActorRealmTests/testRunProgramShape",
                                                   [programShapeVariable: shape], file: file, line: line) else { return }
        let how = process.terminationReason == .exit ? "exited with status \(process.terminationStatus)"
                                                     : "died by signal \(process.terminationStatus)"
        XCTAssertTrue(process.terminationReason == .exit && process.terminationStatus == 0,
                      "program shape '\(shape)' should exit 0; it \(how). output:\n\(output.suffix(3000))", file: file, line: line)
        XCTAssertTrue(output.contains("PROGRAM SHAPE PASSED offMainThread=\(offMainThread)"),
                      "program shape '\(shape)': expected offMainThread=\(offMainThread); output:\n\(output.suffix(3000))",
                      file: file, line: line)
    }
}

let programShapeVariable = "REALMLITE_PROGRAM_SHAPE"

/// What every program shape does on the main actor: uses the Realm across
/// suspension points (reads, a write, an asyncWrite), and waits for
/// notifications, including one caused by another thread's commit and
/// delivered by autorefresh. Returns whether any of it ran off the main thread.
@MainActor
func mainActorScenario(_ configuration: Realm.Configuration, opened realm: Realm) async throws -> String {
    var offMainThread = !Thread.isMainThread
    func note() { if !Thread.isMainThread { offMainThread = true } }
    let (counts, continuation) = AsyncStream<Int>.makeStream()
    let token = realm.objects(Dog.self).observe { change in
        MainActor.preconditionIsolated("notifications of a main-actor Realm are delivered on the main actor")
        switch change {
        case .initial(let dogs): continuation.yield(dogs.count)
        case .update(let dogs, _, _, _): continuation.yield(dogs.count)
        case .error(let error): fatalError("\(error)")
        }
    }
    var received = counts.makeAsyncIterator()
    func awaitCount(_ expected: Int) async throws {
        while let count = await received.next(isolation: MainActor.shared) {
            note()
            if count == expected { return }
        }
        throw Realm.Error(.invalidValue, "the notification stream ended")
    }
    try await awaitCount(0)

    try await Task.sleep(for: .milliseconds(1))
    note()
    try realm.write {
        let dog = Dog()
        dog.name = "written"
        realm.add(dog)
    }
    try await Task.sleep(for: .milliseconds(1))
    note()
    guard realm.objects(Dog.self).first?.name == "written" else { throw Realm.Error(.invalidValue, "the write is not visible") }
    try await awaitCount(1)

    try await realm.asyncWrite {
        let dog = Dog()
        dog.name = "asyncWritten"
        realm.add(dog)
    }
    note()
    guard realm.objects(Dog.self).count == 2 else { throw Realm.Error(.invalidValue, "the asyncWrite is not visible") }
    try await awaitCount(2)

    // Another thread commits: autorefresh advances the main-actor Realm and
    // the observer is told, on the main actor, without refresh().
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        Thread {
            orFail {
                let other = try openSynchronously(configuration)
                try other.write { other.add(Dog()) }
            }
            done.resume()
        }.start()
    }
    note()
    try await awaitCount(3)
    note()
    guard realm.objects(Dog.self).count == 3 else { throw Realm.Error(.invalidValue, "autorefresh did not advance the Realm") }
    token.invalidate()
    return "offMainThread=\(offMainThread)"
}

/// `swift_task_asyncMainDrainQueue`: what the compiler's generated main of
/// an async entry point calls after starting main() as a main-actor task.
private func asyncMainDrainQueue() -> Never {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_asyncMainDrainQueue") else {
        print("PROGRAM SHAPE FAILED swift_task_asyncMainDrainQueue not found")
        exit(1)
    }
    unsafeBitCast(symbol, to: (@convention(c) () -> Void).self)()
    exit(1) // never returns
}

/// A child that waits for a notification that never comes would hang the
/// parent test: after 10 minutes it exits with a message instead.
private func startWatchdog(_ shape: String) {
    Thread {
        Thread.sleep(forTimeInterval: 600)
        print("PROGRAM SHAPE FAILED \(shape): still running after 10 minutes (a notification never came?)")
        exit(2)
    }.start()
}

/// `try Realm(configuration:)` as synchronous code calls it (in an async
/// function the compiler picks the async initializer).
func openSynchronously(_ configuration: Realm.Configuration) throws -> Realm {
    try Realm(configuration: configuration)
}

private func orFail<T>(_ body: () throws -> T) -> T {
    do { return try body() } catch {
        print("PROGRAM SHAPE FAILED \(error)")
        exit(1)
    }
}
