import Foundation
import XCTest
@testable import RealmLite

/// `try await Realm()` outside any actor gives a Realm confined to the
/// calling task: usable across its suspension points, whichever thread
/// resumes it, and by no other task. The class name matches the Makefile's
/// TSAN_TESTS ("RealmTests"), so these run under ThreadSanitizer too.
final class TaskConfinedRealmTests: RealmTestCase {
    /// Many tasks, each with its own Realm, suspending thousands of times in
    /// all and resuming on whichever thread the executor picks.
    func testTaskConfinedRealmsAcrossSuspensions() async throws {
        let configuration = configuration()
        let tasks = 16, rounds = 150
        // Opened first, and kept open, so the tasks share an open file:
        // SharedEnv's registry is a Synchronization.Mutex, whose locking
        // ThreadSanitizer cannot see on Linux (the lock is in the prebuilt
        // library): concurrent first opens of one file are reported as a race.
        let keeper = try await Realm(configuration: configuration)
        let threadChanges = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<tasks {
                group.addTask {
                    try await useRealmAcrossSuspensions(configuration, prefix: "t\(index)-", rounds: rounds)
                }
            }
            return try await group.reduce(0, +)
        }
        // The test shows something only if tasks did resume on other threads.
        XCTAssertGreaterThan(threadChanges, 0, "no task resumed on another thread")
        keeper.refresh()
        XCTAssertEqual(keeper.objects(Dog.self).count, tasks * rounds)
    }

    /// `Realm.open()` and `Realm()` twice in one task give one instance;
    /// another task gets another.
    func testOneInstancePerTask() async throws {
        let configuration = configuration()
        let first = try await Realm(configuration: configuration)
        try await Task.sleep(for: .milliseconds(1))
        let again = try await Realm.open(configuration: configuration)
        XCTAssertEqual(first, again)
        let box = UncheckedBox(value: first)
        let sameInOther = try await Task.detached {
            let other = try await Realm(configuration: configuration)
            return other == box.value
        }.value
        XCTAssertFalse(sameInOther)
    }

    /// A child task (async let, a task group's task) and an unstructured
    /// task are other tasks: the parent's Realm throws .incorrectThread
    /// there, and still works in the parent afterwards.
    func testOtherTasksGetIncorrectThread() async throws {
        let configuration = configuration()
        let realm = try await Realm(configuration: configuration)
        let box = UncheckedBox(value: realm)
        async let child: Void = expectIncorrectThread(box)
        await child
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await expectIncorrectThread(box) }
        }
        await Task { await expectIncorrectThread(box) }.value
        await Task.detached { await expectIncorrectThread(box) }.value
        try realm.write { realm.add(Dog()) }
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
    }

    /// `try await Realm()` with the default configuration is the task's
    /// Realm (the async initializer, not the synchronous `Realm()`), and a
    /// synchronous `Realm(configuration:)`, thaw() and @ThreadSafe reads in
    /// that task give the task's instance too: a thread's would stop after
    /// the next suspension.
    func testAwaitRealmAndSynchronousLookupsInATask() async throws {
        let saved = Realm.Configuration.defaultConfiguration
        defer { Realm.Configuration.defaultConfiguration = saved }
        Realm.Configuration.defaultConfiguration = configuration()
        let realm = try await Realm()
        guard case .task = realm.core.confinement else {
            return XCTFail("try await Realm() outside an actor should be task-confined, is \(realm.core.confinement)")
        }
        XCTAssertEqual(try openSynchronously(configuration()), realm)
        let dog = Dog()
        dog.name = "Rex"
        try realm.write { realm.add(dog) }
        let frozen = dog.freeze()
        @ThreadSafe var reference: Dog? = dog
        try await Task.sleep(for: .milliseconds(1))
        let thawed = try XCTUnwrap(frozen.thaw())
        XCTAssertEqual(thawed.realm, realm)
        try await Task.sleep(for: .milliseconds(1))
        XCTAssertEqual(thawed.name, "Rex")
        let resolved = try XCTUnwrap(reference)
        XCTAssertEqual(resolved.realm, realm)
        try await Task.sleep(for: .milliseconds(1))
        try realm.write { resolved.name = "Max" }
        XCTAssertEqual(dog.name, "Max")
    }

    /// Async writes from a task-confined Realm (the task waits, no thread does).
    func testAsyncWriteFromTaskConfinedRealm() async throws {
        let realm = try await Realm(configuration: configuration())
        for _ in 0..<20 {
            try await realm.asyncWrite { realm.add(Dog()) }
        }
        XCTAssertEqual(realm.objects(Dog.self).count, 20)
    }
}

/// One task's work: writes, reads, async writes and suspensions
/// (yields and sleeps) in turn; returns how often it resumed on another thread.
private func useRealmAcrossSuspensions(_ configuration: Realm.Configuration, prefix: String, rounds: Int) async throws -> Int {
    let realm = try await Realm(configuration: configuration)
    // Thread.current, not pthread_self(): glibc declares pthread_self
    // `const`, and an optimized build reuses one call's result across
    // suspension points (this test saw no thread change in release builds).
    var thread = currentThread(), changes = 0
    func noteThread() {
        let now = currentThread()
        if now != thread { changes += 1; thread = now }
    }
    for round in 0..<rounds {
        let dog = Dog()
        dog.name = "\(prefix)\(round)"
        if round % 3 == 0 {
            try await realm.asyncWrite { realm.add(dog) }
        } else {
            try realm.write { realm.add(dog) }
        }
        noteThread()
        if round % 2 == 0 { await Task.yield() } else { try await Task.sleep(for: .microseconds(50)) }
        noteThread()
        let mine = realm.objects(Dog.self).filter("name BEGINSWITH %@", prefix)
        guard mine.count == round + 1, dog.name == "\(prefix)\(round)" else {
            throw Realm.Error(.invalidValue, "task \(prefix) read \(mine.count) of its dogs after round \(round)")
        }
        await Task.yield()
        noteThread()
        guard try await Realm(configuration: configuration) == realm else {
            throw Realm.Error(.invalidValue, "task \(prefix) got another instance after a suspension")
        }
    }
    return changes
}

private func expectIncorrectThread(_ box: UncheckedBox<Realm>) async {
    expectRealmError(.incorrectThread, mentioning: ["incorrect thread", "task"]) {
        try box.value.write { box.value.add(Dog()) }
    }
}

/// The calling thread (a synchronous helper: Thread.current is unavailable
/// in async code).
private func currentThread() -> ObjectIdentifier {
    ObjectIdentifier(Thread.current)
}
