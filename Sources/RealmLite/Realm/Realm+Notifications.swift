// Realm-level notifications (RealmSwift's Realm.observe).

extension Realm {
    /// What a Realm notification reports.
    public enum Notification: String, Sendable {
        /// The Realm advanced to a newer version (a commit here or elsewhere).
        case didChange = "RLMRealmDidChangeNotification"
        /// Another Realm committed while autorefresh is off (call refresh()).
        case refreshRequired = "RLMRealmRefreshRequiredNotification"
    }

    /// The closure ``Realm/observe(_:)`` calls: what happened and the Realm it
    /// happened to, on the Realm's own thread, queue or actor.
    public typealias NotificationBlock = (_ notification: Notification, _ realm: Realm) -> Void

    /// Calls `block` each time this Realm advances to a newer version.
    public func observe(_ block: @escaping NotificationBlock) -> NotificationToken {
        let token = core.addObserver(what: "Realm", inline: true) { base, now in
            // No initial call: only a version newer than the one observed from.
            Delivery(notify: base == nil || base?.version == now.version ? nil : { core in block(.didChange, Realm(core: core)) })
        }
        // The observer lives in the core's list and is only called by it.
        unowned(unsafe) let core = self.core
        token.observer?.refreshRequired = { block(.refreshRequired, Realm(core: core)) }
        return token
    }
}
