import Foundation

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
        let work = UncheckedSendable(value: (observer, observer.reported, now, observer.compute))
        let env = self.env, serial = self.serial, confinement = self.confinement
        env.notifier.enqueue {
            let (observer, base, now, compute) = work.value
            let delivery = observer.cancelled.load(ordering: .acquiring) ? Delivery() : compute(base, now)
            let result = UncheckedSendable(value: (observer, base, now, delivery))
            // Observers exist only in contexts that can be scheduled on (addObserver).
            _ = confinement.schedule {
                let (observer, base, now, delivery) = result.value
                env.liveCore(serial)?.receive(delivery, for: observer, from: base, to: now)
            }
        }
    }
}
