import Dispatch

// Object changes: which properties of an observed object changed, with
// their old and new values.

/// One changed property of an observed object.
public struct PropertyChange {
    /// The name of the changed property, as declared in the model class.
    public let name: String
    /// The value before the change (nil if not available).
    public let oldValue: Any?
    /// The value after the change, as the property's type reads it (a linked
    /// object, a number...); nil if the new value is nil.
    public let newValue: Any?
}

/// What an object observer reports. `T` is the type the block asked for:
/// the observed object's own class when the closure is not annotated.
public enum ObjectChange<T> {
    /// Kept for RealmSwift compatibility: RealmLite reports no observation
    /// errors (a misuse stops when `observe` is called instead).
    case error(_ error: Swift.Error)
    /// The object changed in a commit: the object, and each property whose
    /// stored value differs (limited to the observed `keyPaths` if any), with
    /// its old and new value.
    case change(_ object: T, _ properties: [PropertyChange])
    /// The object was deleted; the last notification the observer gets.
    case deleted
}

extension ObjectBase {
    func _observe<T: ObjectBase>(_ object: T, keyPaths: [String]?, _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        observeColumns(keyPaths: keyPaths, deleted: { block(.deleted) }) { before, changedColumns in
            block(.change(object, changedColumns.map { column in
                let accessor = column.property.accessor
                return PropertyChange(name: column.name, oldValue: accessor.value(of: before), newValue: accessor.value(of: object))
            }))
        }
    }

    /// Registers an observer of this object: `changed` runs in the Realm's
    /// context with the object as of the version reported last (frozen) and
    /// the columns that changed since (limited to `keyPaths`); `deleted`
    /// runs once when the object is deleted. Projections observe through it.
    func observeColumns(keyPaths: [String]?, deleted onDelete: @escaping () -> Void,
                        changed: @escaping (_ before: ObjectBase, _ columns: [Column]) -> Void) -> NotificationToken {
        guard let realm = _realm, let info = _info else {
            realmFatal(.invalidValue, "Only managed objects can be observed: this '\(Self.className())' is unmanaged; add it to a Realm first.")
        }
        if !realm.isFrozen, isInvalidated {
            realmFatal(.invalidatedObject, "Cannot observe an invalidated object of type '\(Self.className())' (deleted, or its Realm invalidated): re-fetch it first.")
        }
        orStop { try info.checkObservedKeyPaths(keyPaths) }
        // Key paths through a link ("dogs.name"): the link's column, and the
        // properties of the linked objects whose change counts as its change.
        var nested: [Int: [String]] = [:]
        for path in keyPaths ?? [] {
            guard let dot = path.firstIndex(of: "."),
                  let index = info.columns.firstIndex(where: { $0.name == path[..<dot] }) else { continue }
            nested[index, default: []].append(String(path[path.index(after: dot)...]))
        }
        guard let identity = ObjectIdentity(self) else { realmFatal(.invalidValue, "Only managed objects can be observed.") }
        let deleted = Protected(false)
        return realm.addObserver(what: "object") { previous, core in
            // The initial call reports nothing.
            guard let previous, !deleted.withLock({ $0 }) else { return Delivery() }
            guard let now = core.counterpart(identity) else {
                return Delivery(advance: { deleted.withLock { $0 = true } }, notify: { _ in onDelete() }, isLast: true)
            }
            guard let before = previous.counterpart(identity) else { return Delivery() }
            let old = before._currentRecord(), new = now._currentRecord()
            var changedColumns: [Column] = []
            for column in info.columns {
                if let keyPaths, !keyPaths.contains(where: { $0 == column.name || $0.hasPrefix(column.name + ".") }) { continue }
                let slot = info.slots[column.index]
                var changed = slot.inRecord
                    && (old.isNull(slot) != new.isNull(slot) || !sameField(slot, old.field(slot, info.layout), new.field(slot, info.layout)))
                if !changed, let paths = nested[column.index], let target = column.target {
                    let linked = linkedIdentities(now, column, core)
                    if !linked.isEmpty {
                        let modified = core.changedKeys(target, from: previous, keyPaths: paths)
                        changed = linked.contains(where: modified.contains)
                    }
                }
                if changed { changedColumns.append(column) }
            }
            guard !changedColumns.isEmpty else { return Delivery() }
            // The values are read on the observer's thread: the old ones from
            // the frozen version, the new ones from the live object, which
            // reads the version this change was computed for (N2).
            return Delivery(notify: { _ in changed(before, changedColumns) })
        }
    }
}

/// The identities of the objects `object`'s link `column` reaches in `core`
/// (a to-one link, the elements of a list, set or map of links, or the
/// objects linking to it).
private func linkedIdentities(_ object: ObjectBase, _ column: Column, _ core: RealmCore) -> [[UInt8]] {
    if column.type == .linkingObjects {
        guard let origin = column.target, column.originColumn >= 0 else { return [] }
        return core.backlinkSources(origin.columns[column.originColumn], target: object._key).map(keyIdentity)
    }
    if column.collection == .none {
        // From the record: a custom type persisted as an embedded object
        // reads as itself through its accessor, not as the linked object.
        let record = object._currentRecord()
        let slot = object._slots.unsafelyUnwrapped[column.index]
        return linkTargets(column, isNull: record.isNull(slot), record.field(slot, object._layout)).map(keyIdentity)
    }
    return CollectionField(owner: object, column: column.index).observedElements(in: core)?.ids ?? []
}

extension Object {
    /// Calls `block` after each commit that changes this object, with the
    /// changed properties (old and new values), and once with `.deleted`;
    /// there is no initial call. RealmSwift's generic form: `T` is the type the
    /// block's ``ObjectChange`` names (`ObjectChange<ObjectBase>`, or the
    /// object's class); an unannotated closure gets the object's own class.
    ///
    /// - Parameters:
    ///   - keyPaths: only changes to these properties count (`"dogs.name"` goes
    ///     through a link); a name that is not a property stops with
    ///     ``Realm/Error/Code/invalidValue`` naming it.
    ///   - queue: a serial queue to deliver on (the object is handed over to
    ///     that queue's Realm); nil delivers in this Realm's context.
    ///   - block: called with each ``ObjectChange``, in the delivering context.
    /// - Returns: the token; the notifications stop when it is invalidated or released.
    public func observe<T: ObjectBase>(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        guard let typed = self as? T else {
            realmFatal(.invalidValue, "Cannot observe a '\(Self.className())' as ObjectChange<\(T.self)>: the block must take the object's class or a superclass of it.")
        }
        if let queue { return RealmLite.observe(self, on: queue) { $0.observe(keyPaths: keyPaths, block) } }
        return _observe(typed, keyPaths: keyPaths, block)
    }

    /// The string key path form of `observe` with Swift key paths:
    /// `dog.observe(keyPaths: [\Dog.name]) { change in }` reports changes to
    /// `name` only. A key path that does not name persisted properties stops
    /// with ``Realm/Error/Code/invalidValue``.
    public func observe<T: ObjectBase>(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        let names = keyPaths.map { _name(for: $0) }
        return observe(keyPaths: names, on: queue, block)
    }
}
