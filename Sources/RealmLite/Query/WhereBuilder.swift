import Foundation
import Synchronization

// The type-safe query builder: `results.where { $0.age > 3 && $0.name.starts(with: "L") }`.
// `Query<T>` is a key path (or a finished predicate); operators build the
// same QueryPredicate tree the string parser produces — no string round trip.
// Swift key paths are turned into property names by KeyPathRecorder.

/// String comparison options for the builder (RealmSwift's StringOptions).
public struct StringOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `[c]` in the query language: compare ignoring case (Unicode case
    /// folding).
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// `[d]` in the query language: compare ignoring diacritics ("é" matches
    /// "e").
    public static let diacriticInsensitive = StringOptions(rawValue: 2)
}

/// A property or a predicate inside a `where { }` closure: `$0` is the object's
/// query root, `$0.age` a property, `$0.owner.name` a property through a link,
/// `$0.age > 3` a predicate (a `Query<Bool>`). Operators on it build the same
/// predicate as the query language, without a string, and the same indexes
/// apply (docs/QUERIES.md).
///
/// Only the ``Query`` values the closure is given can be used: a key path that
/// is not a persisted property, or an unsupported value, makes the query fail
/// (`where` stops, ``Results/checkedWhere(_:)`` throws
/// ``Realm/Error/Code/invalidValue``).
@dynamicMemberLookup
public struct Query<T> {
    typealias Node = QueryBuilderNode
    let node: Node

    init(path: [String]) { node = .path(path) }
    init(_ node: Node) { self.node = node }

    /// The query `build` makes, or a failed one carrying its error.
    static func catching(_ build: () throws -> Query<T>) -> Query<T> {
        do { return try build() } catch { return Query<T>(.failed(Realm.Error(error, otherwise: .invalidValue))) }
    }

    /// The predicate this query stands for (a Bool key path means `== true`).
    func predicate() throws -> QueryPredicate {
        switch node {
        case .predicate(let p): return p
        case .failed(let error): throw error
        case .subquery: throw Realm.Error.query("Invalid query: a subquery count must be compared with a number, as in '(...).count > 1'.")
        case .equality(let path, let constant):
            return .comparison(QueryComparison(left: .keyPath(path, position: -1), op: .equal, right: .value(constant.value, position: -1)))
        case .path, .root:
            return .comparison(QueryComparison(left: .keyPath(node.path ?? [], position: -1), op: .equal, right: .value(.bool(true), position: -1)))
        }
    }

    fileprivate func appending<Root, V>(_ keyPath: KeyPath<Root, V>, _ root: ObjectBase.Type) -> Query<V> {
        Query<V>(node.appending(keyPath, root))
    }

    func compare<U>(_ op: QueryOperator, _ value: Any, options: StringOptions = [], quantifier: QueryQuantifier = .implicit) -> Query<U> {
        if case .subquery(let subquery) = node, let count = QueryValue.from(value) {
            return Query<U>(.predicate(.comparison(QueryComparison(left: .subquery(subquery, position: -1), op: op,
                                                                   right: .value(count, position: -1)))))
        }
        guard let path = node.path else { return Query<U>(node.asFailure("a predicate cannot be compared")) }
        // The common constants are no custom types: compare metatypes first
        // (the protocol cast looks the conformance up on every query).
        let valueType = type(of: value)
        let plain = valueType == String.self || valueType == Int.self || valueType == Bool.self || valueType == Double.self
        if !plain, op == .equal || op == .notEqual, let custom = value as? any _CustomPersistable,
           let embedded = custom.persistableValue as? EmbeddedObject {
            return Query<U>.catching {
                let equal = try memberwiseEquality(path, embedded)
                return Query<U>(.predicate(op == .equal ? equal : .not(equal)))
            }
        }
        let right: QueryExpression
        if op == .in || op == .between {
            var items: [QueryValue] = []
            for element in value as? [Any] ?? [] {
                guard let item = QueryValue.from(element) else {
                    return Query<U>(.failed(.query("Unsupported value of type \(type(of: element)) in a query on '\(path.joined(separator: "."))'")))
                }
                items.append(item)
            }
            right = .list(items, position: -1)
        } else {
            guard let item = QueryValue.from(value) else {
                return Query<U>(.failed(.query("Unsupported value of type \(type(of: value)) in a query on '\(path.joined(separator: "."))'")))
            }
            right = .value(item, position: -1)
        }
        return Query<U>(.predicate(.comparison(QueryComparison(
            quantifier: quantifier, left: .keyPath(path, position: -1), op: op, right: right,
            caseInsensitive: options.contains(.caseInsensitive), diacriticInsensitive: options.contains(.diacriticInsensitive)))))
    }

    /// `compare` with a constant of the property's own type: a String, Int,
    /// Bool or Double is read without the dynamic casts of
    /// `QueryValue.from` (a lookup loop builds one query per value). The
    /// result is a concrete Query<Bool>: a generic result type made the
    /// operators ask the runtime for a Query<...> metadata on every call.
    func compareConstant<V>(_ op: QueryOperator, _ value: V) -> Query<Bool> {
        if let comparison = node.comparing(op, constant: value) { return Query<Bool>(comparison) }
        return compare(op, value)
    }

    /// A custom type persisted as an embedded object compares memberwise,
    /// as in RealmSwift: `$0.point == p` is `point.x == p.x AND point.y ==
    /// p.y`, through nested embedded objects.
    private func memberwiseEquality(_ path: [String], _ object: EmbeddedObject) throws -> QueryPredicate {
        var predicate = QueryPredicate.constant(true)
        for property in try SchemaDiscovery.descriptor(for: type(of: object)).properties {
            let shape = property.shape, propertyPath = path + [property.name]
            if shape.type == .linkingObjects { continue }
            let value = property.accessor.value(of: object)
            let term: QueryPredicate
            if shape.collection == .none, shape.type == .object, let nested = value as? EmbeddedObject {
                term = try memberwiseEquality(propertyPath, nested)
            } else if shape.collection == .none, let constant = QueryValue.from(value) {
                term = .comparison(QueryComparison(left: .keyPath(propertyPath, position: -1), op: .equal,
                                                   right: .value(constant, position: -1)))
            } else {
                throw Realm.Error.query("Cannot compare '\(propertyPath.joined(separator: "."))' memberwise: only values and embedded objects can be.")
            }
            predicate = .and(predicate, term)
        }
        return predicate
    }

    func collectionOperator<U>(_ name: String) -> Query<U> {
        guard let path = node.path else { return Query<U>(node.asFailure("a collection operator must follow a property")) }
        return Query<U>(path: path + [name])
    }

    // MARK: Comparisons

    /// The property equals `rhs` (`==`; objects compare by row, nil matches
    /// nil). Strings compare exactly; use ``equals(_:options:)-(String,_)`` for
    /// `[c]`/`[d]`.
    public static func == (lhs: Query, rhs: T) -> Query<Bool> { lhs.compareConstant(.equal, rhs) }
    /// The property does not equal `rhs` (`!=`); a nil value is unequal to
    /// every non-nil `rhs`.
    public static func != (lhs: Query, rhs: T) -> Query<Bool> { lhs.compareConstant(.notEqual, rhs) }

    /// The property's value is one of `values` (IN).
    public func `in`<S: Sequence>(_ values: S) -> Query<Bool> where S.Element == T {
        compare(.in, values.map { $0 as Any })
    }
}

extension Query where T == AnyRealmValue {
    /// The element at `position` of a list nested in the value (`value[0]`
    /// in the query language); nil when there is none.
    public subscript(position: Int) -> Query<AnyRealmValue> { collectionOperator("[\(position)]") }

    /// The value under `key` of a dictionary nested in the value
    /// (`value['key']`); nil when there is none.
    public subscript(key: String) -> Query<AnyRealmValue> { collectionOperator("['\(key)']") }

    /// Every element of a list, or value of a dictionary, nested in the value
    /// (`value[*]`): a comparison matches when one of them does.
    public var any: Query<AnyRealmValue> { collectionOperator("[*]") }
}

enum QueryBuilderNode {
    case path([String])
    /// `$0` of a Results of objects: a path with no names yet, whose class
    /// keeps the names of the key paths used on it (ClassInfo's
    /// `keyPathNames`), so the closure of a lookup loop finds them there.
    case root(ClassInfo)
    /// `path == constant` for a String or Int constant: what a lookup's
    /// closure returns, held without the predicate tree (Results.where
    /// reads it straight into an IndexedLookup; `predicate()` builds the
    /// comparison for every other use).
    case equality([String], LookupConstant)
    case predicate(QueryPredicate)
    /// The count of a subquery (`(predicate).count`), to be compared.
    case subquery(QuerySubquery)
    /// Boxed: Realm.Error holds a URL, whose layout Foundation keeps
    /// resilient, and an unboxed payload made Query<T> a value of unknown
    /// size in generic code, copied and destroyed through the runtime's
    /// Query<...> metadata on every `where`.
    indirect case failed(Realm.Error)

    // The builder's steps on nodes, not on Query<T>: a method of the generic
    // Query asks the runtime for a Query<...> metadata on every call (a
    // lookup loop builds a query per value).

    /// The names of a path (none for the root), or nil for a predicate.
    var path: [String]? {
        switch self {
        case .path(let path): path
        case .root: []
        case .predicate, .subquery, .failed, .equality: nil
        }
    }

    /// This path followed by the names `keyPath` goes through.
    func appending(_ keyPath: AnyKeyPath, _ root: ObjectBase.Type) -> QueryBuilderNode {
        if case .root(let info) = self {
            if let names = info.keyPathNames.names(of: keyPath) { return .path(names) }
            do {
                let names = try KeyPathRecorder.components(of: keyPath, root: root)
                info.keyPathNames.remember(keyPath, names)
                return .path(names)
            } catch {
                return .failed(Realm.Error(error, otherwise: .invalidValue))
            }
        }
        guard case .path(let path) = self else { return asFailure("a property cannot follow a predicate") }
        do {
            let names = try KeyPathRecorder.components(of: keyPath, root: root)
            // `$0.name`: the cached names themselves, no new array.
            return .path(path.isEmpty ? names : path + names)
        } catch {
            return .failed(Realm.Error(error, otherwise: .invalidValue))
        }
    }

    /// `path op constant` for a String, Int, Bool or Double constant, read
    /// without the dynamic casts of `QueryValue.from`; nil for any other.
    func comparing<V>(_ op: QueryOperator, constant value: V) -> QueryBuilderNode? {
        guard let path else { return nil }
        if op == .equal {
            if V.self == String.self { return .equality(path, .string(unsafeBitCast(value, to: String.self))) }
            if V.self == Int.self { return .equality(path, .int(Int64(unsafeBitCast(value, to: Int.self)))) }
        }
        guard let constant = QueryValue.plain(value) else { return nil }
        return .predicate(.comparison(QueryComparison(left: .keyPath(path, position: -1), op: op, right: .value(constant, position: -1))))
    }

    func asFailure(_ message: String) -> QueryBuilderNode {
        if case .failed = self { return self }
        return .failed(.query("Invalid query: \(message)."))
    }
}

/// The constant of an `equality` node.
enum LookupConstant {
    case string(String)
    case int(Int64)

    var value: QueryValue {
        switch self {
        case .string(let s): .string(s)
        case .int(let v): .int(v)
        }
    }
}

/// The names of the key paths used on one class's `$0`, by key path
/// identity: a key path literal is one object for the whole process, so a
/// lookup loop's closure finds its path here with a pointer comparison
/// under an uncontended lock (KeyPathRecorder's process-wide tables cost a
/// lazy global's once check, a lock and a hash per access). Bounded: key
/// paths built at run time are new objects, and go to KeyPathRecorder.
///
/// @unchecked Sendable: `entries` is guarded by `lock`. A plain field, not a
/// Mutex: a Mutex destroys its value through the value's run-time metadata,
/// which every class's deinit would build at a process's first close.
final class KeyPathNames: @unchecked Sendable {
    /// Key paths are immutable values, so sharing them between threads is safe.
    private struct Entry: @unchecked Sendable {
        let keyPath: AnyKeyPath
        let names: [String]
    }

    private let lock = NSLock()
    private var entries: [Entry] = []
    private static let limit = 16

    func names(of keyPath: AnyKeyPath) -> [String]? {
        lock.withLock {
            for entry in entries where entry.keyPath === keyPath { return entry.names }
            return nil
        }
    }

    func remember(_ keyPath: AnyKeyPath, _ names: [String]) {
        let entry = Entry(keyPath: keyPath, names: names)
        lock.withLock {
            if entries.count < Self.limit, !entries.contains(where: { $0.keyPath === entry.keyPath }) { entries.append(entry) }
        }
    }
}

// MARK: - Key paths

extension Query where T: ObjectBase {
    /// The property at `keyPath` of this object: `$0.age`, `$0.owner`.
    public subscript<V>(dynamicMember keyPath: KeyPath<T, V>) -> Query<V> { appending(keyPath, T.self) }
}

/// `Optional<SomeObject>`, so `$0.owner.name` works on optional links.
public protocol _QueryOptionalObject {
    associatedtype _QueryWrapped: ObjectBase
}

extension Optional: _QueryOptionalObject where Wrapped: ObjectBase {
    public typealias _QueryWrapped = Wrapped
}

extension Query where T: _QueryOptionalObject {
    /// The property at `keyPath` of the object an optional link points to:
    /// `$0.owner.name`; a nil link gives nil, which matches only nil.
    public subscript<V>(dynamicMember keyPath: KeyPath<T._QueryWrapped, V>) -> Query<V> { appending(keyPath, T._QueryWrapped.self) }
}

/// Collections usable in the builder: `$0.dogs.count`, `$0.tags.contains("x")`, `$0.dogs.name == "Rex"` (ANY).
public protocol _QueryCollection {
    associatedtype _QueryElementValue
}

extension List: _QueryCollection { public typealias _QueryElementValue = Element }
extension MutableSet: _QueryCollection { public typealias _QueryElementValue = Element }
extension Map: _QueryCollection { public typealias _QueryElementValue = Value }
extension LinkingObjects: _QueryCollection { public typealias _QueryElementValue = Element }

extension Query where T: _QueryCollection {
    /// The number of elements (@count).
    public var count: Query<Int> { collectionOperator("@count") }
    /// True if any element equals `value`.
    public func contains(_ value: T._QueryElementValue) -> Query<Bool> { compare(.equal, value, quantifier: .any) }
    /// Aggregates of a collection of numbers (@min, @max, @sum, @avg).
    public var min: Query<T._QueryElementValue> { collectionOperator("@min") }
    /// The largest element of a collection of numbers or dates (`@max`):
    /// `$0.scores.max > 90`.
    public var max: Query<T._QueryElementValue> { collectionOperator("@max") }
    /// The sum of a collection of numbers (`@sum`): `$0.scores.sum > 100`.
    public var sum: Query<T._QueryElementValue> { collectionOperator("@sum") }
    /// The average of a collection of numbers (`@avg`), as a Double:
    /// `$0.scores.avg >= 3.5`.
    public var avg: Query<Double> { collectionOperator("@avg") }
}

extension Query where T: _QueryCollection, T._QueryElementValue: ObjectBase {
    /// The property at `keyPath` of the collection's objects, compared with ANY
    /// semantics: `$0.dogs.name == "Rex"` matches when some dog is named Rex.
    public subscript<V>(dynamicMember keyPath: KeyPath<T._QueryElementValue, V>) -> Query<V> {
        appending(keyPath, T._QueryElementValue.self)
    }
}

// MARK: - Ordering

/// Types ordered in queries (numbers, dates, strings, decimals, object ids, and their optionals).
public protocol _QueryComparable {}
extension Int: _QueryComparable {}
extension Int8: _QueryComparable {}
extension Int16: _QueryComparable {}
extension Int32: _QueryComparable {}
extension Int64: _QueryComparable {}
extension Float: _QueryComparable {}
extension Double: _QueryComparable {}
extension Date: _QueryComparable {}
extension String: _QueryComparable {}
extension Decimal128: _QueryComparable {}
extension ObjectId: _QueryComparable {}
/// Mixed values order as Realm's Mixed comparisons do (MixedQuery.swift).
extension AnyRealmValue: _QueryComparable {}
extension Optional: _QueryComparable where Wrapped: _QueryComparable {}

extension Query where T: _CustomPersistable, T.PersistedType: _QueryComparable {
    /// The property's persisted value is less than `rhs`'s.
    public static func < (lhs: Query, rhs: T) -> Query<Bool> { lhs.compareConstant(.less, rhs) }
    /// The property's persisted value is less than or equal to `rhs`'s.
    public static func <= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compareConstant(.lessOrEqual, rhs) }
    /// The property's persisted value is greater than `rhs`'s.
    public static func > (lhs: Query, rhs: T) -> Query<Bool> { lhs.compareConstant(.greater, rhs) }
    /// The property's persisted value is greater than or equal to `rhs`'s.
    public static func >= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compareConstant(.greaterOrEqual, rhs) }
}

extension Query where T: _CustomPersistable {
    /// The property's persisted value, to query what the persisted type
    /// offers: `$0.coordinate.persistableValue.latitude > 10` for a type
    /// persisted as an embedded object, ranges on a primitive one.
    public var persistableValue: Query<T.PersistedType> { Query<T.PersistedType>(node) }
}

extension Query where T: _OptionalCustomPersistable {
    /// The optional property's persisted value (nil stays nil).
    public var persistableValue: Query<T._CustomWrapped.PersistedType?> { Query<T._CustomWrapped.PersistedType?>(node) }
}

extension Query where T: _OptionalCustomPersistable, T._CustomWrapped.PersistedType: _QueryComparable {
    /// The property's persisted value is less than `rhs`'s; nil matches no
    /// ordering.
    public static func < (lhs: Query, rhs: T) -> Query<Bool> { lhs.compareConstant(.less, rhs) }
    /// The property's persisted value is less than or equal to `rhs`'s.
    public static func <= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compareConstant(.lessOrEqual, rhs) }
    /// The property's persisted value is greater than `rhs`'s.
    public static func > (lhs: Query, rhs: T) -> Query<Bool> { lhs.compareConstant(.greater, rhs) }
    /// The property's persisted value is greater than or equal to `rhs`'s.
    public static func >= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compareConstant(.greaterOrEqual, rhs) }
}

extension Query where T: _QueryComparable {
    /// The property is less than `rhs`. An object whose optional property is
    /// nil does not match any ordering.
    public static func < (lhs: Query, rhs: T) -> Query<Bool> { lhs.compareConstant(.less, rhs) }
    /// The property is less than or equal to `rhs`.
    public static func <= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compareConstant(.lessOrEqual, rhs) }
    /// The property is greater than `rhs`.
    public static func > (lhs: Query, rhs: T) -> Query<Bool> { lhs.compareConstant(.greater, rhs) }
    /// The property is greater than or equal to `rhs`.
    public static func >= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compareConstant(.greaterOrEqual, rhs) }

    /// low <= value <= high (BETWEEN).
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> where T: Comparable {
        compare(.between, [range.lowerBound as Any, range.upperBound as Any])
    }
}

// MARK: - Strings

public protocol _QueryString {}
extension String: _QueryString {}
extension Optional: _QueryString where Wrapped == String {}

extension Query where T: _QueryString {
    /// The string property begins with `value` (`BEGINSWITH`); `options:
    /// .caseInsensitive` for `[c]`, `.diacriticInsensitive` for `[d]`.
    public func starts(with value: String, options: StringOptions = []) -> Query<Bool> { compare(.beginsWith, value, options: options) }
    /// The string property ends with `value` (`ENDSWITH`), with the same
    /// options as ``starts(with:options:)-(String,_)``.
    public func ends(with value: String, options: StringOptions = []) -> Query<Bool> { compare(.endsWith, value, options: options) }
    /// Full-text search (`TEXT`) of a property declared
    /// `@Persisted(indexed: .fullText)`: the text holds every word of `query`,
    /// none of its `-words`, and a word starting with each `prefix*`.
    public func fullTextSearch(_ query: String) -> Query<Bool> { compare(.text, query) }
    /// The string property contains `value` as a substring (`CONTAINS`), with
    /// the same options as ``starts(with:options:)-(String,_)``.
    public func contains(_ value: String, options: StringOptions = []) -> Query<Bool> { compare(.contains, value, options: options) }
    /// The string property equals `value` (`==`), ignoring case or diacritics
    /// as `options` say.
    public func equals(_ value: String, options: StringOptions = []) -> Query<Bool> { compare(.equal, value, options: options) }
    /// The string property does not equal `value` (`!=`), ignoring case or
    /// diacritics as `options` say.
    public func notEquals(_ value: String, options: StringOptions = []) -> Query<Bool> { compare(.notEqual, value, options: options) }
    /// `*` matches any characters, `?` one character.
    public func like(_ value: String, caseInsensitive: Bool = false) -> Query<Bool> {
        compare(.like, value, options: caseInsensitive ? .caseInsensitive : [])
    }
}

// MARK: - Logic

extension Query where T == Bool {
    /// Both predicates hold (`AND`).
    public static func && (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> { combine(lhs, rhs) { .and($0, $1) } }
    /// Either predicate holds (`OR`).
    public static func || (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> { combine(lhs, rhs) { .or($0, $1) } }

    /// The predicate does not hold (`NOT`).
    public static prefix func ! (query: Query<Bool>) -> Query<Bool> {
        catching { Query<Bool>(.predicate(.not(try query.predicate()))) }
    }

    private static func combine(_ a: Query<Bool>, _ b: Query<Bool>, _ make: (QueryPredicate, QueryPredicate) -> QueryPredicate) -> Query<Bool> {
        catching { Query<Bool>(.predicate(make(try a.predicate(), try b.predicate()))) }
    }
}

// MARK: - Key path names

/// Finds the property names a Swift key path reads (`\Person.dog.name` ->
/// "dog.name") by applying it to recording prototypes: unmanaged instances
/// whose @Persisted fields carry column -2 - index, so the getter reports
/// each access (Persisted.swift) to the log the prototype points at. Links
/// hold the prototype of their class, so chains through to-one links work.
/// Results are cached per key path.
enum KeyPathRecorder {
    /// Key paths are immutable values, so sharing them between threads is safe.
    private struct Key: @unchecked Sendable {
        let keyPath: AnyKeyPath
        let names: [String]
    }

    /// The property names a key path goes through (a `where` query builds
    /// its paths from these on every call, so they are kept split), by the
    /// key path's hash, then its value. Keyed by Int: a dictionary keyed by
    /// a type of this module made the table's first use look that type's
    /// Hashable conformance up through every conformance of the process.
    private static let cache = Protected<[Int: [Key]]>([:])

    /// The same names by the key path's identity: a key path literal is
    /// one object for the whole process, and hashing a key path by value
    /// (walking its components) was most of a `where` query's key-path
    /// cost. Holds the key path, so an identity is never reused while
    /// cached; bounded, as key paths built at run time are new objects.
    private static let byIdentity = Protected<[ObjectIdentifier: Key]>([:])
    private static let identityLimit = 512

    static func name(of keyPath: AnyKeyPath, root: ObjectBase.Type) throws -> String {
        try components(of: keyPath, root: root).joined(separator: ".")
    }

    static func components(of keyPath: AnyKeyPath, root: ObjectBase.Type) throws -> [String] {
        try components(of: keyPath, root: root) { $0[keyPath: keyPath] }
    }

    /// The names `read` goes through when applied to a recording prototype
    /// of `root`, cached under `keyPath`: a projection's key paths read the
    /// root object through their @Projected properties. A value that ends
    /// in a projected collection (`\.friends.projectTo.firstName`) adds the
    /// names its elements' key path goes through.
    static func components(of keyPath: AnyKeyPath, root: ObjectBase.Type, read: (ObjectBase) -> Any?) throws -> [String] {
        let identity = ObjectIdentifier(keyPath)
        if let known = byIdentity.withLock({ $0[identity] }), known.keyPath === keyPath { return known.names }
        let hash = keyPath.hashValue
        if let known = cache.withLock({ $0[hash]?.first(where: { $0.keyPath == keyPath }) }) {
            remember(known)
            return known.names
        }
        let log = KeyPathLog()
        var prototypes: [ObjectIdentifier: ObjectBase] = [:]
        var links: [(ObjectBase, any PropertyAccessor)] = []
        func prototype(_ type: ObjectBase.Type) throws -> ObjectBase {
            if let known = prototypes[ObjectIdentifier(type)] { return known }
            let descriptor = try SchemaDiscovery.descriptor(for: type)
            let object = type.init()
            prototypes[ObjectIdentifier(type)] = object
            object._record = UnsafeRawPointer(Unmanaged.passUnretained(log).toOpaque())
            let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
            for (index, property) in descriptor.properties.enumerated() {
                // A custom type persisted as an embedded object ends the key
                // path (its persistableValue starts a new one): converting a
                // prototype would log the embedded prototype's reads.
                // (Asked of links only: each cast's first conformance scan is costly.)
                if property.shape.type == .object, property.shape.collection == .none, let target = property.shape.objectType,
                   !(property.accessor.valueType is any _CustomPersistable.Type),
                   !(property.accessor.valueType is any _OptionalCustomPersistable.Type) {
                    try property.accessor.setValue(try prototype(target), on: object, realm: nil)
                    links.append((object, property.accessor))
                }
                (base + property.accessor.columnFieldOffset).storeBytes(of: Int32(-2 - index), as: Int32.self)
            }
            return object
        }
        let root = try prototype(root)
        defer {
            // Back to plain unmanaged objects (no log pointer, no recording
            // columns, no links between prototypes), even if one escaped.
            for object in prototypes.values {
                object._record = nil
                if let descriptor = try? SchemaDiscovery.descriptor(for: type(of: object)) {
                    let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
                    for property in descriptor.properties {
                        (base + property.accessor.columnFieldOffset).storeBytes(of: Int32(-1), as: Int32.self)
                    }
                }
            }
            for (object, accessor) in links {
                try? accessor.setValue(Optional<Int>.none as Any, on: object, realm: nil)
            }
        }
        let value = read(root)
        // A String or Int value is no projected collection: compared by
        // type, as the cast's first conformance scan is most of a process's
        // first `where`.
        if let value, type(of: value) != String.self, type(of: value) != Int.self,
           let tail = value as? ProjectedKeyPathTail { log.names += try tail.elementPropertyNames() }
        guard !log.names.isEmpty else {
            throw Realm.Error.query("Key path \(keyPath) of '\(root)' does not name a persisted property; use @Persisted properties (and to-one links) only.")
        }
        let key = Key(keyPath: keyPath, names: log.names)
        cache.withLock { $0[hash, default: []].append(key) }
        remember(key)
        return key.names
    }

    private static func remember(_ key: Key) {
        byIdentity.withLock { table in
            if table.count < identityLimit { table[ObjectIdentifier(key.keyPath)] = key }
        }
    }
}

final class KeyPathLog {
    var names: [String] = []
}

/// Called by the @Persisted getter for a recording prototype (column < -1).
@usableFromInline @inline(never)
func _rlmRecordKeyPathAccess(_ object: ObjectBase, _ column: Int32) {
    guard let log = object._record,
          let descriptor = try? SchemaDiscovery.descriptor(for: type(of: object)) else { return }
    let index = Int(-2 - column)
    guard descriptor.properties.indices.contains(index) else { return }
    Unmanaged<KeyPathLog>.fromOpaque(log).takeUnretainedValue().names.append(descriptor.properties[index].name)
}
