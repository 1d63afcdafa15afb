import Foundation

// The `where {}` forms of the query language's collection and property
// operators, as RealmSwift spells them: map subscripts, `keys` / `values`,
// comparisons on collections of values (ANY), `containsAny(in:)`, ranges,
// comparisons and string operators between two properties, and subquery
// counts (`($0.dogs.age > 3 && $0.dogs.name == "Rex").count > 1`).

extension Query {
    /// `self op other`, both key paths of the same object.
    fileprivate func compare<U, V>(_ op: QueryOperator, column other: Query<V>, options: StringOptions = []) -> Query<U> {
        guard let path = node.path, let otherPath = other.node.path else {
            return Query<U>(node.asFailure("only properties can be compared with each other"))
        }
        return Query<U>(.predicate(.comparison(QueryComparison(
            left: .keyPath(path, position: -1), op: op, right: .keyPath(otherPath, position: -1),
            caseInsensitive: options.contains(.caseInsensitive), diacriticInsensitive: options.contains(.diacriticInsensitive)))))
    }

    /// The property equals another property of the same object (`a == b`).
    public static func == (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(.equal, column: rhs) }
    /// The property differs from another property of the same object (`a != b`).
    public static func != (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(.notEqual, column: rhs) }
}

extension Query where T: _QueryComparable {
    /// The property is less than another property of the same object.
    public static func < (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(.less, column: rhs) }
    /// The property is less than or equal to another property.
    public static func <= (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(.lessOrEqual, column: rhs) }
    /// The property is greater than another property.
    public static func > (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(.greater, column: rhs) }
    /// The property is greater than or equal to another property.
    public static func >= (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(.greaterOrEqual, column: rhs) }
}

extension Query where T: _QueryString {
    /// The string begins with another string property of the same object
    /// (`name BEGINSWITH prefix`), with `[c]`/`[d]` as `options` say.
    public func starts<U: _QueryString>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        compare(.beginsWith, column: column, options: options)
    }
    /// The string ends with another string property (`ENDSWITH`).
    public func ends<U: _QueryString>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        compare(.endsWith, column: column, options: options)
    }
    /// The string contains another string property (`CONTAINS`).
    public func contains<U: _QueryString>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        compare(.contains, column: column, options: options)
    }
    /// The string equals another string property, ignoring case or
    /// diacritics as `options` say (`==[c]`).
    public func equals<U: _QueryString>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        compare(.equal, column: column, options: options)
    }
    /// The string differs from another string property (`!=[c]`).
    public func notEquals<U: _QueryString>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        compare(.notEqual, column: column, options: options)
    }
    /// The string matches the pattern held by another string property (`LIKE`).
    public func like<U: _QueryString>(_ column: Query<U>, caseInsensitive: Bool = false) -> Query<Bool> {
        compare(.like, column: column, options: caseInsensitive ? .caseInsensitive : [])
    }
}

// MARK: - Collections of values

extension Query where T: _QueryCollection {
    /// Some element equals `rhs` (`ANY list == value`).
    public static func == (lhs: Query, rhs: T._QueryElementValue) -> Query<Bool> { lhs.compare(.equal, rhs, quantifier: .any) }
    /// Some element differs from `rhs` (`ANY list != value`).
    public static func != (lhs: Query, rhs: T._QueryElementValue) -> Query<Bool> { lhs.compare(.notEqual, rhs, quantifier: .any) }
    /// Some element is one of `values` (`ANY list IN {...}`).
    public func containsAny<S: Sequence>(in values: S) -> Query<Bool> where S.Element == T._QueryElementValue {
        compare(.in, values.map { $0 as Any }, quantifier: .any)
    }
}

extension Query where T: _QueryCollection, T._QueryElementValue: _QueryComparable {
    /// Some element is less than `rhs` (`ANY list < value`).
    public static func < (lhs: Query, rhs: T._QueryElementValue) -> Query<Bool> { lhs.compare(.less, rhs, quantifier: .any) }
    /// Some element is at most `rhs`.
    public static func <= (lhs: Query, rhs: T._QueryElementValue) -> Query<Bool> { lhs.compare(.lessOrEqual, rhs, quantifier: .any) }
    /// Some element is greater than `rhs`.
    public static func > (lhs: Query, rhs: T._QueryElementValue) -> Query<Bool> { lhs.compare(.greater, rhs, quantifier: .any) }
    /// Some element is at least `rhs`.
    public static func >= (lhs: Query, rhs: T._QueryElementValue) -> Query<Bool> { lhs.compare(.greaterOrEqual, rhs, quantifier: .any) }
}

extension Query where T: _QueryCollection, T._QueryElementValue: _QueryComparable & Comparable {
    /// Some element lies in `range`, bounds included (`ANY list BETWEEN {low, high}`).
    public func contains(_ range: ClosedRange<T._QueryElementValue>) -> Query<Bool> {
        compare(.between, [range.lowerBound as Any, range.upperBound as Any], quantifier: .any)
    }
}

// MARK: - Maps

extension Query where T: RealmKeyedCollection {
    /// The value under `key` (`map['key']`); nil when the key is absent, so
    /// `$0.scores["x"] == nil` matches maps without it.
    public subscript(key: T.Key) -> Query<T.Value> { collectionOperator("['\(key)']") }

    /// Every value of the map (`map.@values`): a comparison matches when one
    /// of them does.
    public var values: Query<T.Value> { collectionOperator("@values") }
}

extension Query where T: RealmKeyedCollection, T.Key == String {
    /// Every key of the map (`map.@keys`): `$0.scores.keys == "x"` matches
    /// maps with the key "x".
    public var keys: Query<String> { collectionOperator("@keys") }
}

// MARK: - Subqueries

extension Query where T == Bool {
    /// How many objects of one to-many relationship satisfy this predicate
    /// (`SUBQUERY(dogs, $d, ...).@count`): `($0.dogs.age > 3 &&
    /// $0.dogs.name.starts(with: "R")).count >= 2` counts the dogs that are
    /// both. Every key path inside must go through the same relationship.
    public var count: Query<Int> {
        Query<Int>.catching {
            let predicate = try self.predicate()
            return Query<Int>(.subquery(QuerySubquery(collection: [], variable: "", predicate: predicate)))
        }
    }
}
