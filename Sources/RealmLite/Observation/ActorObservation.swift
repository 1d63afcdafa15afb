// Actor-isolated observation (RealmSwift 10.39): `observe(on: actor)` hands
// the observed value to the actor's own Realm with a ThreadSafeReference and
// registers there, so the block runs on the actor's executor (that Realm's
// deliveries are actor jobs) and is passed the actor as an isolated
// parameter. The call is `async` because it waits for the registration on
// the actor; it runs in the caller's isolation (`#isolation`), so the
// non-Sendable value never crosses actors itself.

/// Runs `body` isolated to `actor`.
private func onActor<A: Actor, R: Sendable>(_ actor: isolated A, _ body: @Sendable (isolated A) async -> R) async -> R {
    await body(actor)
}

/// Calls a block whose first parameter is `isolated A` from code that runs on
/// `actor`'s executor but is not statically isolated to it: the Realm's
/// delivery, which its confinement schedules as a job of that actor. An
/// `isolated` parameter is an ordinary parameter at the machine level.
func invokeIsolated<A: Actor, Arg>(_ actor: A, _ block: @escaping @Sendable (isolated A, Arg) -> Void, _ argument: Arg) {
    unsafeBitCast(block, to: ((A, Arg) -> Void).self)(actor, argument)
}

/// A token that keeps `realm` (the actor's) open while it observes.
private func keeping(_ realm: Realm, open token: NotificationToken) -> NotificationToken {
    let outer = NotificationToken()
    outer.forward(to: token, realm: realm)
    return outer
}

/// Hands `value` to `actor`'s Realm and calls `register` there with the
/// value as that Realm sees it; the returned token is the observation's.
/// A task cancelled before the registration gets an invalidated token.
func observe<A: Actor, Value: ThreadConfined>(
    _ value: Value, on actor: A, what: String, isolation: isolated (any Actor)?,
    _ register: @escaping (A, Value) -> NotificationToken
) async -> NotificationToken {
    guard let realm = value.realm else {
        realmFatal(.invalidValue, "Only managed values can be observed: this \(what) is unmanaged; add it (or its owner) to a Realm first.")
    }
    if value.isFrozen {
        realmFatal(.frozen, "Cannot observe a frozen \(what): frozen values never change. Observe the live one (thaw()).")
    }
    if value.isInvalidated {
        realmFatal(.invalidatedObject, "Cannot observe an invalidated \(what) (deleted, or its Realm invalidated): re-fetch it first.")
    }
    if realm.isInWriteTransaction {
        realmFatal(.wrongTransactionState, "Cannot add a notification block inside a write transaction: register it before realm.write { }.")
    }
    let reference = ThreadSafeReference(to: value)
    let configuration = realm.configuration
    // Boxed: the generic code only touches the reference (Sendable) and the
    // value resolved on the actor, but the compiler cannot tell that the
    // closure's metatypes are safe to use there.
    let resolveAndRegister = UncheckedSendable(value: { (actor: A, realm: Realm) -> NotificationToken in
        guard let resolved = realm.resolve(reference) else { return NotificationToken() }
        return keeping(realm, open: register(actor, resolved))
    })
    return await onActor(actor) { actor in
        if Task.isCancelled { return NotificationToken() }
        do {
            let actorRealm = try await Realm(configuration: configuration, actor: actor)
            return resolveAndRegister.value(actor, actorRealm)
        } catch {
            realmFatal(.fail, "Cannot observe on the given actor: its Realm did not open: \(error)")
        }
    }
}

extension Results {
    /// `observe(keyPaths:on:_:)` delivered on `actor`: the block runs isolated
    /// to it (`{ actor, change in }`) and gets these results as the actor's
    /// Realm reads them. Returns once the observer is registered there; a task
    /// cancelled before that gets an invalidated token. The same misuse as
    /// the synchronous form stops (frozen, unmanaged, inside a write).
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<Results<Element>>) -> Void) async -> NotificationToken {
        await RealmLite.observe(self, on: actor, what: "Results", isolation: _isolation) { actor, results in
            results.observe(keyPaths: keyPaths) { invokeIsolated(actor, block, $0) }
        }
    }
}

extension List {
    /// `observe(keyPaths:on:_:)` delivered on `actor`: the block runs isolated
    /// to it (`{ actor, change in }`) and gets this list as the actor's Realm
    /// reads it. Returns once the observer is registered there; a task
    /// cancelled before that gets an invalidated token.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<List<Element>>) -> Void) async -> NotificationToken {
        await RealmLite.observe(self, on: actor, what: "List", isolation: _isolation) { actor, list in
            list.observe(keyPaths: keyPaths) { invokeIsolated(actor, block, $0) }
        }
    }
}

extension MutableSet {
    /// `observe(keyPaths:on:_:)` delivered on `actor`: the block runs isolated
    /// to it (`{ actor, change in }`) and gets this set as the actor's Realm
    /// reads it. Returns once the observer is registered there; a task
    /// cancelled before that gets an invalidated token.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<MutableSet<Element>>) -> Void) async -> NotificationToken {
        await RealmLite.observe(self, on: actor, what: "MutableSet", isolation: _isolation) { actor, set in
            set.observe(keyPaths: keyPaths) { invokeIsolated(actor, block, $0) }
        }
    }
}

extension Map {
    /// `observe(keyPaths:on:_:)` delivered on `actor`: the block runs isolated
    /// to it (`{ actor, change in }`) and gets this map as the actor's Realm
    /// reads it. Returns once the observer is registered there; a task
    /// cancelled before that gets an invalidated token.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmMapChange<Map>) -> Void) async -> NotificationToken {
        await RealmLite.observe(self, on: actor, what: "Map", isolation: _isolation) { actor, map in
            map.observe(keyPaths: keyPaths) { invokeIsolated(actor, block, $0) }
        }
    }
}

extension LinkingObjects {
    /// `observe(keyPaths:on:_:)` delivered on `actor`: the block runs isolated
    /// to it (`{ actor, change in }`) and gets these linking objects as the
    /// actor's Realm reads them. Returns once the observer is registered
    /// there; a task cancelled before that gets an invalidated token.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<LinkingObjects<Element>>) -> Void) async -> NotificationToken {
        await RealmLite.observe(self, on: actor, what: "LinkingObjects", isolation: _isolation) { actor, objects in
            objects.observe(keyPaths: keyPaths) { invokeIsolated(actor, block, $0) }
        }
    }
}

extension Object {
    /// `observe(keyPaths:on:_:)` delivered on `actor`: the
    /// block runs isolated to it (`{ actor, change in }`) and gets the object
    /// as the actor's Realm reads it. Returns once the observer is registered
    /// there; a task cancelled before that gets an invalidated token.
    public func observe<A: Actor, T: Object>(keyPaths: [String]? = nil, on actor: A,
                                             _isolation: isolated (any Actor)? = #isolation,
                                             _ block: @escaping @Sendable (isolated A, ObjectChange<T>) -> Void) async -> NotificationToken {
        await RealmLite.observe(self, on: actor, what: "object of type '\(Self.className())'", isolation: _isolation) { actor, object in
            object.observe(keyPaths: keyPaths) { (change: ObjectChange<T>) in invokeIsolated(actor, block, change) }
        }
    }

    /// `observe(keyPaths:on:_:)` on an actor with Swift key
    /// paths (`[\Dog.name]`).
    public func observe<A: Actor, T: Object>(keyPaths: [PartialKeyPath<T>], on actor: A,
                                             _isolation: isolated (any Actor)? = #isolation,
                                             _ block: @escaping @Sendable (isolated A, ObjectChange<T>) -> Void) async -> NotificationToken {
        let names = keyPaths.map { _name(for: $0) }
        return await observe(keyPaths: names, on: actor, block)
    }
}

extension ThreadConfined where Self: Object {
    /// `Object.observe(keyPaths:on:_:)` on an actor for a
    /// block that does not name its change type: it gets `ObjectChange<Self>`
    /// (`dog.observe(on: actor) { actor, change in }` reads a `Dog`).
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        await RealmLite.observe(self, on: actor, what: "object of type '\(Self.className())'", isolation: _isolation) { actor, object in
            object._observe(object, keyPaths: keyPaths) { invokeIsolated(actor, block, $0) }
        }
    }
}

extension Realm {
    /// `observe(_:)` delivered on `actor`: `block` runs isolated to it with
    /// the notification and the actor's own instance of this Realm, each time
    /// that instance advances. Returns once the observer is registered there.
    public func observe<A: Actor>(on actor: A, _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, Realm.Notification, Realm) -> Void) async -> NotificationToken {
        let configuration = self.configuration
        return await onActor(actor) { actor in
            if Task.isCancelled { return NotificationToken() }
            do {
                let realm = try await Realm(configuration: configuration, actor: actor)
                let call = unsafeBitCast(block, to: ((A, Realm.Notification, Realm) -> Void).self) // as invokeIsolated
                return keeping(realm, open: realm.observe { notification, realm in call(actor, notification, realm) })
            } catch {
                realmFatal(.fail, "Cannot observe on the given actor: its Realm did not open: \(error)")
            }
        }
    }
}

extension RealmCollection {
    /// `observe(keyPaths:on:_:)` delivered on `actor`, for generic code and
    /// ``AnyRealmCollection``: the block runs isolated to the actor and gets
    /// the collection as the actor's Realm reads it.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<Self>) -> Void) async -> NotificationToken {
        await RealmLite.observe(self, on: actor, what: "\(Self.self)", isolation: _isolation) { actor, collection in
            collection.observe(keyPaths: keyPaths, on: nil) { invokeIsolated(actor, block, $0) }
        }
    }
}

extension ThreadConfined where Self: EmbeddedObject {
    /// `observe(keyPaths:on:_:)` of an embedded object delivered on `actor`:
    /// the block runs isolated to it with the object as the actor's Realm
    /// reads it.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        await RealmLite.observe(self, on: actor, what: "object of type '\(Self.className())'", isolation: _isolation) { actor, object in
            object._observe(object, keyPaths: keyPaths) { invokeIsolated(actor, block, $0) }
        }
    }
}
