import Dispatch

// The rest of RealmSwift's observe forms for sections: Swift key paths, and
// a single section observed on an actor. Each turns into the string form
// on the queue or the calling context (SectionedResultsChange.swift).

extension SectionedResults where SectionElement: ObjectBase {
    /// ``observe(keyPaths:on:_:)-([String]?,_,_)`` with Swift key paths:
    /// `observe(keyPaths: [\.name]) { change in ... }`.
    public func observe(keyPaths: [PartialKeyPath<SectionElement>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { _name(for: $0) }, on: queue, block)
    }

    /// The actor-isolated observe with Swift key paths of the objects.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<SectionElement>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, SectionedResultsChange<SectionedResults>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map { _name(for: $0) }, on: actor, block)
    }
}

extension ResultsSection {
    /// ``observe(keyPaths:on:_:)-([String]?,_,_)`` delivered on `actor`: the
    /// block runs isolated to it and gets the section as the actor's Realm
    /// reads it.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, SectionedResultsChange<ResultsSection>) -> Void) async -> NotificationToken {
        await RealmLite.observe(self, on: actor, what: "ResultsSection", isolation: _isolation) { actor, section in
            section.observe(keyPaths: keyPaths) { invokeIsolated(actor, block, $0) }
        }
    }
}

extension ResultsSection where T: ObjectBase {
    /// ``observe(keyPaths:on:_:)-([String]?,_,_)`` with Swift key paths.
    public func observe(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { _name(for: $0) }, on: queue, block)
    }

    /// The actor-isolated observe with Swift key paths of the objects.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<T>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, SectionedResultsChange<ResultsSection>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map { _name(for: $0) }, on: actor, block)
    }
}
