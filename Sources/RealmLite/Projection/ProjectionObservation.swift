import Dispatch

// Observing a projection: its root object is observed for the root
// properties the projected key paths read (through links too), and each
// change is reported as the projected properties it changes, by their
// names in the projection, with values read through the projection's key
// paths on the old (frozen) and the current object.

extension ProjectionObservable {
    /// Calls `block` after each commit that changes a projected property of
    /// the root object, with the changed projected properties (by their names
    /// in the projection, old and new values), and once with `.deleted`;
    /// there is no initial call. Projected properties that read the same
    /// root property (`\.address?.city` and `\.address?.street`) are all
    /// reported when it changes.
    ///
    /// - Parameters:
    ///   - keyPaths: only these projected properties count, named as in the
    ///     projection (`"homeCity"`) or by the root key path they read
    ///     (`"address.city"`, as RealmSwift matches them); one that names no
    ///     projected property stops with ``Realm/Error/Code/invalidValue``.
    ///   - queue: a serial queue to deliver on; nil delivers in the Realm's context.
    ///   - block: called with each ``ObjectChange``.
    /// - Returns: the token; the notifications stop when it is invalidated or released.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        if let queue { return RealmLite.observe(self, on: queue) { $0.observe(keyPaths: keyPaths, block) } }
        let schema = projectionSchema(of: self)
        var selected = schema
        if let keyPaths, !keyPaths.isEmpty {
            if let unknown = keyPaths.first(where: { path in !schema.contains { $0.label == path || $0.origin == path } }) {
                realmFatal(.invalidValue, "Cannot observe key path '\(unknown)' of \(Self.self): it names no @Projected property (\(schema.map(\.label).joined(separator: ", "))).")
            }
            selected = schema.filter { property in keyPaths.contains { $0 == property.label || $0 == property.origin } }
        }
        var origins: [String] = []
        for property in selected where !origins.contains(property.origin) { origins.append(property.origin) }
        return rootObject.observeColumns(keyPaths: origins, deleted: { block(.deleted) }) { before, columns in
            let changedNames = Set(columns.map(\.name))
            let changes = selected.filter { changedNames.contains(String($0.rootProperty)) }.map { property in
                PropertyChange(name: property.label, oldValue: before[keyPath: property.keyPath],
                               newValue: self.rootObject[keyPath: property.keyPath])
            }
            if !changes.isEmpty { block(.change(self, changes)) }
        }
    }

    /// ``observe(keyPaths:on:_:)-([String]?,_,_)`` with Swift key paths of
    /// the projection: `projection.observe(keyPaths: [\PersonProjection.homeCity])`.
    public func observe(keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.isEmpty ? nil : keyPaths.map(Self.rootKeyPathName), on: queue, block)
    }

    /// The root key path a projection key path reads (`"address.city"`),
    /// recorded by applying it to a projection of a recording prototype.
    static func rootKeyPathName(_ keyPath: PartialKeyPath<Self>) -> String {
        orStop(otherwise: .invalidValue) {
            try KeyPathRecorder.components(of: keyPath, root: Root.self) { prototype in
                Self(projecting: unsafeDowncast(prototype, to: Root.self))[keyPath: keyPath]
            }.joined(separator: ".")
        }
    }
}

extension ProjectionObservable {
    /// ``observe(keyPaths:on:_:)-([String]?,_,_)`` delivered on `actor`: the
    /// block runs isolated to it (`{ actor, change in }`) and gets the
    /// projection as the actor's Realm reads it. Returns once the observer is
    /// registered there; a task cancelled before that gets an invalidated token.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        await RealmLite.observe(self, on: actor, what: "projection \(Self.self)", isolation: _isolation) { actor, projection in
            projection.observe(keyPaths: keyPaths, on: nil) { invokeIsolated(actor, block, $0) }
        }
    }

    /// The actor-isolated observe with Swift key paths of the projection.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Self>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.isEmpty ? nil : keyPaths.map(Self.rootKeyPathName), on: actor, block)
    }
}

/// The root key path a projection's key path reads:
/// `_name(for: \PersonProjection.homeCity)` is `"address.city"`.
public func _name<O: ObjectBase, T: Projection<O>>(for keyPath: PartialKeyPath<T>) -> String {
    T.rootKeyPathName(keyPath)
}

/// RealmSwift declares this for a projection's changed property; its
/// observers report ``PropertyChange`` (named as in the projection), and so
/// do RealmLite's. Kept so that code naming the type compiles.
public struct ProjectedPropertyChange {
    /// The name of the changed property, as declared in the projection.
    public let name: String
    /// The value before the change (nil if not available).
    public let oldValue: Any?
    /// The value after the change.
    public let newValue: Any?
}
