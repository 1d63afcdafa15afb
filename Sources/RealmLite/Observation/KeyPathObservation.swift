import Dispatch

// observe(keyPaths:) with Swift key paths on collections of objects
// (RealmSwift's PartialKeyPath overloads): the key paths become their
// string form, then the string overloads run.

extension Results where Element: ObjectBase {
    /// ``observe(keyPaths:on:_:)-([String]?,_,_)`` with Swift key paths of the objects
    /// (`[\Dog.age]`, `[\Person.dogs.name]`); one that does not name
    /// persisted properties stops with ``Realm/Error/Code/invalidValue``.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: observedNames(keyPaths), on: queue, block)
    }

    /// The actor-isolated observe with Swift key paths of the objects.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<Results<Element>>) -> Void) async -> NotificationToken {
        await observe(keyPaths: observedNames(keyPaths), on: actor, block)
    }
}

extension List where Element: ObjectBase {
    /// ``observe(keyPaths:on:_:)-([String]?,_,_)`` with Swift key paths of the objects
    /// (`[\Dog.age]`); one that does not name persisted properties stops with
    /// ``Realm/Error/Code/invalidValue``.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<List<Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: observedNames(keyPaths), on: queue, block)
    }

    /// The actor-isolated observe with Swift key paths of the objects.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<List<Element>>) -> Void) async -> NotificationToken {
        await observe(keyPaths: observedNames(keyPaths), on: actor, block)
    }
}

extension MutableSet where Element: ObjectBase {
    /// ``observe(keyPaths:on:_:)-([String]?,_,_)`` with Swift key paths of the objects
    /// (`[\Dog.age]`); one that does not name persisted properties stops with
    /// ``Realm/Error/Code/invalidValue``.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<MutableSet<Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: observedNames(keyPaths), on: queue, block)
    }

    /// The actor-isolated observe with Swift key paths of the objects.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<MutableSet<Element>>) -> Void) async -> NotificationToken {
        await observe(keyPaths: observedNames(keyPaths), on: actor, block)
    }
}

extension LinkingObjects {
    /// ``observe(keyPaths:on:_:)-([String]?,_,_)`` with Swift key paths of the linking
    /// objects (`[\Person.name]`); one that does not name persisted
    /// properties stops with ``Realm/Error/Code/invalidValue``.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<LinkingObjects<Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: observedNames(keyPaths), on: queue, block)
    }

    /// The actor-isolated observe with Swift key paths of the linking objects.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<LinkingObjects<Element>>) -> Void) async -> NotificationToken {
        await observe(keyPaths: observedNames(keyPaths), on: actor, block)
    }
}

extension Map {
    /// ``observe(keyPaths:on:_:)-([String]?,_,_)`` with Swift key paths of the map's objects
    /// (`[\Pet.name]` for a `Map<String, Pet?>`); one that does not name
    /// persisted properties stops with ``Realm/Error/Code/invalidValue``.
    public func observe<O: ObjectBase>(keyPaths: [PartialKeyPath<O>], on queue: DispatchQueue? = nil,
                                       _ block: @escaping (RealmMapChange<Map>) -> Void) -> NotificationToken where Value == O? {
        observe(keyPaths: observedNames(keyPaths), on: queue, block)
    }

    /// The actor-isolated observe with Swift key paths of the map's objects.
    public func observe<A: Actor, O: ObjectBase>(keyPaths: [PartialKeyPath<O>], on actor: A,
                                                 _isolation: isolated (any Actor)? = #isolation,
                                                 _ block: @escaping @Sendable (isolated A, RealmMapChange<Map>) -> Void) async -> NotificationToken
    where Value == O? {
        await observe(keyPaths: observedNames(keyPaths), on: actor, block)
    }
}
