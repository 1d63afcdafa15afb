import CStorage
import Dispatch
import Foundation

// Asynchronous writes (RealmSwift 10.26 semantics).
//
// beginAsyncWrite queues a block; it runs in the Realm's own context (main
// thread, serial queue or actor) once the write lock is taken, without ever
// blocking that context: the lock is tried, and if another writer holds it a
// helper thread waits for it and reschedules the attempt. commitAsyncWrite
// commits without flushing (visible at once); the flush runs on a helper
// thread and the completion callbacks run in the Realm's context after it.
// With allowGrouping, commits of async writes queued back to back share one
// flush. A synchronous write, invalidate() and the end of the Realm run the
// queued async writes first (a Realm with pending async writes stays alive
// until they are done).

/// The async-write state of one core.
struct AsyncWriteQueue {
    struct Begin {
        let id: AsyncTransactionId
        let block: () -> Void
    }

    struct Commit {
        let id: AsyncTransactionId
        var onComplete: ((Swift.Error?) -> Void)?
    }

    var lastId: AsyncTransactionId = 0
    /// Blocks waiting for the write lock, in order.
    var waiting: [Begin] = []
    /// The async write whose transaction is open now.
    var running: AsyncTransactionId?
    /// Committed, waiting for their flush (then their callbacks run).
    var unflushed: [Commit] = []
    /// Committed and being flushed by a helper thread.
    var flushing: [Commit] = []
    /// A flush was asked for by a commit without grouping.
    var flushRequested = false
    var pumpScheduled = false
    var waitingForLock = false

    var hasPending: Bool { !waiting.isEmpty || running != nil || !unflushed.isEmpty }
    var isBusy: Bool { hasPending || !flushing.isEmpty }

    mutating func nextId() -> AsyncTransactionId {
        lastId &+= 1
        return lastId
    }
}

extension RealmCore {
    func beginAsyncWrite(_ block: @escaping () -> Void) throws -> AsyncTransactionId {
        try checkThread()
        if isFrozen { throw Realm.Error(.frozen, "Cannot write to a frozen Realm: call thaw() to get a live Realm first.") }
        if configuration.readOnly {
            throw Realm.Error(.readOnly, "Cannot write to a Realm opened with readOnly = true; open it without readOnly to modify it.")
        }
        let id = asyncWrites.nextId()
        asyncWrites.waiting.append(.init(id: id, block: block))
        try schedulePump()
        return id
    }

    func commitAsyncWrite(allowGrouping: Bool, _ onComplete: ((Swift.Error?) -> Void)?) throws -> AsyncTransactionId {
        try checkThread()
        let id = asyncWrites.nextId()
        let wasRunning = asyncWrites.running
        do {
            try commitWriteTransaction(deferFlush: true)
        } catch {
            asyncWrites.running = nil
            if let onComplete { _ = confinement.schedule { onComplete(error) } }
            try? schedulePump()
            return id
        }
        if wasRunning != nil { asyncWrites.running = nil }
        asyncWrites.unflushed.append(.init(id: id, onComplete: onComplete))
        if !allowGrouping { asyncWrites.flushRequested = true }
        try schedulePump()
        return id
    }

    func cancelAsyncWrite(_ id: AsyncTransactionId) throws {
        try checkThread()
        if let index = asyncWrites.waiting.firstIndex(where: { $0.id == id }) {
            asyncWrites.waiting.remove(at: index)
        } else if asyncWrites.running == id, write != nil {
            cancelWriteTransaction()
            asyncWrites.running = nil
            try? schedulePump()
        } else if let index = asyncWrites.unflushed.firstIndex(where: { $0.id == id }) {
            asyncWrites.unflushed[index].onComplete = nil // the commit stands
        } else if let index = asyncWrites.flushing.firstIndex(where: { $0.id == id }) {
            asyncWrites.flushing[index].onComplete = nil
        } else {
            throw Realm.Error(.invalidValue, "No pending async write has id \(id): it has already run, or the id is not from this Realm.")
        }
    }

    /// Runs the next step in this context soon. The closure holds the core,
    /// so that a Realm with async work pending finishes it.
    private func schedulePump() throws {
        if asyncWrites.pumpScheduled { return }
        asyncWrites.pumpScheduled = true
        let scheduled = confinement.schedule { [self] in
            asyncWrites.pumpScheduled = false
            pumpAsyncWrites()
        }
        if !scheduled {
            asyncWrites.pumpScheduled = false
            throw Realm.Error(.incorrectThread,
                              "Async writes need a Realm that can run callbacks: one opened on the main actor (the main thread), on a serial queue (Realm(configuration:queue:)) or in an actor (Realm(actor:)). In a task outside any actor use try await realm.asyncWrite { }.")
        }
    }

    /// One step: run the next queued block if the lock can be had, else
    /// flush the commits made so far.
    private func pumpAsyncWrites() {
        if write != nil || asyncWrites.running != nil { return } // resumes at commit/cancel
        if let next = asyncWrites.waiting.first {
            let acquired: Bool
            do {
                acquired = try beginWriteTransaction(wait: false)
            } catch {
                asyncWrites.waiting.removeFirst()
                try? schedulePump()
                return
            }
            guard acquired else {
                waitForWriteLockThenPump()
                return
            }
            asyncWrites.waiting.removeFirst()
            asyncWrites.running = next.id
            next.block()
            // The block committed or cancelled (running is nil again), or left
            // the transaction open for a later commitAsyncWrite.
            if asyncWrites.running == nil && write == nil { try? schedulePump() }
            return
        }
        if !asyncWrites.unflushed.isEmpty { startFlush() }
    }

    /// The lock is held elsewhere: a helper thread waits for it (without
    /// keeping it) and reschedules the attempt here.
    private func waitForWriteLockThenPump() {
        if asyncWrites.waitingForLock { return }
        asyncWrites.waitingForLock = true
        let env = self.env
        let me = UncheckedSendable(value: self)
        DispatchQueue.global().async {
            env.waitForWriteLock()
            _ = me.value.confinement.schedule {
                let core = me.value
                core.asyncWrites.waitingForLock = false
                core.pumpAsyncWrites()
            }
        }
    }

    /// Flushes the unflushed commits on a helper thread; their callbacks run
    /// here afterwards.
    private func startFlush() {
        guard asyncWrites.flushing.isEmpty else { return } // the next flush starts when this one ends
        asyncWrites.flushing = asyncWrites.unflushed
        asyncWrites.unflushed = []
        asyncWrites.flushRequested = false
        let env = self.env
        let me = UncheckedSendable(value: self)
        DispatchQueue.global().async {
            let error = env.syncError("Flushing async commits")
            _ = me.value.confinement.schedule {
                let core = me.value
                let done = core.asyncWrites.flushing
                core.asyncWrites.flushing = []
                for commit in done { commit.onComplete?(error) }
                if !core.asyncWrites.unflushed.isEmpty || !core.asyncWrites.waiting.isEmpty { try? core.schedulePump() }
            }
        }
    }

    /// Runs every queued async write now, blocking for the lock, then
    /// flushes and calls their callbacks (before a synchronous write,
    /// invalidate(), or when the Realm goes away).
    func runAsyncWritesNow() throws {
        if write != nil { return }
        while !asyncWrites.waiting.isEmpty {
            let next = asyncWrites.waiting.removeFirst()
            try beginWriteTransaction(wait: true, runningQueued: true)
            asyncWrites.running = next.id
            next.block()
            if write != nil && asyncWrites.running == next.id { return } // left open by the block
        }
        guard !asyncWrites.unflushed.isEmpty else { return }
        let done = asyncWrites.unflushed
        asyncWrites.unflushed = []
        let error = env.syncError("Flushing async commits")
        for commit in done { commit.onComplete?(error) }
    }
}
