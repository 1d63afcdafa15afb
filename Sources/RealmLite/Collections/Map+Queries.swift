import Dispatch
import Foundation

// RealmKeyedCollection (RealmSwift's protocol for Map) and Map's query API:
// filter, where {}, sorted and aggregates over the map's values. A managed
// map of objects is queried as a live Results over the objects its values
// link to (in key order; nil values are left out, because a Results holds
// objects); a map of values as a Results of its values, through `self`
// (Collections/ValueResults.swift). Aggregates also work on an unmanaged map and on maps of numbers,
// computed over the values, as in RealmSwift.

/// A key-value collection read from a Realm (``Map``): what code generic
/// over `C: RealmKeyedCollection` can use, as in RealmSwift. Filtering and
/// sorting give a ``Results`` of the values, not of the key-value pairs.
public protocol RealmKeyedCollection: Sequence, ThreadConfined, CustomStringConvertible {
    /// The type of the keys.
    associatedtype Key: _MapKey
    /// The type of the values.
    associatedtype Value: RealmCollectionValue

    /// The Realm managing the map, nil while it is unmanaged.
    var realm: Realm? { get }
    /// True once the map can no longer be read (its owner deleted or its
    /// Realm invalidated).
    var isInvalidated: Bool { get }
    /// The number of key-value pairs.
    var count: Int { get }
    /// A human-readable description of the entries.
    var description: String { get }

    /// Stores `value` under `key`, replacing any value there (a managed map:
    /// in a write transaction).
    func updateValue(_ value: Value, forKey key: Key)
    /// Removes `key` and its value, if present (a managed map: in a write
    /// transaction).
    func removeObject(for key: Key)
    /// Removes every entry; the objects stay in the Realm.
    func removeAll()
    /// The value for `key`; assigning nil removes the key.
    subscript(key: Key) -> Value? { get set }

    /// The value under `key`, or nil (key-value coding).
    func value(forKey key: String) -> AnyObject?
    /// The value under the first component of `keyPath`, the rest read from it.
    func value(forKeyPath keyPath: String) -> AnyObject?
    /// Stores `value` under `key` (nil removes it), converted to `Value`.
    func setValue(_ value: Any?, forKey key: String)

    /// The values (objects) matching a predicate in Realm's query language.
    /// RealmSwift's `filter(_: NSPredicate)` is this with a format string:
    /// RealmLite has no NSPredicate overloads.
    func filter(_ predicateFormat: String, _ args: Any...) -> Results<Value>
    /// True if some key-value pair satisfies `predicate`.
    func contains(where predicate: @escaping (_ key: Key, _ value: Value) -> Bool) -> Bool

    /// The values sorted by themselves.
    func sorted(ascending: Bool) -> Results<Value>
    /// The values (objects) sorted by the property at `keyPath`.
    func sorted(byKeyPath keyPath: String, ascending: Bool) -> Results<Value>
    /// The values (objects) sorted by each descriptor in turn.
    func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Value> where S.Iterator.Element == SortDescriptor

    /// The keys, in key order.
    var keys: [Key] { get }
    /// The values, in the order of their keys.
    var values: [Value] { get }

    /// The smallest value of the named property of the objects (`"self"`:
    /// of the values), or nil if there is none.
    func min<T: _RealmPrimitive>(ofProperty property: String) -> T?
    /// The largest value of the named property of the objects (`"self"`: of
    /// the values), or nil if there is none.
    func max<T: _RealmPrimitive>(ofProperty property: String) -> T?
    /// The sum of the named property of the objects (`"self"`: of the
    /// values); 0 for an empty map.
    func sum<T: _RealmPrimitive>(ofProperty property: String) -> T
    /// The average of the named property of the objects (`"self"`: of the
    /// values), or nil for an empty map.
    func average<T: _RealmPrimitive>(ofProperty property: String) -> T?

    /// Calls `block` with `.initial`, then with the keys each commit deleted,
    /// inserted and modified. Keep the returned token.
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (RealmMapChange<Self>) -> Void) -> NotificationToken

    /// True if the map was read through a frozen Realm.
    var isFrozen: Bool { get }
    /// An immutable snapshot of the map, readable from any thread.
    func freeze() -> Self
    /// The live map in the calling thread's Realm; nil if its owner is gone.
    func thaw() -> Self?
}

extension RealmKeyedCollection {
    /// ``RealmKeyedCollection/observe(keyPaths:on:_:)`` with its defaults: every
    /// property, delivered on the map's Realm.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmMapChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, on: queue, block)
    }
}

extension Map: RealmKeyedCollection {}

// MARK: - Query API

extension Map {
    /// The objects the values link to (a map of values: the values), as a
    /// live Results where queries start; throws for an unmanaged map.
    func queryResults() throws -> Results<Value> {
        guard let field else {
            throw Realm.Error.query("Only managed Maps can be filtered or sorted: add the owning object to a Realm first, or use Swift's filter/sorted on map.values.")
        }
        if linkedObjectType(Value.self) == nil { return valueResults(field, mapValues: true) }
        return try linkedObjectResults(field, keys: mapLinkedKeys(field))
    }

    /// The values matching a predicate in Realm's query language
    /// (docs/QUERIES.md), as live Results in key order: a map of objects
    /// leaves nil values out; a map of values is queried through `self`
    /// (`filter("self > 3")`). Stops with ``Realm/Error/Code/invalidValue``
    /// on an invalid predicate or an unmanaged map.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Value> {
        orStop { try queryResults().checkedFilter(predicateFormat, arguments: args) }
    }

    /// Type-safe filter of the values (objects): `where { $0.age > 3 }`. Stops
    /// as ``filter(_:_:)`` does.
    public func `where`(_ isIncluded: (Query<Value>) -> Query<Bool>) -> Results<Value> {
        orStop { try queryResults().checkedWhere(isIncluded) }
    }

    /// True if some key-value pair satisfies `predicate`; stops looking at
    /// the first.
    public func contains(where predicate: @escaping (_ key: Key, _ value: Value) -> Bool) -> Bool {
        asKeyValueSequence().contains { predicate($0.key, $0.value) }
    }

    /// The values of a managed map of values sorted by themselves, as live
    /// Results, nil first, as `List.sorted(ascending:)` sorts (docs/QUERIES.md).
    /// Stops with ``Realm/Error/Code/invalidValue`` for an unmanaged map, and
    /// for a map of objects, which sort by a property
    /// (``sorted(byKeyPath:ascending:)``).
    public func sorted(ascending: Bool = true) -> Results<Value> {
        if linkedObjectType(Value.self) != nil {
            realmFatal(.invalidValue, "Cannot sort a Map of \(Value.self) by its values themselves: sort the objects by a property, with sorted(byKeyPath:ascending:).")
        }
        return sorted(byKeyPath: "self", ascending: ascending)
    }

    /// The values sorted by the property at `keyPath` (a map of values:
    /// `"self"`), as live Results; a map of objects leaves nil values out.
    /// Stops with ``Realm/Error/Code/invalidValue`` for an unknown or
    /// collection property, or an unmanaged map.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Value> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The values (objects) sorted by each descriptor in turn; stops as
    /// ``sorted(byKeyPath:ascending:)`` does.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Value> where S.Iterator.Element == SortDescriptor {
        orStop { try queryResults().checkedSorted(by: sortDescriptors) }
    }

    /// Merges `other` into this map: `combine(existing, new)` gives the value
    /// kept for a key in both. A managed map: in a write transaction.
    public func merge(_ other: Map<Key, Value>, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(other.asKeyValueSequence(), uniquingKeysWith: combine)
    }

    // MARK: Aggregates

    /// The smallest value of the named numeric or date property of the
    /// objects (`"self"` for a map of numbers or dates), or nil if there is
    /// none (nil and NaN are skipped). Stops with
    /// ``Realm/Error/Code/invalidValue`` for an unknown or unsupported property.
    public func min<T: _RealmPrimitive>(ofProperty property: String) -> T? {
        orStop { aggregateValue(try aggregate(.min, property), as: T.self) }
    }

    /// The largest value of the named numeric or date property (`"self"` for a
    /// map of numbers or dates), or nil if there is none; stops as
    /// ``min(ofProperty:)`` does.
    public func max<T: _RealmPrimitive>(ofProperty property: String) -> T? {
        orStop { aggregateValue(try aggregate(.max, property), as: T.self) }
    }

    /// The sum of the named numeric property (`"self"` for a map of numbers);
    /// 0 if there are no values. Stops as ``min(ofProperty:)`` does.
    public func sum<T: _RealmPrimitive>(ofProperty property: String) -> T {
        orStop { aggregateValue(try aggregate(.sum, property), as: T.self) ?? T._rlmDefaultValue() }
    }

    /// The average of the named numeric property (`"self"` for a map of
    /// numbers), or nil if there are no values. Stops as ``min(ofProperty:)``
    /// does.
    public func average<T: _RealmPrimitive>(ofProperty property: String) -> T? {
        orStop { aggregateValue(try aggregate(.avg, property), as: T.self) }
    }

    /// `op` over the objects' property (a query for a managed map), or over
    /// the values themselves.
    private func aggregate(_ op: CollectionAggregate, _ property: String) throws -> (QueryOperand, PropertyType) {
        guard linkedObjectType(Value.self) != nil else { return try valuesAggregate(op, property, values) }
        if field != nil { return try queryResults().checkedAggregate(op, property) }
        // Unmanaged objects: read the property of each (nil values skipped).
        let read = values.compactMap { ($0 as? ObjectBase)?.value(forKeyPath: property) as? any _RealmPrimitive }
        guard let first = read.first else { return (.null, .int) }
        let type = Swift.type(of: first)._rlmShape.type
        guard aggregatable(type, op) else {
            throw Realm.Error.query("Cannot compute \(op.rawValue) of '\(property)': it is of type \(type); use a numeric\(op == .min || op == .max ? " or date" : "") property.")
        }
        return (accumulate(op, type, read), type)
    }
}

/// The keys of the objects a map field's values link to, in key order,
/// skipping nil values; re-read on each evaluation.
private func mapLinkedKeys(_ field: CollectionField) -> KeySource {
    KeySource(read: { _ in
        if field.owner.isInvalidated { return [] }
        let view = field.view
        return (0..<view.count).compactMap { mapLinkKey(MapEntry.split(view.element($0)).value) }
    }, moved: { core in
        core.counterpart(of: field.owner).map { mapLinkedKeys(field.moved(to: $0)) }
    })
}

// MARK: - Key path and value forms

extension RealmKeyedCollection {
    /// The smallest value of the property at `keyPath` of the map's objects
    /// (`map.min(of: \.age)`), or nil if there is none.
    public func min<O: ObjectBase, T: _RealmPrimitive>(of keyPath: KeyPath<O, T>) -> T? where Value == O? {
        min(ofProperty: _name(for: keyPath))
    }

    /// The smallest non-nil value of the optional property at `keyPath`, or nil.
    public func min<O: ObjectBase, T: _RealmPrimitive>(of keyPath: KeyPath<O, T?>) -> T? where Value == O? {
        min(ofProperty: _name(for: keyPath))
    }

    /// The largest value of the property at `keyPath` of the map's objects, or
    /// nil if there is none.
    public func max<O: ObjectBase, T: _RealmPrimitive>(of keyPath: KeyPath<O, T>) -> T? where Value == O? {
        max(ofProperty: _name(for: keyPath))
    }

    /// The largest non-nil value of the optional property at `keyPath`, or nil.
    public func max<O: ObjectBase, T: _RealmPrimitive>(of keyPath: KeyPath<O, T?>) -> T? where Value == O? {
        max(ofProperty: _name(for: keyPath))
    }

    /// The sum of the property at `keyPath` of the map's objects; 0 if none.
    public func sum<O: ObjectBase, T: _RealmPrimitive>(of keyPath: KeyPath<O, T>) -> T where Value == O? {
        sum(ofProperty: _name(for: keyPath))
    }

    /// The sum of the non-nil values of the optional property at `keyPath`.
    public func sum<O: ObjectBase, T: _RealmPrimitive>(of keyPath: KeyPath<O, T?>) -> T where Value == O? {
        sum(ofProperty: _name(for: keyPath))
    }

    /// The average of the numeric property at `keyPath` of the map's objects,
    /// as `T` (`let mean: Double? = map.average(of: \.age)`); nil if none.
    public func average<O: ObjectBase, T: _RealmPrimitive>(of keyPath: KeyPath<O, some _RealmPrimitive>) -> T? where Value == O? {
        average(ofProperty: _name(for: keyPath))
    }

    /// The map's objects sorted by the property at `keyPath`:
    /// `map.sorted(by: \.name, ascending: true)`; nil values are left out.
    public func sorted<O: ObjectBase, T>(by keyPath: KeyPath<O, T>, ascending: Bool = true) -> Results<Value> where Value == O? {
        sorted(byKeyPath: _name(for: keyPath), ascending: ascending)
    }
}

extension RealmKeyedCollection where Value: MinMaxType & _RealmPrimitive {
    /// The smallest value of a map of numbers or dates, or nil if it is empty.
    public func min() -> Value? { min(ofProperty: "self") }
    /// The largest value of a map of numbers or dates, or nil if it is empty.
    public func max() -> Value? { max(ofProperty: "self") }
}

extension RealmKeyedCollection where Value: AddableType & _RealmPrimitive {
    /// The sum of a map of numbers (0 if it is empty).
    public func sum() -> Value { sum(ofProperty: "self") }
    /// The average of a map of numbers, as `T` (`let mean: Double? =
    /// map.average()`), or nil if it is empty.
    public func average<T: _RealmPrimitive>() -> T? { average(ofProperty: "self") }
}

// A map of optional numbers: RealmSwift's forms, whose results wrap the
// value type (`Int??` for min of a `Map<String, Int?>`); nil values are skipped.
extension RealmKeyedCollection {
    /// The smallest non-nil value of a map of optional numbers or dates, or
    /// nil if there is none.
    public func min<W: MinMaxType & _RealmPrimitive>() -> Value? where Value == W? {
        (min(ofProperty: "self") as W?).map { .some($0) }
    }

    /// The largest non-nil value of a map of optional numbers or dates, or
    /// nil if there is none.
    public func max<W: MinMaxType & _RealmPrimitive>() -> Value? where Value == W? {
        (max(ofProperty: "self") as W?).map { .some($0) }
    }

    /// The sum of the non-nil values of a map of optional numbers (0 if none).
    public func sum<W: AddableType & _RealmPrimitive>() -> Value where Value == W? {
        .some(sum(ofProperty: "self") as W)
    }

    /// The average of the non-nil values of a map of optional numbers, as
    /// `T`, or nil if there are none.
    public func average<W: AddableType & _RealmPrimitive, T: _RealmPrimitive>() -> T? where Value == W? {
        average(ofProperty: "self")
    }
}
