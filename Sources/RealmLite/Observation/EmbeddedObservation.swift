import Dispatch

// Embedded objects are observed as objects are (RealmSwift's
// EmbeddedObject.observe): they have their own rows, so the same record
// comparison applies, and they can be handed to a queue or an actor.

extension EmbeddedObject: ThreadConfined {
    /// The same embedded object read through `core` (nil if it is gone there).
    public func _rlmMoved(to core: RealmCore) -> Self? { core.counterpart(of: self) }
}

extension EmbeddedObject {
    /// Calls `block` after each commit that changes this embedded object, with
    /// the changed properties (old and new values), and once with `.deleted`
    /// (also when its parent is deleted or it is replaced); there is no
    /// initial call. `T` is the type the block's ``ObjectChange`` names.
    ///
    /// - Parameters:
    ///   - keyPaths: only changes to these properties count; a name that is
    ///     not a property stops with ``Realm/Error/Code/invalidValue``.
    ///   - queue: a serial queue to deliver on; nil delivers in this Realm's context.
    ///   - block: called with each ``ObjectChange``.
    /// - Returns: the token; the notifications stop when it is invalidated or released.
    public func observe<T: ObjectBase>(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        guard let typed = self as? T else {
            realmFatal(.invalidValue, "Cannot observe a '\(Self.className())' as ObjectChange<\(T.self)>: the block must take the object's class or a superclass of it.")
        }
        if let queue { return RealmLite.observe(self, on: queue) { $0.observe(keyPaths: keyPaths, block) } }
        return _observe(typed, keyPaths: keyPaths, block)
    }
}

extension ThreadConfined where Self: EmbeddedObject {
    /// ``EmbeddedObject/observe(keyPaths:on:_:)`` for a block that does not
    /// name its change type: it gets `ObjectChange<Self>`.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        if let queue { return RealmLite.observe(self, on: queue) { $0._observe($0, keyPaths: keyPaths, block) } }
        return _observe(self, keyPaths: keyPaths, block)
    }

    /// The embedded object's changes as an `AsyncSequence`, ending after
    /// `.deleted`: see ``ChangeSequence``.
    public var changes: ChangeSequence<ObjectChange<Self>> {
        ChangeSequence(register: { block in
            let token = self._observe(self, keyPaths: nil, block) // stops for an unmanaged object
            return (token, self._realm.unsafelyUnwrapped)
        }, isLast: { change in
            if case .deleted = change { return true }
            return false
        })
    }
}
