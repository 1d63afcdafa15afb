import CStorage
import Foundation
import Synchronization

// Change notifications: Realm.observe, Results/List/MutableSet/LinkingObjects
// .observe (RealmCollectionChange with deletions, insertions, modifications)
// and Object.observe (ObjectChange with the changed properties).
//
// Each observer remembers the version it last reported, as a frozen core
// (shared by all observers at that version, one pinned version). When the
// Realm advances (its own commit, refresh(), autorefresh), the observer
// compares that version with the new one: the collection's element keys
// with a Myers diff (CollectionDifference), and which objects changed with
// the engine's snapshot diff (cs_tree_diff, cost proportional to the change).
// Blocks run in the Realm's context: the initial one at the next turn,
// then after each change. `write(withoutNotifying:)` moves the given tokens
// past that write silently.

/// One registered block and the version it has reported up to.
final class Observer {
    let cancelled = Atomic(false)
    /// The frozen core of the version last reported (nil before the initial call).
    var reported: RealmCore?
    /// Computes and reports the change from `reported` to the live core's version.
    var deliver: (Observer, RealmCore) -> Void = { _, _ in }
    /// Realm observers: told that another Realm committed while autorefresh is off.
    var refreshRequired: (() -> Void)?
}

extension RealmCore {
    func addObserver(_ deliver: @escaping (Observer, RealmCore) -> Void, what: String) -> NotificationToken {
        verifyThread()
        if isFrozen {
            realmFatal(.frozen, "Cannot observe a frozen \(what): frozen values never change. Observe the live one (thaw()).")
        }
        if write != nil {
            realmFatal(.wrongTransactionState, "Cannot add a notification block inside a write transaction: register it before realm.write { }.")
        }
        let observer = Observer()
        observer.deliver = deliver
        observers.append(observer)
        scheduleNotifications(orStopWith: "Notifications need a Realm that can run callbacks: one opened on the main actor (the main thread), on a serial queue (Realm(configuration:queue:)) or in an actor (Realm(actor:)). A plain thread, or a task outside any actor (try await Realm() there), has no turns to deliver them in.")
        return NotificationToken(observer: observer)
    }

    /// Delivers at the start of this context's next turn (coalesced).
    func scheduleNotifications(orStopWith message: String? = nil) {
        if notificationScheduled || observers.isEmpty { return }
        notificationScheduled = true
        let scheduled = confinement.schedule { [self] in
            notificationScheduled = false
            deliverNotifications()
        }
        if !scheduled {
            notificationScheduled = false
            if let message { realmFatal(.incorrectThread, message) }
        }
    }

    /// Tells every observer about the change since it last reported.
    func deliverNotifications() {
        observers.removeAll { $0.cancelled.load(ordering: .acquiring) }
        guard !observers.isEmpty else { return }
        if write != nil || delivering { return scheduleNotifications() } // after the write / the current block
        if readState != .active { return }
        delivering = true
        defer { delivering = false }
        let current = version
        var delivered = 0
        for observer in observers where !observer.cancelled.load(ordering: .acquiring) {
            if let reported = observer.reported, reported.version == current { continue }
            observer.deliver(observer, self)
            delivered += 1
        }
        realmLog(.debug, Category.Storage.notification,
                 "Delivered version \(current) of '\(env.path)' to \(delivered) of \(observers.count) observers")
    }

    /// Another Realm committed and autorefresh is off: tell Realm observers.
    func notifyRefreshRequired() {
        for observer in observers where !observer.cancelled.load(ordering: .acquiring) { observer.refreshRequired?() }
    }

    /// `write(withoutNotifying:)`: these observers skip the commit just made.
    func skipNotifications(for tokens: [NotificationToken]) {
        guard !tokens.isEmpty, let frozen = try? freeze() else { return }
        for token in tokens {
            guard let observer = token.observer, observer.reported != nil else { continue }
            observer.reported = frozen
        }
    }

    /// The frozen core of the current version, for observers to compare with later.
    func snapshotForObservers() -> RealmCore? { try? freeze() }
}
