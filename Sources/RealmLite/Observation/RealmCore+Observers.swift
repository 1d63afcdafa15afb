import CStorage
import Foundation
import Synchronization

// Change notifications: Realm.observe, Results/List/MutableSet/LinkingObjects
// .observe (RealmCollectionChange with deletions, insertions, modifications),
// Map.observe (RealmMapChange) and Object.observe (ObjectChange).
//
// Each observer remembers the version it last reported, as a frozen core
// (shared by all observers at that version, one pinned version). When the
// Realm advances (its own commit, autorefresh), the observer's change from
// that version to the new one is computed on the file's notifier thread
// (ChangeNotifier.swift) from the two frozen versions, and the block runs
// in the Realm's own context with the finished change: the observer's
// thread only delivers. An explicit refresh() computes and delivers at once,
// as RealmSwift does. `write(withoutNotifying:)` moves the given tokens past
// that write silently.
//
// Rules the two phases keep:
//  N1. `compute` reads only the two frozen cores it is given (any thread may
//      run it) and changes nothing: what it returns (a Delivery) brings the
//      observer's own state to the new version when it is applied.
//  N2. A Delivery is applied on the observer's thread, only while the Realm
//      reads exactly the version it was computed for and the observer still
//      reports the version it was computed from; otherwise it is dropped and
//      the change is computed again from the reported version (so several
//      commits coalesce into one change, never a partial one).
//  N3. At most one computation per observer is in flight; the observer's
//      fields below are touched only on its Realm's thread.

/// What a computed change does on the observer's thread.
struct Delivery {
    /// Brings the observer's state to the version computed for.
    var advance: () -> Void = {}
    /// Calls the block (nil: nothing to tell, e.g. no relevant change).
    var notify: ((RealmCore) -> Void)?
    /// The observer's last delivery (its object was deleted): it ends after.
    var isLast = false
}

/// One registered block and the version it has reported up to.
final class Observer {
    let cancelled = Atomic(false)
    /// The frozen core of the version last reported; before the first
    /// delivery, the version the observer was registered at, so that a
    /// commit between registration and the first delivery is reported
    /// (objects and Realms have no initial call to cover it).
    var reported: RealmCore?
    /// False until the first delivery (collections' initial call is due even
    /// if the version has not moved since registration).
    var hasDelivered = false
    /// The change from the first core (nil: the initial call) to the second
    /// (N1). Set once at registration, then only read.
    var compute: (_ base: RealmCore?, _ now: RealmCore) -> Delivery = { _, _ in Delivery() }
    /// Cheap to compute (nothing read): computed in place, not on the notifier.
    var computesInline = false
    /// Realm observers: told that another Realm committed while autorefresh is off.
    var refreshRequired: (() -> Void)?
    /// The notifier is computing for this observer (N3).
    var computing = false
    /// Computed changes dropped in a row because the Realm had moved on (N2):
    /// past a few, the change is computed in place so that a Realm that
    /// advances faster than the notifier still hears of every change.
    var dropped = 0
    /// ChangeSequence: takes computed changes instead of applying them.
    var handoff: ((_ base: RealmCore?, _ now: RealmCore, _ delivery: Delivery) -> Void)?
}

extension RealmCore {
    func addObserver(what: String, inline: Bool = false,
                     _ compute: @escaping (_ base: RealmCore?, _ now: RealmCore) -> Delivery) -> NotificationToken {
        verifyThread()
        if isFrozen {
            realmFatal(.frozen, "Cannot observe a frozen \(what): frozen values never change. Observe the live one (thaw()).")
        }
        if write != nil {
            realmFatal(.wrongTransactionState, "Cannot add a notification block inside a write transaction: register it before realm.write { }.")
        }
        let observer = Observer()
        observer.compute = compute
        observer.computesInline = inline
        observer.reported = snapshotForObservers()
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

    /// Brings every observer to the current version: computes each one's
    /// change on the notifier (or here, `synchronously` or when cheap), and
    /// delivers it when it is back.
    func deliverNotifications(synchronously: Bool = false) {
        observers.removeAll { $0.cancelled.load(ordering: .acquiring) }
        guard !observers.isEmpty else { return }
        if write != nil || delivering { return scheduleNotifications() } // after the write / the current block
        if readState != .active { return }
        guard let now = snapshotForObservers() else { return }
        delivering = true
        defer { delivering = false }
        var inPlace = 0, sent = 0
        for observer in observers where !observer.cancelled.load(ordering: .acquiring) {
            if observer.hasDelivered, let reported = observer.reported, reported.version == now.version { continue }
            if synchronously || observer.computesInline || observer.dropped >= 2 {
                let base = observer.reported
                apply(observer.compute(base, now), to: observer, from: base, to: now)
                inPlace += 1
            } else if !observer.computing {
                requestChange(for: observer, to: now)
                sent += 1
            }
        }
        realmLog(.debug, Category.Storage.notification,
                 "Version \(now.version) of '\(env.path)': \(inPlace) observers' changes computed in place, \(sent) sent to the notifier (\(observers.count) observers)")
    }

    /// Applies a change computed for `observer` from `base` to `now` (N2
    /// checked by the caller), or hands it to the observer's stream.
    func apply(_ delivery: Delivery, to observer: Observer, from base: RealmCore?, to now: RealmCore) {
        observer.hasDelivered = true
        if let handoff = observer.handoff { return handoff(base, now, delivery) }
        observer.reported = now
        observer.dropped = 0
        if delivery.isLast { observer.cancelled.store(true, ordering: .releasing) }
        delivery.advance()
        delivery.notify?(self)
    }

    /// A change computed on the notifier is back on this core's thread.
    func receive(_ delivery: Delivery, for observer: Observer, from base: RealmCore?, to now: RealmCore) {
        observer.computing = false
        guard !observer.cancelled.load(ordering: .acquiring), observers.contains(where: { $0 === observer }) else { return }
        guard observer.reported === base else { return scheduleNotifications() } // delivered meanwhile (refresh(), skip)
        guard write == nil, readState == .active, !delivering, version == now.version else {
            if version != now.version { observer.dropped += 1 }
            return scheduleNotifications() // computed again from `base` to the version read then (N2)
        }
        delivering = true
        defer { delivering = false }
        apply(delivery, to: observer, from: base, to: now)
    }

    /// Another Realm committed and autorefresh is off: tell Realm observers.
    func notifyRefreshRequired() {
        for observer in observers where !observer.cancelled.load(ordering: .acquiring) { observer.refreshRequired?() }
    }

    /// `write(withoutNotifying:)`: these observers skip the commit just made
    /// (their state advances to it, their blocks are not called).
    func skipNotifications(for tokens: [NotificationToken]) {
        guard !tokens.isEmpty, let now = snapshotForObservers() else { return }
        for token in tokens {
            guard let observer = token.observer, let base = observer.reported else { continue }
            observer.compute(base, now).advance()
            observer.reported = now
        }
    }

    /// The frozen core of the current version, for observers to compare with later.
    func snapshotForObservers() -> RealmCore? { try? freeze() }
}
