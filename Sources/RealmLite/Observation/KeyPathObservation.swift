import Dispatch

// observe(keyPaths:) with Swift key paths (RealmSwift's PartialKeyPath
// overloads) where RealmCollection does not give them: the actor forms, and
// maps of objects. The key paths become their string form (`_name(for:)`),
// then the string overloads run.

extension Results where Element: ObjectBase {
    /// The actor-isolated observe with Swift key paths of the objects.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<Results<Element>>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map { _name(for: $0) }, on: actor, block)
    }
}

extension List where Element: ObjectBase {
    /// The actor-isolated observe with Swift key paths of the objects.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<List<Element>>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map { _name(for: $0) }, on: actor, block)
    }
}

extension MutableSet where Element: ObjectBase {
    /// The actor-isolated observe with Swift key paths of the objects.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<MutableSet<Element>>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map { _name(for: $0) }, on: actor, block)
    }
}

extension LinkingObjects {
    /// The actor-isolated observe with Swift key paths of the linking objects.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<LinkingObjects<Element>>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map { _name(for: $0) }, on: actor, block)
    }
}

extension Map {
    /// ``observe(keyPaths:on:_:)-([String]?,_,_)`` with Swift key paths of the map's objects
    /// (`[\Pet.name]` for a `Map<String, Pet?>`); one that does not name
    /// persisted properties stops with ``Realm/Error/Code/invalidValue``.
    public func observe<O: ObjectBase>(keyPaths: [PartialKeyPath<O>], on queue: DispatchQueue? = nil,
                                       _ block: @escaping (RealmMapChange<Map>) -> Void) -> NotificationToken where Value == O? {
        observe(keyPaths: keyPaths.map { _name(for: $0) }, on: queue, block)
    }

    /// The actor-isolated observe with Swift key paths of the map's objects.
    public func observe<A: Actor, O: ObjectBase>(keyPaths: [PartialKeyPath<O>], on actor: A,
                                                 _isolation: isolated (any Actor)? = #isolation,
                                                 _ block: @escaping @Sendable (isolated A, RealmMapChange<Map>) -> Void) async -> NotificationToken
    where Value == O? {
        await observe(keyPaths: keyPaths.map { _name(for: $0) }, on: actor, block)
    }
}

extension RealmCollection where Element: ObjectBase {
    /// The actor-isolated observe with Swift key paths, for generic code and
    /// ``AnyRealmCollection``.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<Self>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map { _name(for: $0) }, on: actor, block)
    }
}

extension ThreadConfined where Self: EmbeddedObject {
    /// The actor-isolated observe of an embedded object with Swift key paths
    /// (`[\Address.city]`).
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Self>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map { _name(for: $0) }, on: actor, block)
    }
}
