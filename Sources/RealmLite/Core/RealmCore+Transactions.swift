import CStorage
import Dispatch

// A live core's transitions (the state diagram is in RealmCore.swift):
// begin / commit / cancel a write, refresh, invalidate.

extension RealmCore {
    /// Begins the write transaction. `wait: false` returns false instead of
    /// waiting when another writer holds the lock (async writes).
    @discardableResult
    func beginWriteTransaction(wait: Bool = true, runningQueued: Bool = false) throws -> Bool {
        try checkThread()
        if isFrozen {
            throw Realm.Error(.frozen, "Cannot write to a frozen Realm: call thaw() to get a live Realm first.")
        }
        if write != nil {
            throw Realm.Error(.wrongTransactionState,
                              "The Realm is already in a write transaction: nested writes are not allowed; commit or cancel the current write first.")
        }
        if configuration.readOnly {
            throw Realm.Error(.readOnly, "Cannot write to a Realm opened with readOnly = true; open it without readOnly to modify it.")
        }
        // A synchronous write runs after the async writes queued before it.
        if wait && !runningQueued && asyncWrites.hasPending { try runAsyncWritesNow() }
        closeReadCursors()
        guard let txn = try env.beginWrite(wait: wait) else { return false }
        do {
            try checkStoredSchema(in: txn)
        } catch {
            txn.abort()
            throw error
        }
        write = WriteTransaction(txn: txn, hot: hot)
        if LogGate.enabled(.debug) {
            write?.startedAt = DispatchTime.now().uptimeNanoseconds
            realmLog(.debug, Category.Storage.transaction, "Begin write of txn \(txn.id) on '\(env.path)'")
        }
        if readState == .active { readTxn.reset() }
        readState = .active
        generation &+= 1
        return true
    }

    /// Commits the write transaction. If an operation inside it failed, the
    /// transaction is cancelled instead and that error is thrown.
    /// `deferFlush`: visible at once, durable with the next flush (grouped
    /// async commits, RealmCore+AsyncWrites.swift).
    func commitWriteTransaction(deferFlush: Bool = false, withoutNotifying tokens: [NotificationToken] = []) throws {
        try checkThread()
        guard let transaction = write else {
            throw Realm.Error(.wrongTransactionState, "Cannot commit: the Realm is not in a write transaction.")
        }
        // A run of appends' pending marker (ListAppend.swift), before the error check: writing it may fail.
        transaction.flushListAppend()
        if let error = transaction.error {
            cancelWriteTransaction()
            throw error
        }
        do {
            try checkActiveVersions()
            try saveNextKeys(transaction)
        } catch {
            cancelWriteTransaction()
            throw error
        }
        let collectionChanges = transaction.collectionChangeCommit // before the commit ends the transaction
        transaction.context.forgetCursors() // the engine closes a write transaction's cursors
        write = nil
        let committed = Result { try transaction.txn.commit(deferFlush: deferFlush) }
        renewReadTransaction()
        if case .failure = committed {
            retireUncommittedKeys(transaction)
            forgetClasses(registeredBy: transaction)
            listsTreeHandle = absentTree
        }
        try committed.get()
        if let collectionChanges { env.collectionChanges.record(collectionChanges) }
        realmLog(.debug, Category.Storage.transaction,
                 "Committed write on '\(env.path)' after \(elapsedMilliseconds(since: transaction.startedAt)) ms\(deferFlush ? " (flush deferred)" : "")")
        env.didCommit(from: self)
        if !observers.isEmpty {
            skipNotifications(for: tokens)
            scheduleNotifications()
        }
    }

    /// Discards every change of the write transaction. Objects added in it
    /// become invalidated.
    func cancelWriteTransaction() {
        guard let transaction = write else {
            realmFatal(.wrongTransactionState, "Cannot cancel: the Realm is not in a write transaction.")
        }
        transaction.discardListAppend()
        transaction.context.forgetCursors()
        write = nil
        transaction.txn.abort()
        realmLog(.debug, Category.Storage.transaction,
                 "Cancelled write on '\(env.path)' after \(elapsedMilliseconds(since: transaction.startedAt)) ms")
        retireUncommittedKeys(transaction)
        forgetClasses(registeredBy: transaction)
        // The lists tree may have been created by the cancelled write: its
        // handle names a tree the snapshot no longer has.
        listsTreeHandle = absentTree
        renewReadTransaction()
    }

    /// The body of every synchronous-style write (write {}, asyncWrite):
    /// runs `block` in the open write transaction, cancels it if the block
    /// throws, and commits it if the block left it open. Returns the block's
    /// result and whether this call committed.
    func performWrite<Result>(deferFlush: Bool, withoutNotifying tokens: [NotificationToken] = [],
                              _ block: () throws -> Result) throws -> (result: Result, committed: Bool) {
        let result: Result
        do {
            result = try block()
        } catch {
            if isInWriteTransaction { cancelWriteTransaction() }
            throw error
        }
        guard isInWriteTransaction else { return (result, false) }
        try commitWriteTransaction(deferFlush: deferFlush, withoutNotifying: tokens)
        return (result, true)
    }

    /// Configuration.maximumNumberOfActiveVersions: the commit would add a
    /// version while readers pin that many already.
    private func checkActiveVersions() throws {
        guard let limit = configuration.maximumNumberOfActiveVersions else { return }
        let pinned = try env.activeVersions()
        if UInt(pinned) + 1 > limit {
            throw Realm.Error(.tooManyActiveVersions,
                              "Number of active versions (\(pinned + 1)) in the Realm exceeded the limit of \(limit) (Configuration.maximumNumberOfActiveVersions): release frozen objects, ThreadSafeReferences and Realms on idle threads (or call invalidate() on them) so that old versions can be reclaimed.")
        }
    }

    /// Keys handed out by a write that did not commit are never used again.
    private func retireUncommittedKeys(_ transaction: WriteTransaction) {
        let counters = transaction.nextKeys.map { ($0.info.name, $0.next) }
        env.withCancelledKeyFloor { floor in
            for (name, next) in counters { floor[name] = max(floor[name] ?? 0, next) }
        }
    }

    /// Moves to the newest committed version. Returns true if it changed.
    /// An explicit refresh() delivers notifications before it returns, as
    /// RealmSwift's does; autorefresh has them computed on the notifier.
    @discardableResult
    func refresh(notifyingAtOnce: Bool = true) -> Bool {
        verifyThread()
        guard write == nil, !isFrozen else { return false }
        let before = readState == .active ? readTxn.id : 0
        closeReadCursors()
        if readState == .active { readTxn.reset() }
        renewReadTransaction()
        readState = .active
        let advanced = readTxn.id != before
        if advanced && !observers.isEmpty { deliverNotifications(synchronously: notifyingAtOnce) }
        return advanced
    }

    /// Releases the snapshot (its pages become reusable once no one else
    /// needs them); the next read takes the newest version. Cancels a write
    /// in progress and finishes pending async writes first.
    func invalidate() {
        verifyThread()
        guard !isFrozen else { return }
        if asyncWrites.hasPending { try? runAsyncWritesNow() }
        if write != nil { cancelWriteTransaction() }
        invalidations &+= 1
        generation &+= 1 // accessors re-read, and find themselves invalidated
        guard readState == .active else { return }
        closeReadCursors()
        readTxn.reset()
        readState = .released
        generation &+= 1
    }

    /// Takes the newest snapshot into the (reset) read transaction.
    func renewReadTransaction() {
        closeReadCursors()
        readTxn.renew()
        generation &+= 1
        orStop { try checkStoredSchema(in: readTxn) }
    }

    func closeReadCursors() {
        guard write == nil else { return }
        reads?.closeCursors()
    }
}

// MARK: - Autorefresh

extension RealmCore {
    /// Another Realm committed: advance at the start of this context's next
    /// turn (main thread, serial queue, actor), if autorefresh is on.
    /// Called by the committing thread with the env's registry locked (so
    /// this core's memory stays valid even if its deinit has begun): it
    /// touches only immutable state and must not retain the core; the
    /// scheduled work finds it again by serial.
    func scheduleAutorefresh() {
        guard !refreshScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let env = self.env, serial = self.serial
        let scheduled = confinement.schedule {
            guard let core = env.liveCore(serial) else { return }
            core.refreshScheduled.store(false, ordering: .releasing)
            if !core.autorefresh {
                core.notifyRefreshRequired()
            } else if core.write == nil, core.readState == .active {
                core.refresh(notifyingAtOnce: false) // notifications follow from the notifier
            }
        }
        if !scheduled { refreshScheduled.store(false, ordering: .releasing) }
    }
}
