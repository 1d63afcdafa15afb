import Dispatch
import Foundation
import Synchronization

// Opening a Realm without blocking the caller (RealmSwift's asyncOpen,
// open(downloadBeforeOpen:), asyncRefresh). The expensive part of a first
// open (creating or compacting the file, the schema check, a migration)
// runs on a background thread in a throwaway Realm instance, whose open
// file (SharedEnv) is kept until the caller's own instance has opened it:
// that second open then only takes a snapshot. There is one opening path,
// RealmCore's; this file only moves its first run off the caller.

extension Realm {
    /// When to download a synchronized Realm's data before opening it
    /// (RealmSwift's `downloadBeforeOpen`). RealmLite has no sync: every
    /// behaviour opens the local file, with a first open's work done on a
    /// background thread.
    public enum OpenBehavior: Sendable {
        /// Open at once, as the synchronous initializer does.
        case never
        /// Download everything first (RealmLite: as `never`).
        case always
        /// Download first only if the file does not exist yet (RealmLite:
        /// as `never`).
        case once
    }

    /// Opens the Realm on a background thread (creating, compacting or
    /// migrating the file there), then calls `callback` on `callbackQueue`
    /// (a serial queue) with a Realm confined to that queue, as
    /// ``init(configuration:queue:)`` gives, or with the error. The returned
    /// task can cancel it: the callback is then never called.
    @discardableResult
    public static func asyncOpen(configuration: Realm.Configuration = .defaultConfiguration,
                                 callbackQueue: DispatchQueue = .main,
                                 callback: @escaping (Result<Realm, Swift.Error>) -> Void) -> AsyncOpenTask {
        let task = AsyncOpenTask()
        let callback = UncheckedSendable(value: callback) // called on callbackQueue only
        DispatchQueue.global().async {
            let warmed = Result { try openOffCaller(configuration) }
            callbackQueue.async {
                guard !task.isCancelled else { return }
                let result = warmed.flatMap { env in
                    withExtendedLifetime(env) { Result { try Realm(configuration: configuration, queue: callbackQueue) } }
                }
                realmLog(.detail, Category.sdk, "asyncOpen of '\(SharedEnv.path(for: configuration) ?? "?")' delivered \((try? result.get()) == nil ? "an error" : "the Realm")")
                callback.value(result)
            }
        }
        return task
    }

    /// An ``asyncOpen(configuration:callbackQueue:callback:)`` in progress.
    public struct AsyncOpenTask: Sendable {
        private let cancelled = CancelFlag()

        init() {}

        var isCancelled: Bool { cancelled.flag.load(ordering: .acquiring) }

        /// Cancels the open: its callback will not be called. (The file may
        /// still be opened and migrated in the background, and is closed
        /// again.)
        public func cancel() { cancelled.flag.store(true, ordering: .releasing) }
    }

    /// Advances this Realm to the newest version, delivering its
    /// notifications, without blocking: returns whether the version changed.
    /// RealmSwift waits for the version to become available to the Realm's
    /// actor; a RealmLite Realm reads the file directly, so this refreshes at
    /// once. Call it where the Realm may be used (its actor, task, queue or
    /// thread). A frozen Realm, or one in a write transaction, returns false.
    @discardableResult
    public func asyncRefresh(isolation: isolated (any Actor)? = #isolation) async -> Bool {
        guard !Task.isCancelled else { return false }
        return core.refresh()
    }

    /// The first open of a file in this process, done here (a background
    /// thread): returns the open file, to keep until the caller's instance
    /// has opened it; nil if it was open already (nothing expensive left).
    /// Errors are the open's.
    static func openOffCaller(_ configuration: Configuration) throws -> SharedEnv? {
        if isOpenInProcess(configuration) { return nil }
        let core = try RealmCore(configuration: configuration, confinement: .thread(pthread_self()))
        return core.env // the core itself closes here, on its own thread
    }

    /// Whether a Realm of this file is open in the process already: then
    /// opening another instance takes only a snapshot, and the async opens
    /// do it at once, without leaving the caller's actor.
    static func isOpenInProcess(_ configuration: Configuration) -> Bool {
        SharedEnv.path(for: configuration).map(SharedEnv.isOpen(path:)) ?? false
    }

    /// `openOffCaller` on a background thread, awaited; then a cancelled
    /// task throws CancellationError (as RealmSwift). Call it only when
    /// `isOpenInProcess` is false (awaiting it leaves the caller's actor).
    static func openInBackground(_ configuration: Configuration) async throws -> SharedEnv? {
        let env = try await withCheckedThrowingContinuation { (resume: CheckedContinuation<SharedEnv?, Swift.Error>) in
            DispatchQueue.global().async { resume.resume(with: Result { try openOffCaller(configuration) }) }
        }
        try Task.checkCancellation()
        return env
    }
}

/// AsyncOpenTask's flag (a class: an Atomic cannot be copied with the task).
private final class CancelFlag: Sendable {
    let flag = Atomic<Bool>(false)
}
