import Foundation
import Synchronization

// The notifier: one thread per open file per process that computes
// observers' changes (RealmCore+Observers.swift, N1-N3) between two frozen
// versions, so that the cost of finding what changed (reading the changed
// records, re-running a sorted query) is not paid on the observer's thread.
// Frozen cores give each thread its own transaction on the pinned version,
// so the notifier reads them as any thread may.
//
// One thread, not a dispatch queue: a frozen core keeps one transaction per
// thread that read it, and a queue would spread the work over the pool.

final class ChangeNotifier: @unchecked Sendable {
    // @unchecked: `jobs`, `thread` and `stopping` are guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var thread: Thread?
    private var stopping = false
    /// Changes being computed or on their way back, in every file (tests
    /// wait for it to reach zero before checking what was delivered).
    static let inFlight = Atomic<Int>(0)

    /// Runs `job` on the notifier thread, after the jobs before it.
    func enqueue(_ job: @escaping () -> Void) {
        condition.lock()
        defer { condition.unlock() }
        jobs.append(job)
        if thread == nil && !stopping {
            let thread = Thread { [self] in run() }
            thread.name = "RealmLite notifier"
            self.thread = thread
            thread.start()
        }
        condition.signal()
    }

    /// Lets `value` go on the notifier thread: an observer's previous state
    /// (a large collection's elements) is freed there, not on the
    /// observer's thread.
    func release<Value>(_ value: Value) {
        let box = UncheckedSendable(value: value)
        enqueue { _ = box }
    }

    /// Ends the thread once its queued jobs are done (the file is closing).
    /// Does not wait: the last job may be what closes the file.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty { // stopping
                condition.unlock()
                return
            }
            let batch = jobs
            jobs.removeAll()
            condition.unlock()
            for job in batch { job() }
        }
    }
}

extension RealmCore {
    /// Computes `observer`'s change from the version it reported to `now`
    /// on the file's notifier, then hands it back to this core's context.
    func requestChange(for observer: Observer, to now: RealmCore) {
        observer.computing = true
        ChangeNotifier.inFlight.add(1, ordering: .relaxed)
        let pending = PendingChange(observer: observer, base: observer.reported, now: now)
        let env = self.env, serial = self.serial, confinement = self.confinement
        env.notifier.enqueue {
            pending.compute()
            // Observers exist only in contexts that can be scheduled on (addObserver).
            _ = confinement.schedule {
                defer { ChangeNotifier.inFlight.subtract(1, ordering: .releasing) }
                guard let (observer, base, now, delivery) = pending.take() else { return }
                env.liveCore(serial)?.receive(delivery, for: observer, from: base, to: now)
            }
        }
    }
}

/// One observer's change in the making. Its references (the observer, and
/// through it and the delivery the observed collection and its live Realm)
/// are let go on the observer's thread, in `take()`: were the notifier the
/// last to hold a live Realm, the Realm would end on the wrong thread.
private final class PendingChange: @unchecked Sendable {
    // @unchecked: written on the notifier before the hand-over to the
    // observer's context (which orders it), then only there.
    private var observer: Observer?
    private let base: RealmCore?
    private let now: RealmCore
    private var delivery = Delivery()

    init(observer: Observer, base: RealmCore?, now: RealmCore) {
        self.observer = observer
        self.base = base
        self.now = now
    }

    func compute() {
        guard let observer, !observer.cancelled.load(ordering: .acquiring) else { return }
        delivery = observer.compute(base, now)
    }

    func take() -> (Observer, RealmCore?, RealmCore, Delivery)? {
        defer {
            observer = nil
            delivery = Delivery()
        }
        return observer.map { ($0, base, now, delivery) }
    }
}
