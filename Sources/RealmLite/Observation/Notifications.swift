import CStorage
import Foundation
import Synchronization

// Change notifications: Realm.observe, Results/List/MutableSet/LinkingObjects
// .observe (RealmCollectionChange with deletions, insertions, modifications)
// and Object.observe (ObjectChange with the changed properties).
//
// Each observer remembers the version it last reported, as a frozen core
// (shared by all observers at that version, one pinned version). When the
// Realm advances (its own commit, refresh(), autorefresh), the observer
// compares that version with the new one: the collection's element keys
// with a Myers diff (CollectionDifference), and which objects changed with
// the engine's snapshot diff (cs_tree_diff, cost proportional to the change).
// Blocks run in the Realm's context: the initial one at the next turn,
// then after each change. `write(withoutNotifying:)` moves the given tokens
// past that write silently.

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

    /// `observe(on: queue)`: the token of the observer registered on the
    /// queue's Realm, which this token keeps open.
    fileprivate func forward(to token: NotificationToken, realm: Realm) {
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

/// One registered block and the version it has reported up to.
final class Observer {
    let cancelled = Atomic(false)
    /// The frozen core of the version last reported (nil before the initial call).
    var reported: RealmCore?
    /// Computes and reports the change from `reported` to the live core's version.
    var deliver: (Observer, RealmCore) -> Void = { _, _ in }
    /// Realm observers: told that another Realm committed while autorefresh is off.
    var refreshRequired: (() -> Void)?
}

extension RealmCore {
    func addObserver(_ deliver: @escaping (Observer, RealmCore) -> Void, what: String) -> NotificationToken {
        verifyThread()
        if isFrozen {
            realmFatal(.frozen, "Cannot observe a frozen \(what): frozen values never change. Observe the live one (thaw()).")
        }
        if write != nil {
            realmFatal(.wrongTransactionState, "Cannot add a notification block inside a write transaction: register it before realm.write { }.")
        }
        let observer = Observer()
        observer.deliver = deliver
        observers.append(observer)
        scheduleNotifications(orStopWith: "Notifications need a Realm that can run callbacks: one opened on the main thread, on a serial queue (Realm(configuration:queue:)) or in an actor (Realm(actor:)).")
        return NotificationToken(observer: observer)
    }

    /// Delivers at the start of this context's next turn (coalesced).
    func scheduleNotifications(orStopWith message: String? = nil) {
        if notificationScheduled || observers.isEmpty { return }
        notificationScheduled = true
        let scheduled = confinement.schedule { [self] in
            notificationScheduled = false
            deliverNotifications()
        }
        if !scheduled {
            notificationScheduled = false
            if let message { realmFatal(.incorrectThread, message) }
        }
    }

    /// Tells every observer about the change since it last reported.
    func deliverNotifications() {
        observers.removeAll { $0.cancelled.load(ordering: .acquiring) }
        guard !observers.isEmpty else { return }
        if write != nil || delivering { return scheduleNotifications() } // after the write / the current block
        if readState != .active { return }
        delivering = true
        defer { delivering = false }
        let current = version
        for observer in observers where !observer.cancelled.load(ordering: .acquiring) {
            if let reported = observer.reported, reported.version == current { continue }
            observer.deliver(observer, self)
        }
    }

    /// Another Realm committed and autorefresh is off: tell Realm observers.
    func notifyRefreshRequired() {
        for observer in observers where !observer.cancelled.load(ordering: .acquiring) { observer.refreshRequired?() }
    }

    /// `write(withoutNotifying:)`: these observers skip the commit just made.
    func skipNotifications(for tokens: [NotificationToken]) {
        guard !tokens.isEmpty, let frozen = try? freeze() else { return }
        for token in tokens {
            guard let observer = token.observer, observer.reported != nil else { continue }
            observer.reported = frozen
        }
    }

    /// The frozen core of the current version, for observers to compare with later.
    func snapshotForObservers() -> RealmCore? { try? freeze() }
}

// MARK: - Realm

extension Realm {
    /// What a Realm notification reports.
    public enum Notification: String, Sendable {
        /// The Realm advanced to a newer version (a commit here or elsewhere).
        case didChange = "RLMRealmDidChangeNotification"
        /// Another Realm committed while autorefresh is off (call refresh()).
        case refreshRequired = "RLMRealmRefreshRequiredNotification"
    }

    public typealias NotificationBlock = (_ notification: Notification, _ realm: Realm) -> Void

    /// Calls `block` each time this Realm advances to a newer version.
    public func observe(_ block: @escaping NotificationBlock) -> NotificationToken {
        let token = core.addObserver({ observer, core in
            let first = observer.reported == nil
            observer.reported = core.snapshotForObservers()
            if !first { block(.didChange, Realm(core: core)) }
        }, what: "Realm")
        // The observer lives in the core's list and is only called by it.
        unowned(unsafe) let core = self.core
        token.observer?.refreshRequired = { block(.refreshRequired, Realm(core: core)) }
        return token
    }
}

// MARK: - Collections

/// A collection change (RealmSwift's RealmCollectionChange). Deletions and
/// modifications are indices in the previous version, insertions in the new one.
public enum RealmCollectionChange<CollectionType> {
    case initial(CollectionType)
    case update(CollectionType, deletions: [Int], insertions: [Int], modifications: [Int])
    case error(Swift.Error)
}

/// How a collection observer reads its elements at a version.
struct ObservedElements {
    /// Element identities in order: object keys (as 8 bytes) or value bytes.
    let ids: [[UInt8]]
    /// For object collections: the class whose records to diff.
    let objectClass: ClassInfo?
}

extension RealmCore {
    /// Registers a collection observer. `read(core)` gives the collection's
    /// elements as of `core` (nil: the collection is gone, e.g. its owner was
    /// deleted); `value(core)` the collection to hand to the block.
    func observeCollection<C>(_ what: String, keyPaths: [String]?,
                              read: @escaping (RealmCore) -> ObservedElements?,
                              value: @escaping (RealmCore) -> C,
                              _ block: @escaping (RealmCollectionChange<C>) -> Void) -> NotificationToken {
        var last: ObservedElements?
        return addObserver({ observer, core in
            let previous = observer.reported
            observer.reported = core.snapshotForObservers()
            guard let now = read(core) else {
                // The owner of the collection was deleted: report it emptied, once.
                if let old = last, !old.ids.isEmpty {
                    last = ObservedElements(ids: [], objectClass: old.objectClass)
                    block(.update(value(core), deletions: Array(old.ids.indices), insertions: [], modifications: []))
                }
                return
            }
            defer { last = now }
            guard let old = last, let previous else { return block(.initial(value(core))) }
            let changed = now.objectClass.map { core.changedKeys($0, from: previous, keyPaths: keyPaths) } ?? []
            var ids = now.ids
            if let info = now.objectClass, info.keyedByPrimaryKey {
                // A key deleted and added again is another object: a deletion and an insertion.
                let deleted = core.deletedKeys(info, since: previous)
                if deleted?.isEmpty != true {
                    ids = ids.map { deleted?.contains($0) ?? true ? $0 + [0xFF] : $0 }
                }
            }
            let change = collectionChange(old: old.ids, new: ids) { changed.contains($0) }
            if change.deletions.isEmpty && change.insertions.isEmpty && change.modifications.isEmpty { return }
            block(.update(value(core), deletions: change.deletions, insertions: change.insertions, modifications: change.modifications))
        }, what: what)
    }

    /// Keys of `info`'s objects whose record differs between `old` and this
    /// core's version (only in `keyPaths`' top-level properties, if given).
    func changedKeys(_ info: ClassInfo, from old: RealmCore, keyPaths: [String]?) -> Set<[UInt8]> {
        let columns = keyPaths.map { paths in
            Set(paths.compactMap { path in info.columns.firstIndex { $0.name == path.split(separator: ".").first.map(String.init) } })
        }
        var keys = Set<[UInt8]>()
        txn.changes(from: old.txn, in: info.objectsTree, "Comparing versions for a notification") { kind, key, oldValue, newValue in
            guard kind == CS_DIFF_UPDATE else { return }
            if let columns {
                let before = RecordView(base: oldValue.data, size: oldValue.size)
                let after = RecordView(base: newValue.data, size: newValue.size)
                let relevant = columns.contains { column in
                    let slot = info.slots[column]
                    guard slot.width >= 0 else { return false }
                    return before.isNull(slot) != after.isNull(slot)
                        || !before.field(slot, info.layout).elementsEqual(after.field(slot, info.layout))
                }
                if !relevant { return }
            }
            keys.insert(Array(bytes(of: key)))
        }
        return keys
    }
}

/// Deletions (old indices), insertions (new indices) and modifications (old
/// indices of elements kept whose content changed) between two sequences.
func collectionChange(old: [[UInt8]], new: [[UInt8]], modified: ([UInt8]) -> Bool)
    -> (deletions: [Int], insertions: [Int], modifications: [Int]) {
    var deletions: [Int] = [], insertions: [Int] = []
    if old != new {
        for change in new.difference(from: old) {
            switch change {
            case .remove(let offset, _, _): deletions.append(offset)
            case .insert(let offset, _, _): insertions.append(offset)
            }
        }
        deletions.sort()
        insertions.sort()
    }
    // Kept elements keep their relative order: pair them up in order.
    var modifications: [Int] = []
    var newIndex = 0, deletion = 0, insertion = 0
    for oldIndex in old.indices {
        if deletion < deletions.count && deletions[deletion] == oldIndex {
            deletion += 1
            continue
        }
        while insertion < insertions.count && insertions[insertion] == newIndex {
            insertion += 1
            newIndex += 1
        }
        if modified(new[newIndex]) { modifications.append(oldIndex) }
        newIndex += 1
    }
    return (deletions, insertions, modifications)
}

/// An object key as an element identity.
func keyIdentity(_ key: UInt64) -> [UInt8] {
    withUnsafeBytes(of: key.bigEndian) { Array($0) }
}

extension Results {
    /// Calls `block` with `.initial` at the next turn, then with each change
    /// (`keyPaths`: only changes to these properties count as modifications).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> NotificationToken {
        if let queue { return RealmLite.observe(self, on: queue) { $0.observe(keyPaths: keyPaths, block) } }
        let results = self
        let info: ClassInfo
        switch source {
        case .all(let all): info = all
        case .query(let plan): info = plan.info
        }
        return realmInstance.observeCollection("Results", keyPaths: keyPaths, read: { core in
            guard let moved = results.source.moved(to: core) else { return nil }
            let keys: [UInt64]
            switch moved {
            case .all(let info): keys = core.allKeys(info)
            case .query(let plan): keys = plan.keys(core)
            }
            return ObservedElements(ids: keys.map(keyIdentity), objectClass: info)
        }, value: { _ in results }, block)
    }
}

extension RealmCore {
    /// Every object key of a class, in key order.
    func allKeys(_ info: ClassInfo) -> [UInt64] {
        var keys: [UInt64] = []
        txn.withCursor(info.objectsTree) { cursor in
            var entry = cursor.first()
            while let (key, _) = entry {
                keys.append(keyValue(key))
                entry = cursor.next()
            }
        }
        return keys
    }
}

extension CollectionField {
    /// The elements of this field as read through `core` (nil if the owner is gone there).
    func observedElements(in core: RealmCore) -> ObservedElements? {
        guard let owner = core.counterpart(of: owner) else { return nil }
        let field = CollectionField(owner: owner, column: column)
        let view = field.view
        let info = owner._info.unsafelyUnwrapped
        let columnInfo = info.columns[column]
        let ids = (0..<view.count).map { index -> [UInt8] in
            let element = view.element(index)
            // Link elements hold the key little-endian (after a tag byte if
            // optional); identities use the tree's big-endian key bytes.
            guard columnInfo.isLink, element.count >= 8 else { return Array(element) }
            return keyIdentity(UInt64(littleEndian: element.loadUnaligned(fromByteOffset: element.count - 8, as: UInt64.self)))
        }
        return ObservedElements(ids: ids, objectClass: columnInfo.isLink ? columnInfo.target : nil)
    }

    func observe<C>(_ what: String, keyPaths: [String]?, value: C,
                    _ block: @escaping (RealmCollectionChange<C>) -> Void) -> NotificationToken {
        let field = self
        return realm.observeCollection(what, keyPaths: keyPaths, read: { field.observedElements(in: $0) },
                                       value: { _ in value }, block)
    }
}

extension List {
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<List<Element>>) -> Void) -> NotificationToken {
        if let queue { return RealmLite.observe(self, on: queue) { $0.observe(keyPaths: keyPaths, block) } }
        guard let field else { realmFatal(.invalidValue, "Only a managed List can be observed: add its owner to a Realm first.") }
        return field.observe("List", keyPaths: keyPaths, value: self, block)
    }
}

extension MutableSet {
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<MutableSet<Element>>) -> Void) -> NotificationToken {
        if let queue { return RealmLite.observe(self, on: queue) { $0.observe(keyPaths: keyPaths, block) } }
        guard let field else { realmFatal(.invalidValue, "Only a managed MutableSet can be observed: add its owner to a Realm first.") }
        return field.observe("MutableSet", keyPaths: keyPaths, value: self, block)
    }
}

extension LinkingObjects {
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<LinkingObjects<Element>>) -> Void) -> NotificationToken {
        if let queue { return RealmLite.observe(self, on: queue) { $0.observe(keyPaths: keyPaths, block) } }
        guard let owner, let realm = owner._realm, let info = owner._info else {
            realmFatal(.invalidValue, "Only the LinkingObjects of a managed object can be observed.")
        }
        let linking = info.columns[column]
        guard let origin = linking.target, linking.originColumn >= 0 else {
            realmFatal(.invalidSchema, "LinkingObjects '\(propertyName)' has no origin property in the schema.")
        }
        let originColumn = origin.columns[linking.originColumn]
        let value = self
        return realm.observeCollection("LinkingObjects", keyPaths: keyPaths, read: { core in
            guard let owner = core.counterpart(of: owner) else { return nil }
            return ObservedElements(ids: core.backlinkSources(originColumn, target: owner._key).map(keyIdentity), objectClass: origin)
        }, value: { _ in value }, block)
    }
}

// MARK: - Objects

/// One changed property of an observed object.
public struct PropertyChange {
    public let name: String
    /// The value before the change (nil if not available).
    public let oldValue: Any?
    public let newValue: Any?
}

/// What an object observer reports.
public enum ObjectChange<T: ObjectBase> {
    case error(_ error: Swift.Error)
    case change(_ object: T, _ properties: [PropertyChange])
    case deleted
}

extension ObjectBase {
    func _observe<T: ObjectBase>(_ object: T, keyPaths: [String]?, _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        guard let realm = _realm, let info = _info else {
            realmFatal(.invalidValue, "Only managed objects can be observed: add the object to a Realm first.")
        }
        _ = _currentRecord() // stops for a deleted object
        var deleted = false
        return realm.addObserver({ observer, core in
            let previous = observer.reported
            observer.reported = core.snapshotForObservers()
            guard let previous, !deleted else { return } // the initial call reports nothing
            guard let now = core.counterpart(of: object) else {
                deleted = true
                observer.cancelled.store(true, ordering: .releasing)
                return block(.deleted)
            }
            guard let before = previous.counterpart(of: object) else { return }
            let old = before._currentRecord(), new = now._currentRecord()
            var changes: [PropertyChange] = []
            for column in info.columns {
                let slot = info.slots[column.index]
                guard slot.width >= 0 else { continue }
                if let keyPaths, !keyPaths.contains(where: { $0 == column.name || $0.hasPrefix(column.name + ".") }) { continue }
                if old.isNull(slot) == new.isNull(slot)
                    && old.field(slot, info.layout).elementsEqual(new.field(slot, info.layout)) { continue }
                let accessor = column.property.accessor
                changes.append(PropertyChange(name: column.name, oldValue: accessor.value(of: before), newValue: accessor.value(of: now)))
            }
            if !changes.isEmpty { block(.change(object, changes)) }
        }, what: "object")
    }
}

extension ThreadConfined where Self: Object {
    /// Calls `block` after each commit that changes this object (with the
    /// changed properties, old and new values), and once with `.deleted`.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        if let queue { return RealmLite.observe(self, on: queue) { $0.observe(keyPaths: keyPaths, block) } }
        return _observe(self, keyPaths: keyPaths, block)
    }
}
