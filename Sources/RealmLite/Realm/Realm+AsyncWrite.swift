import Dispatch

// Asynchronous writes, RealmSwift's API (the queue behind them:
// Core/RealmCore+AsyncWrites.swift).

/// Identifies a write queued by ``Realm/writeAsync(_:onComplete:)`` or
/// ``Realm/beginAsyncWrite(_:)``, or an async commit's callback: pass it to
/// ``Realm/cancelAsyncWrite(_:)``. Unique within one Realm instance.
public typealias AsyncTransactionId = UInt32

extension Realm {
    /// Queues `block` to run in a write transaction in this Realm's context
    /// (main thread, serial queue or actor) once the write lock is free,
    /// without blocking meanwhile; the transaction is committed afterwards
    /// (grouped with other async commits) and `onComplete` runs here once it
    /// is durable, with the error if it failed.
    @discardableResult
    public func writeAsync(_ block: @escaping () -> Void, onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        let core = self.core
        return orStop {
            try core.beginAsyncWrite {
                block()
                if core.isInWriteTransaction {
                    _ = try? core.commitAsyncWrite(allowGrouping: true, onComplete)
                } else {
                    onComplete?(nil) // the block cancelled or committed itself
                }
            }
        }
    }

    /// Queues `asyncWriteBlock` to run once the write lock is acquired, in a
    /// write transaction that it (or a later call) ends with
    /// commitAsyncWrite or cancelAsyncWrite. Returns an id for cancelAsyncWrite.
    @discardableResult
    public func beginAsyncWrite(_ asyncWriteBlock: @escaping () -> Void) -> AsyncTransactionId {
        orStop { try core.beginAsyncWrite(asyncWriteBlock) }
    }

    /// Commits the current write transaction without waiting for the disk;
    /// `onComplete` runs in this Realm's context once it is durable. With
    /// `allowGrouping`, consecutive async commits share one flush.
    @discardableResult
    public func commitAsyncWrite(allowGrouping: Bool = false, _ onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        orStop { try core.commitAsyncWrite(allowGrouping: allowGrouping, onComplete) }
    }

    /// Cancels a queued async write (it never runs), an open one (rolled
    /// back), or the callback of an async commit (the commit stands).
    public func cancelAsyncWrite(_ asyncTransactionId: AsyncTransactionId) throws {
        try core.cancelAsyncWrite(asyncTransactionId)
    }

    /// True while async writes are queued, open, or not yet flushed.
    public var isPerformingAsynchronousWriteOperations: Bool {
        core.verifyThread()
        return core.asyncWrites.isBusy
    }

    /// Runs `block` in a write transaction without blocking the calling
    /// actor while waiting for the write lock or the flush:
    /// `try await realm.asyncWrite { realm.add(person) }`. Must be called
    /// from the actor the Realm is isolated to.
    @discardableResult
    public func asyncWrite<Result>(_ block: () throws -> Result,
                                   isolation: isolated (any Actor)? = #isolation) async throws -> Result {
        let core = self.core
        try core.checkThread()
        while try !core.beginWriteTransaction(wait: false) {
            let env = core.env
            await withCheckedContinuation { (resume: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    env.waitForWriteLock()
                    resume.resume()
                }
            }
        }
        let (result, committed) = try core.performWrite(deferFlush: true, block)
        if committed {
            let env = core.env
            let error: Realm.Error? = await withCheckedContinuation { resume in
                DispatchQueue.global().async { resume.resume(returning: env.syncError("Flushing the write")) }
            }
            if let error { throw error }
        }
        return result
    }
}
