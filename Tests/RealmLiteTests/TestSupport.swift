import CStorage
import Foundation
import XCTest
@testable import RealmLite

/// A fresh directory per test, removed afterwards.
class RealmTestCase: XCTestCase {
    var directory: URL!

    override func setUp() {
        super.setUp()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("realmlite-tests-\(getpid())-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        // Each database goes through the engine first: a process that died
        // with it open (a killed child) leaves its shared memory behind,
        // which removing the directory alone would leak until a reboot. A
        // database this process still has open is left to its last close.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] where name.hasSuffix(".lock") {
            _ = cs_env_remove(directory.appendingPathComponent(String(name.dropLast(5))).path)
        }
        try? FileManager.default.removeItem(at: directory)
        super.tearDown()
    }

    var fileURL: URL { directory.appendingPathComponent("test.realm") }

    /// Lets the main queue run: scheduled notifications are delivered.
    /// Runs the main queue until the notifier has no change in flight:
    /// the next turn, and the turns that bring back what it computed.
    func nextTurn() {
        for _ in 0..<10_000 {
            let turn = expectation(description: "turn")
            DispatchQueue.main.async { turn.fulfill() }
            wait(for: [turn], timeout: 10)
            if ChangeNotifier.inFlight.load(ordering: .acquiring) == 0 { return }
            usleep(100)
        }
    }

    func configuration(_ types: [ObjectBase.Type]? = allTestTypes, file: String = "test.realm") -> Realm.Configuration {
        Realm.Configuration(fileURL: directory.appendingPathComponent(file), objectTypes: types)
    }

    func openRealm(_ types: [ObjectBase.Type]? = allTestTypes) throws -> Realm {
        try Realm(configuration: configuration(types))
    }

    /// Runs body against a Realm opened for it alone: when it returns, no
    /// Realm or object of that file is left, so the next open re-reads the file.
    func withRealm<R>(_ types: [ObjectBase.Type]? = allTestTypes, file: StaticString = #filePath, line: UInt = #line,
                      _ body: (Realm) throws -> R) throws -> R {
        let result = try body(try openRealm(types))
        XCTAssertFalse(SharedEnv.isOpen(path: fileURL.path), "the file should be closed after withRealm", file: file, line: line)
        return result
    }

    /// Runs body on a new thread and waits for it (XCTest assertions made
    /// there are reported as usual).
    func onOtherThread(_ body: @escaping @Sendable () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do { try body() } catch { XCTFail("error on the other thread: \(error)", file: file, line: line) }
            done.signal()
        }
        thread.start()
        done.wait()
    }

    /// Runs body on a new thread, waits for it, and returns its result (nil
    /// if it threw, which fails the test).
    func onOtherThread<T: Sendable>(returning body: @escaping @Sendable () throws -> T,
                                    file: StaticString = #filePath, line: UInt = #line) -> T? {
        let result = Handoff<T>()
        onOtherThread({ result.value = try body() }, file: file, line: line)
        return result.value
    }

    func XCTAssertThrowsRealmError(_ code: Realm.Error.Code, mentioning words: [String] = [],
                                   file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
        expectRealmError(code, mentioning: words, file: file, line: line, body)
    }
}

/// Fails unless body throws a Realm.Error with `code` whose message has
/// each of `words` (a free function, so closures on other threads can use it).
func expectRealmError(_ code: Realm.Error.Code, mentioning words: [String] = [],
                      file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
    do {
        try body()
        XCTFail("expected Realm.Error(\(code))", file: file, line: line)
    } catch let error as Realm.Error {
        XCTAssertEqual(error.code, code, error.message, file: file, line: line)
        for word in words {
            XCTAssertTrue(error.message.contains(word), "'\(error.message)' should mention '\(word)'", file: file, line: line)
        }
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
    }
}

/// A value handed from one thread to another (guarded by a lock).
final class Handoff<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T?

    var value: T? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

let allTestTypes: [ObjectBase.Type] = [
    Dog.self, Person.self, AllTypes.self, Bag.self, Owner.self, Pet.self, Address.self, Geo.self,
    StringKeyed.self, UUIDKeyed.self, OptionalIntKeyed.self, Node.self,
]

/// The signal a Swift stop (preconditionFailure, fatalError) kills the
/// process with on Linux: the trap instruction is `ud2` on x86_64 (SIGILL)
/// and `brk` on arm64 (SIGTRAP). assertStops turns the runtime's backtracer
/// off in the child: it would re-raise the same signal, but under
/// ThreadSanitizer it crashes (SIGSEGV) instead, and it only costs time.
#if arch(x86_64) || arch(i386)
let stopSignal = SIGILL
#else
let stopSignal = SIGTRAP
#endif

/// Runs a scenario that must stop the program, in a child process (this
/// test binary, filtered to StopScenarioTests.testRunScenario), and checks
/// that the child died by `stopSignal` (not by an exit: the scenario's own
/// XCTFail after the misuse exits with status 1) and that its stop message,
/// the runtime's "Fatal error: RealmLite: ..." line on stderr, says `expected`.
/// `runner` is the child's entry point (a test that switches on the scenario).
func assertStops(_ scenario: String, printing expected: String, runner: String = "\(testModuleName).StopScenarioTests/testRunScenario",
                 file: StaticString = #filePath, line: UInt = #line) {
    guard let (process, output) = runChildTest(runner,
                                               [stopScenarioVariable: scenario], file: file, line: line) else { return }
    let how = process.terminationReason == .exit ? "exited with status \(process.terminationStatus)"
                                                 : "died by signal \(process.terminationStatus)"
    XCTAssertTrue(process.terminationReason == .uncaughtSignal && process.terminationStatus == stopSignal,
                  "scenario '\(scenario)' should have stopped the program (death by signal \(stopSignal)); it \(how). stderr:\n\(output.suffix(2000))",
                  file: file, line: line)
    let stopLine = output.split(separator: "\n").first { $0.contains("Fatal error: RealmLite: ") }
    XCTAssertTrue(stopLine?.contains(expected) ?? false,
                  "scenario '\(scenario)' should stop with a message containing '\(expected)'; its stop line: \(stopLine.map(String.init) ?? "none"), stderr:\n\(output.suffix(2000))",
                  file: file, line: line)
}

let stopScenarioVariable = "REALMLITE_STOP_SCENARIO"

/// The module these tests are compiled into: RealmLiteTests, or the
/// release-build package's (Tests/ReleaseStops) for the stop scenarios.
let testModuleName = String(String(reflecting: RealmTestCase.self).split(separator: ".")[0])

/// This test binary, set up to run one test (`Target.Class/method`) in a
/// child process with `environment` added. Swift's crash backtracer is off
/// there, so that a stop ends the child by its trap signal.
func childTestProcess(_ test: String, _ environment: [String: String]) -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = [test]
    var merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    merged["SWIFT_BACKTRACE"] = "enable=no"
    process.environment = merged
    return process
}

/// Runs `test` in a child process to its end: the finished process and its
/// standard output and error together; nil after reporting a failure to start.
func runChildTest(_ test: String, _ environment: [String: String],
                  file: StaticString = #filePath, line: UInt = #line) -> (Process, String)? {
    let process = childTestProcess(test, environment)
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    do {
        try process.run()
    } catch {
        XCTFail("cannot start child process: \(error)", file: file, line: line)
        return nil
    }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process, output)
}

/// Entries appended from any thread (a @Sendable block's log).
final class LockedLog<Entry>: @unchecked Sendable {
    private let lock = NSLock()
    private var _entries: [Entry] = []
    var entries: [Entry] { lock.withLock { _entries } }
    func add(_ entry: Entry) { lock.withLock { _entries.append(entry) } }
}
