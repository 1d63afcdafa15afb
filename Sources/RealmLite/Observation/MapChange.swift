import Dispatch

// Map changes: RealmSwift's RealmMapChange, by key. A map in the collections
// tree gets its change from its own edits (SetMapObservation.swift).
// Otherwise two versions of the map are compared entry by entry (entries
// are stored in key order, so this is one merge); a value that changed, or
// a linked object whose record changed between the versions (the engine's
// snapshot diff), is a modification.

/// What a ``Map`` observer reports (RealmSwift's RealmMapChange): keys, not
/// indexes, because a map has no order a user relies on.
public enum RealmMapChange<Collection: RealmKeyedCollection> {
    /// The first notification, at the next turn after `observe`: the map as
    /// it is then, with nothing to compare against.
    case initial(Collection)
    /// A commit changed the map: `deletions` are keys present before and gone
    /// now, `insertions` keys new in this version, `modifications` keys kept
    /// whose value changed (for maps of objects, also whose object's
    /// properties changed). If the map's owner was deleted, every key is
    /// reported deleted, once.
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])
    /// Kept for RealmSwift compatibility: RealmLite reports no observation
    /// errors (a misuse stops when `observe` is called instead).
    case error(Swift.Error)
}

/// A map's entries at one version: key bytes -> value bytes, in key order.
private struct MapEntries {
    var keys: [[UInt8]] = []
    var values: [[UInt8]] = []
}

extension CollectionField {
    /// The entries of this (map) field as read through `core`; nil if the owner is gone there.
    fileprivate func mapEntries(of owner: ObjectIdentity, in core: RealmCore) -> MapEntries? {
        guard let owner = core.counterpart(owner) else { return nil }
        let view = moved(to: owner).view
        var entries = MapEntries()
        entries.keys.reserveCapacity(view.count)
        entries.values.reserveCapacity(view.count)
        for index in 0..<view.count {
            let (key, value) = MapEntry.split(view.element(index))
            entries.keys.append(Array(key))
            entries.values.append(Array(value))
        }
        return entries
    }
}

extension Map {
    /// Calls `block` with `.initial` at the next turn of this map's Realm
    /// (its main actor, serial queue or actor), then after each commit that
    /// changes the map, with the keys deleted, inserted and modified.
    /// `keyPaths` limits which properties of the map's objects count as
    /// modifications (a map of values takes none). A key removed and stored
    /// again is reported deleted and inserted, and a key whose value was
    /// stored again (even the same value) modified, as in Realm, when the
    /// change comes from the map's edits (a Map longer than 64 entries
    /// changed by this process); when the change is found by comparing the
    /// two versions (a shorter map, or another process's commit) a key whose
    /// value is the same in both is not reported. With `queue`, the map is
    /// handed over and notifications run on that serial queue instead. Keep
    /// the returned token: releasing or invalidating it stops them.
    ///
    /// Call it outside a write transaction
    /// (``Realm/Error/Code/wrongTransactionState``), on a managed, live map
    /// (an unmanaged one stops with ``Realm/Error/Code/invalidValue``, a
    /// frozen one with ``Realm/Error/Code/frozen``), from a Realm that has
    /// turns to deliver in.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmMapChange<Map>) -> Void) -> NotificationToken {
        if let queue { return RealmLite.observe(self, on: queue) { $0.observe(keyPaths: keyPaths, block) } }
        guard let field else { realmFatal(.invalidValue, "Only a managed Map can be observed: add its owner to a Realm first.") }
        field.stopIfOwnerInvalidated("Map")
        let column = field.owner._info.unsafelyUnwrapped.columns[field.column]
        let linked = column.isLink ? column.target : nil
        let kind = "Map<\(Key.self), \(Value.self)>"
        orStop { try checkCollectionKeyPaths(keyPaths, elements: linked, kind: kind) }
        let map = self
        let makeKey = Key.init(_rlmKeyBytes:)
        let key = { (bytes: [UInt8]) in bytes.withUnsafeBytes(makeKey) }
        guard let owner = ObjectIdentity(field.owner) else { realmFatal(.invalidValue, "Only a managed Map can be observed.") }
        let editKey = CollectionEditKey(className: owner.info.name, key: owner.key, column: field.column)
        let presence = CollectionObserverPresence()
        // Whether the initial call was made, and the entries at the version
        // reported if they were read then (a map in the record: the next
        // comparison reads only the new version).
        let state = Protected<(delivered: Bool, version: UInt64, entries: MapEntries?)>((false, 0, nil))
        return field.realm.addObserver(what: "Map") { previous, core in
            _ = presence
            let last = state.withLock { $0 }
            let notifier = core.env.notifier
            let cached = { (base: RealmCore) in last.version == base.version ? last.entries : nil }
            guard let nowOwner = core.counterpart(owner) else {
                // The owner was deleted: every key deleted, once.
                guard last.delivered, let previous, let old = cached(previous) ?? field.mapEntries(of: owner, in: previous),
                      !old.keys.isEmpty else { return Delivery() }
                return Delivery(advance: { notifier.release(state.withLock { state in defer { state = (true, core.version, nil) }; return state }) },
                                notify: { _ in block(.update(map, deletions: old.keys.map(key), insertions: [], modifications: [])) })
            }
            // Entries are kept only for a map in the record (short).
            let inRecord = field.moved(to: nowOwner).spilledEntries == nil
            guard last.delivered, let previous else {
                let entries = inRecord ? field.mapEntries(of: owner, in: core) : nil
                return Delivery(advance: { state.withLock { $0 = (true, core.version, entries) } }, notify: { _ in block(.initial(map)) })
            }
            let change: (deletions: [[UInt8]], insertions: [[UInt8]], modifications: [[UInt8]])
            var entries: MapEntries?
            if let folded = core.mapChangeFromLog(field, owner, editKey, from: previous, keyPaths: keyPaths) {
                CollectionChangeLog.folded.add(1, ordering: .relaxed)
                change = folded
                entries = inRecord ? field.mapEntries(of: owner, in: core) : nil
            } else {
                CollectionChangeLog.compared.add(1, ordering: .relaxed)
                let old = cached(previous) ?? field.mapEntries(of: owner, in: previous) ?? MapEntries()
                let now = field.mapEntries(of: owner, in: core) ?? MapEntries()
                let changedObjects = linked.map { core.changedKeys($0, from: previous, keyPaths: keyPaths) } ?? []
                change = compareMapEntries(old, now) { value in
                    linked != nil && value.count >= 8 && changedObjects.contains(linkIdentity(value))
                }
                entries = inRecord ? now : nil
            }
            let advance = { notifier.release(state.withLock { state in defer { state = (true, core.version, entries) }; return state }) }
            if change.deletions.isEmpty && change.insertions.isEmpty && change.modifications.isEmpty { return Delivery(advance: advance) }
            return Delivery(advance: advance, notify: { _ in
                block(.update(map, deletions: change.deletions.map(key), insertions: change.insertions.map(key),
                              modifications: change.modifications.map(key)))
            })
        }
    }
}

/// The keys deleted, inserted and modified from `old` to `now` (a kept key
/// is modified if its value changed or `linkChanged` says its linked object did).
private func compareMapEntries(_ old: MapEntries, _ now: MapEntries, linkChanged: ([UInt8]) -> Bool)
    -> (deletions: [[UInt8]], insertions: [[UInt8]], modifications: [[UInt8]]) {
    var deletions: [[UInt8]] = [], insertions: [[UInt8]] = [], modifications: [[UInt8]] = []
    var i = 0, j = 0
    while i < old.keys.count || j < now.keys.count {
        if j == now.keys.count || (i < old.keys.count && old.keys[i].lexicographicallyPrecedes(now.keys[j])) {
            deletions.append(old.keys[i])
            i += 1
        } else if i == old.keys.count || now.keys[j].lexicographicallyPrecedes(old.keys[i]) {
            insertions.append(now.keys[j])
            j += 1
        } else {
            if now.values[j] != old.values[i] || linkChanged(now.values[j]) { modifications.append(now.keys[j]) }
            i += 1
            j += 1
        }
    }
    return (deletions, insertions, modifications)
}

/// The identity (big-endian key bytes) of a stored link value.
func linkIdentity(_ value: [UInt8]) -> [UInt8] {
    value.withUnsafeBytes { keyIdentity(mapLinkKey($0)!) }
}

/// The object key of a map's stored link value, which holds it little-endian
/// in its last 8 bytes (after a tag byte if optional); nil for a nil link
/// (the tag byte alone).
func mapLinkKey(_ value: UnsafeRawBufferPointer) -> UInt64? {
    guard value.count >= 8 else { return nil }
    return UInt64(littleEndian: value.loadUnaligned(fromByteOffset: value.count - 8, as: UInt64.self))
}
