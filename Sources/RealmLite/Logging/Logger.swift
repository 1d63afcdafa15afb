import Foundation
import Synchronization

// Logging, RealmSwift's API (10.39+): a `Logger` with a threshold level and
// a function, `Logger.shared` used by everything RealmLite logs. The object
// layer's log points and the engine's (forwarded by Storage/SharedEnv.swift)
// go through `realmLog`, which reads one atomic before anything is
// formatted: with the level off a log point costs a load and a branch.
// This folder is the lowest layer of the object layer: every other folder
// may log, and nothing here calls them (but the Protected lock, which
// ThreadSanitizer understands).

/// How much is logged: each level includes the ones before it.
public enum LogLevel: UInt, Sendable {
    /// Nothing is logged.
    case off
    /// Only fatal errors.
    case fatal
    /// Errors: a commit or an open that failed.
    case error
    /// Warnings and errors: e.g. recovery after a writer process died.
    case warn
    /// Rare events worth knowing in production: compaction, cleanup of dead
    /// processes' readers. The default.
    case info
    /// Opening and closing files, schema changes and migration steps.
    case detail
    /// Write transactions (begin, commit with timing, cancel), commits with
    /// their pages written, notifications delivered. Costs some time.
    case debug
    /// More than debug.
    case trace
    /// Everything.
    case all
}

/// A category of log messages, named like RealmSwift's ("Realm.Storage.Transaction").
public protocol LogCategory: Sendable {
    /// The category's dotted name, e.g. "Realm.Storage.Transaction".
    var rawValue: String { get }
}

/// The categories RealmLite logs in: a reduced set of RealmSwift 10.50's
/// (RealmLite has no sync or app services).
public enum Category: String, LogCategory {
    /// Everything RealmLite logs.
    case realm = "Realm"
    /// The object layer itself (opening, schema, migrations).
    case sdk = "Realm.SDK"

    /// The database.
    public enum Storage: String, LogCategory {
        /// Files: open, close, recovery, compaction, shrinking.
        case all = "Realm.Storage"
        /// Write transactions and commits.
        case transaction = "Realm.Storage.Transaction"
        /// Queries.
        case query = "Realm.Storage.Query"
        /// Objects.
        case object = "Realm.Storage.Object"
        /// Change notifications.
        case notification = "Realm.Storage.Notification"
    }
}

/// Receives RealmLite's log messages: set ``Logger/shared`` to your own
/// `Logger(level: .debug) { level, message in ... }` to see them.
///
/// The function may be called from any thread, several at once, and must
/// do its own synchronization; it must not use a Realm (it may run while
/// RealmLite holds one of its locks, e.g. during an open). The default logger
/// writes `.info` messages and more severe ones to standard error.
public final class Logger: Sendable {
    private let storedLevel: Atomic<UInt>
    private let function: @Sendable (LogLevel, any LogCategory, String) -> Void

    /// The most detailed level this logger receives. Changing the level of
    /// ``shared`` takes effect at once everywhere, the engine included.
    public var level: LogLevel {
        get { LogLevel(rawValue: storedLevel.load(ordering: .relaxed)) ?? .off }
        set {
            storedLevel.store(newValue.rawValue, ordering: .relaxed)
            if Logger.shared === self { LogGate.publish(self) }
        }
    }

    /// A logger receiving every message at `level` or more severe, with its
    /// level and text.
    public convenience init(level: LogLevel, logFunction: @escaping @Sendable (LogLevel, String) -> Void) {
        self.init(level: level, function: { level, _, message in logFunction(level, message) })
    }

    /// A logger receiving every message at `level` or more severe, with its
    /// level, its category and its text (RealmSwift 10.50's categories).
    public init(level: LogLevel, function: @escaping @Sendable (LogLevel, any LogCategory, String) -> Void) {
        storedLevel = Atomic(level.rawValue)
        self.function = function
    }

    /// The logger every message goes to. Settable; the new logger's level
    /// takes effect at once.
    public static var shared: Logger {
        get { LogGate.current.withLock { $0 } }
        set { LogGate.current.withLock { $0 = newValue }; LogGate.publish(newValue) }
    }

    /// Sends a message to this logger's function unless `level` is more
    /// detailed than the logger's.
    public func log(level: LogLevel, category: any LogCategory = Category.sdk, message: String) {
        guard level != .off, level.rawValue <= storedLevel.load(ordering: .relaxed) else { return }
        function(level, category, message)
    }
}

/// The shared logger and its level as one atomic, read by every log point.
enum LogGate {
    static let current = Protected<Logger>(Logger(level: .info) { level, message in
        FileHandle.standardError.write(Data("RealmLite \(level): \(message)\n".utf8))
    })
    /// The shared logger's level; 0 (off) skips everything.
    static let threshold = Atomic<UInt>(LogLevel.info.rawValue)
    /// Told when the shared logger or its level changes: the open files
    /// take the engine's level from it (set by Storage/SharedEnv.swift, so
    /// that this lowest layer calls nothing above it).
    /// Set once, by the first open of a file; behind a plain NSLock, not a
    /// Protected: that generic class's metadata for this closure type would
    /// be built on that open.
    static var onChange: (@Sendable (LogLevel) -> Void)? {
        get { onChangeLock.withLock { _onChange } }
        set { onChangeLock.withLock { _onChange = newValue } }
    }
    private static let onChangeLock = NSLock()
    nonisolated(unsafe) private static var _onChange: (@Sendable (LogLevel) -> Void)?

    static func publish(_ logger: Logger) {
        guard current.withLock({ $0 === logger }) else { return }
        threshold.store(logger.level.rawValue, ordering: .relaxed)
        onChange?(logger.level)
    }

    /// True if a message at `level` would reach the shared logger.
    @inline(__always)
    static func enabled(_ level: LogLevel) -> Bool {
        level.rawValue <= threshold.load(ordering: .relaxed) && level != .off
    }
}

/// Logs `message` at `level` to ``Logger/shared``. The message is built
/// only if the level is on.
@inline(__always)
func realmLog(_ level: LogLevel, _ category: any LogCategory, _ message: @autoclosure () -> String) {
    guard LogGate.enabled(level) else { return }
    Logger.shared.log(level: level, category: category, message: message())
}

/// Milliseconds since `start` (DispatchTime nanoseconds), for messages.
func elapsedMilliseconds(since start: UInt64) -> String {
    let nanoseconds = DispatchTime.now().uptimeNanoseconds &- start
    return String(format: "%.3f", Double(nanoseconds) / 1_000_000)
}
