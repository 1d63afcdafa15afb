import Dispatch
import Foundation

// RealmCollection: what Results, List, MutableSet, LinkingObjects and
// AnyRealmCollection have in common, so that code generic over
// `C: RealmCollection` compiles as it does against RealmSwift. The query API
// (filter, sorted, distinct, aggregates) is written once against it in
// Query/ResultsQuery.swift; this file has the protocols, the rest of the
// shared API and the conformances.

// MARK: - Element protocols

/// Types of properties and values that `min` and `max` accept: the integer
/// types, `Float`, `Double`, `Decimal128`, `Date`, and their optionals.
public protocol MinMaxType {}
/// Types of properties and values that `sum` and `average` accept: the
/// integer types, `Float`, `Double`, `Decimal128`, and their optionals.
public protocol AddableType {}
/// Types of values a collection of values can be sorted or made distinct by
/// directly (`sorted(ascending:)`, `distinct()`).
public protocol SortableType {}
/// Types whose properties a collection can be sorted or made distinct by
/// (`sorted(by: \.age)`): objects.
public protocol KeypathSortable {}

extension Int: MinMaxType, AddableType, SortableType {}
extension Int8: MinMaxType, AddableType, SortableType {}
extension Int16: MinMaxType, AddableType, SortableType {}
extension Int32: MinMaxType, AddableType, SortableType {}
extension Int64: MinMaxType, AddableType, SortableType {}
extension Float: MinMaxType, AddableType, SortableType {}
extension Double: MinMaxType, AddableType, SortableType {}
extension Decimal128: MinMaxType, AddableType, SortableType {}
extension Date: MinMaxType, SortableType {}
extension String: SortableType {}
extension Data: SortableType {}
extension Optional: MinMaxType where Wrapped: MinMaxType {}
extension Optional: AddableType where Wrapped: AddableType {}
extension Optional: SortableType where Wrapped: SortableType {}
extension ObjectBase: KeypathSortable {}

// MARK: - The protocols

/// The collection protocols' base: a random-access, thread-confined
/// collection of Realm values (objects or values), indexed from 0.
public protocol RealmCollectionBase: RandomAccessCollection, CustomStringConvertible, ThreadConfined
    where Element: RealmCollectionValue, Index == Int {
    /// The element type (RealmSwift's older name for `Element`).
    typealias ElementType = Element
}

/// A collection of objects or values read from a Realm that can be
/// filtered, sorted, aggregated and observed: `Results`, `List`,
/// `MutableSet`, `LinkingObjects` and the type-erased `AnyRealmCollection`.
/// Write code generic over `C: RealmCollection` to accept any of them.
///
/// Queries, sorting and distinct need a managed collection (of values:
/// through `"self"`, `filter("self > 3")`, `sorted(ascending:)`);
/// aggregates also work unmanaged, on a collection of numbers with `"self"`
/// (`list.sum()`). Two collections are equal when they are the same
/// collection of the same Realm (not when their elements are equal).
public protocol RealmCollection<Element>: RealmCollectionBase, Equatable {
    /// The Realm managing the collection, nil while it is unmanaged.
    var realm: Realm? { get }
    /// True once the collection can no longer be read: its owning object was
    /// deleted or its Realm invalidated.
    var isInvalidated: Bool { get }
    /// The number of elements in the current version.
    var count: Int { get }
    /// A human-readable description of the elements.
    var description: String { get }
    /// The first element, or nil if the collection is empty.
    var first: Element? { get }
    /// The last element, or nil if the collection is empty.
    var last: Element? { get }

    /// The position of `object` in the collection, or nil.
    func index(of object: Element) -> Int?
    /// The position of the first object matching a predicate in Realm's
    /// query language, or nil.
    func index(matching predicateFormat: String, _ args: Any...) -> Int?
    /// The elements at `indexes`, in order; an index outside `0..<count`
    /// stops with ``Realm/Error/Code/invalidValue``.
    func objects(at indexes: IndexSet) -> [Element]

    /// The objects matching a predicate in Realm's query language.
    func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element>
    /// The objects ordered by each descriptor in turn.
    func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Element == SortDescriptor
    /// One object per distinct value tuple of the named properties.
    func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String

    /// The smallest value of the named property (`"self"` for a collection of
    /// values), or nil if there is none.
    func min<T: _RealmPrimitive>(ofProperty property: String) -> T?
    /// The largest value of the named property (`"self"` for a collection of
    /// values), or nil if there is none.
    func max<T: _RealmPrimitive>(ofProperty property: String) -> T?
    /// The sum of the named property (`"self"` for a collection of values); 0
    /// for an empty collection.
    func sum<T: _RealmPrimitive>(ofProperty property: String) -> T
    /// The average of the named property (`"self"` for a collection of
    /// values), or nil for an empty collection.
    func average<T: _RealmPrimitive>(ofProperty property: String) -> T?

    /// An array of each element's value for `key` (`"self"`: the elements).
    func value(forKey key: String) -> Any?
    /// An array of each element's value at the dotted `keyPath`.
    func value(forKeyPath keyPath: String) -> Any?
    /// Sets the property `key` of every object to `value` (in a write
    /// transaction).
    func setValue(_ value: Any?, forKey key: String)

    /// Calls `block` with `.initial`, then with each change of the collection
    /// (`keyPaths`: only changes to these properties count as modifications),
    /// on the collection's Realm or on `queue`. Keep the returned token.
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken

    /// The collection as a Results, where queries start; throws for a
    /// collection that cannot be queried (unmanaged).
    func _rlmQueryResults() throws -> Results<Element>
}

// MARK: - Shared API

extension RealmCollection {
    /// The position of `object`, compared as the collection stores it (a
    /// managed object by identity in its Realm), or nil.
    public func index(of object: Element) -> Int? { firstIndex(of: object) }

    /// The elements at `indexes`, in order; an index outside `0..<count`
    /// stops with ``Realm/Error/Code/invalidValue``.
    public func objects(at indexes: IndexSet) -> [Element] {
        let count = self.count
        if let last = indexes.last, last >= count {
            realmFatal(.invalidValue, "Index \(last) is out of bounds for a collection of \(count) elements.")
        }
        return indexes.map { self[$0] }
    }

    /// An array of each element's value for `key`: `dogs.value(forKey:
    /// "name")` is `[Any?]` of the names; `"self"` gives the elements.
    public func value(forKey key: String) -> Any? { value(forKeyPath: key) }

    /// An array of each element's value at the dotted `keyPath`
    /// (`"owner.name"` follows the `owner` link; a nil link gives nil). An
    /// unknown property stops with ``Realm/Error/Code/invalidValue``.
    public func value(forKeyPath keyPath: String) -> Any? {
        map { element -> Any? in
            if let object = element as? ObjectBase { return object.value(forKeyPath: keyPath) }
            guard keyPath.split(separator: ".").allSatisfy({ $0 == "self" }) else {
                realmFatal(.invalidValue, "Cannot read '\(keyPath)' of \(Element.self): key paths go through objects.")
            }
            return element
        } as [Any?]
    }

    /// Sets the property `key` of every object in the collection to `value`;
    /// a managed collection needs a write transaction
    /// (``Realm/Error/Code/wrongTransactionState``).
    public func setValue(_ value: Any?, forKey key: String) {
        let objects = Array(self)
        for element in objects {
            guard let object = element as? ObjectBase else {
                realmFatal(.invalidValue, "setValue(_:forKey:) needs a collection of objects, not of \(Element.self).")
            }
            object[key] = value
        }
    }

    /// Calls `block` with `.initial` at the next turn of the collection's
    /// Realm (or on `queue`), then after each commit that changes the
    /// collection. Keep the returned token: releasing or invalidating it
    /// stops the notifications.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, on: queue, block)
    }
}

extension RealmCollection where Element: ObjectBase {
    /// ``observe(keyPaths:on:_:)-(([String]?,_,_))`` with Swift key paths:
    /// `observe(keyPaths: [\.name]) { change in ... }`.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { _name(for: $0) }, on: queue, block)
    }
}

extension RealmCollection where Element: MinMaxType {
    /// The smallest value of a collection of numbers or dates, or nil if it
    /// is empty (nil and NaN are skipped).
    public func min() -> Element? where Element: _RealmPrimitive { min(ofProperty: "self") }
    /// The largest value of a collection of numbers or dates, or nil if it is
    /// empty (nil and NaN are skipped).
    public func max() -> Element? where Element: _RealmPrimitive { max(ofProperty: "self") }
}

extension RealmCollection where Element: AddableType & _RealmPrimitive {
    /// The sum of a collection of numbers (0 if it is empty).
    public func sum() -> Element { sum(ofProperty: "self") }
    /// The average of a collection of numbers, as `T` (`let mean: Double? =
    /// list.average()`), or nil if it is empty.
    public func average<T: _RealmPrimitive>() -> T? { average(ofProperty: "self") }
}

/// The property names a key path goes through, joined with dots:
/// `_name(for: \Person.dogs.name)` is `"dogs.name"`. Stops with
/// ``Realm/Error/Code/invalidValue`` if the key path does not end in a
/// persisted property.
public func _name<T: ObjectBase>(for keyPath: PartialKeyPath<T>) -> String {
    orStop(otherwise: .invalidValue) { try KeyPathRecorder.name(of: keyPath, root: T.self) }
}

// MARK: - Conformances

extension Results: RealmCollection {
    /// Results are their own query start.
    public func _rlmQueryResults() throws -> Results<Element> { self }

    /// True if both are the same Results (the same query of the same Realm
    /// instance), as RealmSwift compares them.
    public static func == (lhs: Results, rhs: Results) -> Bool {
        if lhs === rhs { return true }
        guard lhs.core === rhs.core, case .all(let l) = lhs.source, case .all(let r) = rhs.source else { return false }
        return l === r
    }
}

extension List: RealmCollection {
    /// True if both are the same managed list (the same property of the same
    /// object in the same Realm instance), or the same unmanaged list.
    public static func == (lhs: List, rhs: List) -> Bool {
        lhs === rhs || (lhs.field.map { $0.isSame(as: rhs.field) } ?? false)
    }
}

extension MutableSet: RealmCollection {
    /// True if both are the same managed set (the same property of the same
    /// object in the same Realm instance), or the same unmanaged set.
    public static func == (lhs: MutableSet, rhs: MutableSet) -> Bool {
        lhs === rhs || (lhs.field.map { $0.isSame(as: rhs.field) } ?? false)
    }
}

extension LinkingObjects: RealmCollection {
    /// True if both are the linking objects of the same object through the
    /// same property.
    public static func == (lhs: LinkingObjects, rhs: LinkingObjects) -> Bool {
        guard let l = lhs.owner, let r = rhs.owner else { return false }
        return l == r && lhs.propertyName == rhs.propertyName
    }
}
