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

/// What an object observer reports.
public enum ObjectChange<T: ObjectBase> {
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
