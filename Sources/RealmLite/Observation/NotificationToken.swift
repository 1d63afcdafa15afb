import Dispatch
import Foundation
import Synchronization

/// Returned by every observe(): keep it while you want notifications;
/// invalidate() (or releasing it) stops them.
public final class NotificationToken: @unchecked Sendable {
    // @unchecked: `observer` is only touched through its atomic flag; the
    // forwarded state of `observe(on: queue)` tokens is guarded by `lock`.
    let observer: Observer?
    private let lock = NSLock()
    private var forwarded: (token: NotificationToken, realm: UncheckedSendable<Realm>)?
    private var invalidated = false

    /// A token observing nothing (RealmSwift lets apps create one).
    public init() { observer = nil }

    init(observer: Observer) { self.observer = observer }

    deinit { invalidate() }

    /// Stops the notifications; safe from any thread.
    public func invalidate() {
        observer?.cancelled.store(true, ordering: .releasing)
        lock.lock()
        invalidated = true
        let inner = forwarded
        forwarded = nil
        lock.unlock()
        guard let inner else { return }
        inner.token.invalidate()
        // The queue's Realm is released on its queue (confined cores end in their context).
        let realm = inner.realm
        _ = realm.value.core.confinement.schedule { _ = realm }
    }

    /// `observe(on: queue)` and `observe(on: actor)`: the token of the
    /// observer registered on the queue's or actor's Realm, which this token
    /// keeps open.
    func forward(to token: NotificationToken, realm: Realm) {
        lock.lock()
        let keep = !invalidated
        if keep { forwarded = (token, UncheckedSendable(value: realm)) }
        lock.unlock()
        if !keep { token.invalidate() }
    }
}

/// Delivers a confined value's notifications on `queue`: the value is handed
/// over with a ThreadSafeReference and observed through the queue's Realm.
func observe<T: ThreadConfined>(_ value: T, on queue: DispatchQueue,
                                _ register: @escaping (T) -> NotificationToken) -> NotificationToken {
    guard let realm = value.realm else {
        realmFatal(.invalidValue, "Only managed values can be observed: add them to a Realm first.")
    }
    let reference = ThreadSafeReference(to: value)
    let configuration = realm.configuration
    let outer = NotificationToken()
    let work = UncheckedSendable(value: { // runs on `queue` only
        do {
            let queueRealm = try Realm(configuration: configuration, queue: queue)
            guard let resolved = queueRealm.resolve(reference) else { return }
            outer.forward(to: register(resolved), realm: queueRealm)
        } catch {
            realmFatal(.fail, "Cannot observe on the given queue: \(error)")
        }
    })
    queue.async { work.value() }
    return outer
}
