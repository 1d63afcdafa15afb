import Foundation

// The query API of Results and of object collections (List, MutableSet,
// LinkingObjects): filter, where {}, sorted, distinct, aggregates,
// index(matching:). Written once against `RealmCollection`
// (`_rlmQueryResults`); Results of values turn to ValueResultsQuery.swift.
//
// RealmSwift's versions are non-throwing and raise on a bad query; these do
// the same (stopping with the Realm.Error message), and each has a throwing
// twin (`checkedFilter`, `checkedSorted`...) that returns the Realm.Error.

extension Results {
    /// The parts of this Results' query so far.
    var queryParts: (info: ClassInfo, base: QueryBase, predicate: QueryPredicate?, orderings: [QueryOrdering]) {
        switch source {
        case .all(let info): (info, .all, nil, [])
        case .query(let plan): (plan.info, plan.base, plan.predicate, plan.orderings)
        // Every entry point turns to ValueResultsQuery.swift first.
        case .values: preconditionFailure("a Results of values has no object query")
        }
    }

    func with(predicate: QueryPredicate?, orderings: [QueryOrdering], useIndexes: Bool = true) throws -> Results<Element> {
        let parts = queryParts
        var compiler = QueryCompiler(info: parts.info, format: "")
        compiler.useIndexes = useIndexes
        let compiled = try predicate.map { try compiler.compile($0) }
        let plan = QueryPlan(info: parts.info, base: parts.base, predicate: predicate, compiled: compiled, orderings: orderings)
        return Results(derivedFrom: self, source: .query(plan))
    }

    /// Adds a predicate (checked against the class first, for messages that quote the format).
    func adding(_ predicate: QueryPredicate, format: String, useIndexes: Bool = true) throws -> Results<Element> {
        if let plan = valuePlan { return try addingValueFilter(plan, predicate, format: format) }
        let parts = queryParts
        var compiler = QueryCompiler(info: parts.info, format: format)
        compiler.useIndexes = useIndexes
        let compiled = try compiler.compile(predicate)
        if parts.orderings.contains(where: { if case .limit = $0 { true } else { false } }) {
            // Filtering after LIMIT filters the limited objects: start from this Results' keys.
            let previous = queryPlan
            let plan = QueryPlan(info: parts.info, base: .keys(previous.keySource), predicate: nil, compiled: nil, orderings: [])
            return try Results(realm: realmInstance, source: .query(plan)).adding(predicate, format: format, useIndexes: useIndexes)
        }
        guard let previous = parts.predicate else {
            // The first filter: what was just compiled is the whole query.
            if let lookup = compiled.lookup, case .all = parts.base, parts.orderings.isEmpty, !realmInstance.isFrozen {
                return Results(derivedFrom: self, pending: PendingLookup(lookup: lookup))
            }
            let plan = QueryPlan(info: parts.info, base: parts.base, predicate: predicate, compiled: compiled, orderings: parts.orderings)
            return Results(derivedFrom: self, source: .query(plan))
        }
        return try with(predicate: .and(previous, predicate), orderings: parts.orderings, useIndexes: useIndexes)
    }

    func checkedFilter(_ format: String, arguments: [Any], useIndexes: Bool = true) throws -> Results<Element> {
        if let plan = valuePlan { return try valueFilter(plan, format, arguments) }
        let (predicate, descriptors) = try QueryFormatCache.parse(format, arguments)
        var results = try adding(predicate, format: format, useIndexes: useIndexes)
        for descriptor in descriptors {
            switch descriptor {
            case .sort(let sorts): results = try results.sortedResults(by: sorts)
            case .distinct(let paths): results = try results.distinctResults(by: paths)
            case .limit(let n):
                let parts = results.queryParts
                results = try results.with(predicate: parts.predicate, orderings: parts.orderings + [.limit(n)], useIndexes: useIndexes)
            }
        }
        return results
    }

    func sortKeys(_ descriptors: [SortDescriptor]) throws -> [CompiledSortKey] {
        let info = queryParts.info
        return try descriptors.map { descriptor in
            let resolver = PathResolver(root: info, format: "")
            let components = descriptor.keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let path = try resolver.resolveCached(components, position: -1)
            try checkSingleValued(path, "sort on", descriptor.keyPath, allowLinks: false)
            return CompiledSortKey(path: path, ascending: descriptor.ascending)
        }
    }

    func checkSingleValued(_ path: ResolvedPath, _ verb: String, _ keyPath: String, allowLinks: Bool) throws {
        if path.endsInCollection {
            throw Realm.Error.query("Cannot \(verb) key path '\(keyPath)': it is a collection (List, MutableSet, Map or LinkingObjects); only single values can be used.")
        }
        if path.isMulti {
            throw Realm.Error.query("Cannot \(verb) key path '\(keyPath)': it goes through a to-many relationship.")
        }
        if path.isAggregate {
            throw Realm.Error.query("Cannot \(verb) key path '\(keyPath)': collection operators are not supported here.")
        }
        if path.type == .object && !allowLinks {
            throw Realm.Error.query("Cannot \(verb) key path '\(keyPath)': it is a link; use one of the linked object's properties (e.g. '\(keyPath).name').")
        }
    }

    func sortedResults(by descriptors: [SortDescriptor]) throws -> Results<Element> {
        if let plan = valuePlan { return try valueSorted(plan, by: descriptors) }
        let parts = queryParts
        let ordering = QueryOrdering.sort(descriptors, try sortKeys(descriptors))
        return try with(predicate: parts.predicate, orderings: parts.orderings + [ordering])
    }

    func distinctResults(by keyPaths: [String]) throws -> Results<Element> {
        if let plan = valuePlan { return try valueDistinct(plan, by: keyPaths) }
        let parts = queryParts
        let resolver = PathResolver(root: parts.info, format: "")
        let paths = try keyPaths.map { keyPath in
            let path = try resolver.resolve(keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init), position: -1)
            try checkSingleValued(path, "distinct on", keyPath, allowLinks: true)
            return path
        }
        return try with(predicate: parts.predicate, orderings: parts.orderings + [.distinct(keyPaths, paths)])
    }

    /// Computes @min/@max/@sum/@avg of a property over the current results.
    func checkedAggregate(_ op: CollectionAggregate, _ property: String) throws -> (QueryOperand, PropertyType) {
        let info = queryParts.info
        var path = try PathResolver(root: info, format: "").resolve(property.split(separator: ".").map(String.init), position: -1)
        try checkSingleValued(path, "compute \(op.rawValue) of", property, allowLinks: false)
        if path.type == .any { (path.source, path.type) = (mixedNumbers(path.source), .double) }
        let numeric: Set<PropertyType> = [.int, .float, .double, .decimal128]
        guard numeric.contains(path.type) || (path.type == .date && (op == .min || op == .max)) else {
            throw Realm.Error.query("Cannot compute \(op.rawValue) of '\(info.name).\(property)': it is of type \(path.type); use a numeric\(op == .min || op == .max ? " or date" : "") property.")
        }
        var accumulator = AggregateAccumulator(op: op, type: path.type)
        let realm = realmInstance
        let (keys, records) = queryPlan.rows(realm)
        for i in keys.indices {
            _ = path.source(realm, records[i], keys[i]) {
                accumulator.add($0)
                return false
            }
        }
        return (accumulator.result, path.type)
    }

    /// The plan of this Results (a plain one for all objects of a class).
    var queryPlan: QueryPlan {
        switch source {
        case .query(let plan): return plan
        case .all(let info): return QueryPlan(info: info, base: .all, predicate: nil, compiled: nil, orderings: [])
        case .values: preconditionFailure("a Results of values has no object query")
        }
    }

    func checkedIndex(matching predicate: QueryPredicate, format: String) throws -> Int? {
        if let plan = valuePlan { return try valueIndex(plan, matching: predicate, format: format) }
        let info = queryParts.info
        let filter = try QueryCompiler(info: info, format: format).compile(predicate).filter
        let realm = realmInstance
        let (keys, records) = queryPlan.rows(realm)
        return keys.indices.first { filter(realm, records[$0], keys[$0]) }
    }
}

extension Results {
    /// ``RealmCollection/where(_:)`` on Results themselves, the lookup loop's
    /// call: the protocol's version reaches the same `adding` through
    /// `_rlmQueryResults()` and generic wrappers, once per query.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        // The thread check before the Results' source is read.
        let core = realmInstance
        let query = isIncluded(Query<Element>(queryRoot))
        if case .equality(let path, let constant) = query.node, !core.isFrozen, let results = pendingLookup(path, constant) {
            return results
        }
        return orStop { try adding(query.predicate(), format: "") }
    }

    /// `$0` of a `where` closure: for a Results of objects, the root that
    /// caches its key paths' names in the class.
    var queryRoot: QueryBuilderNode {
        if let pending { return .root(pending.info) }
        if case .all(let info) = builtSource { return .root(info) }
        if case .query(let plan) = builtSource { return .root(plan.info) }
        return .path([])
    }

    /// `where { $0.name == constant }` on every object of a class of a live
    /// Realm, with `name` an indexed String or Int column: the Results of
    /// the lookup, built without a predicate tree or compiler (what
    /// `adding` would make of the same predicate); nil for any other query.
    private func pendingLookup(_ path: [String], _ constant: LookupConstant) -> Results<Element>? {
        guard path.count == 1, pending == nil, case .all(let info) = builtSource,
              let lookup = IndexedLookup.make(info, path[0], constant) else { return nil }
        return Results(derivedFrom: self, pending: PendingLookup(lookup: lookup))
    }
}

/// An aggregate over the values themselves (`"self"`) of a collection or map
/// of numbers or dates.
func valuesAggregate<S: Sequence>(_ op: CollectionAggregate, _ property: String, _ values: S) throws -> (QueryOperand, PropertyType)
where S.Element: RealmCollectionValue {
    let type = S.Element._rlmShape.type
    guard property == "self", aggregatable(type, op) else {
        throw Realm.Error.query("Cannot compute \(op.rawValue) of '\(property)' on a collection of \(S.Element.self): use \"self\" on a collection of numbers\(op == .min || op == .max ? " or dates" : "").")
    }
    // A nil optional is no `_RealmPrimitive` and is skipped, as in queries.
    return (accumulate(op, type, values.lazy.compactMap { $0 as? any _RealmPrimitive }), type)
}

/// True if `op` applies to values of `type`: numbers, and dates for min and max.
func aggregatable(_ type: PropertyType, _ op: CollectionAggregate) -> Bool {
    [.int, .float, .double, .decimal128].contains(type) || (type == .date && (op == .min || op == .max))
}

/// `op` over values read without a query (nil and NaN skipped by the accumulator).
func accumulate<S: Sequence>(_ op: CollectionAggregate, _ type: PropertyType, _ values: S) -> QueryOperand
where S.Element == any _RealmPrimitive {
    var accumulator = AggregateAccumulator(op: op, type: type)
    for value in values { value._rlmWithBytes { accumulator.add(.raw($0)) } }
    return accumulator.result
}

/// Converts an aggregate to the caller's type.
func aggregateValue<T: _RealmPrimitive>(_ result: (QueryOperand, PropertyType), as: T.Type) -> T? {
    switch result.0 {
    case .null, .raw: return nil
    case .int(let v): return T._rlmFromAny(Int(v))
    case .double(let v):
        if result.1 == .date { return T._rlmFromAny(Date(timeIntervalSinceReferenceDate: v)) }
        return T._rlmFromAny(v)
    case .decimal(let d):
        if let direct = d as? T { return direct }
        return T._rlmFromAny(d.doubleValue)
    }
}

extension RealmCollection {
    // MARK: Filtering

    /// Objects matching a predicate in Realm's query language (docs/QUERIES.md):
    /// `filter("age > %@ AND name BEGINSWITH[c] %@", 3, "l")`. Stops on an invalid predicate.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        orStop { try checkedFilter(predicateFormat, arguments: args) }
    }

    /// `filter` that throws the Realm.Error for an invalid predicate.
    public func checkedFilter(_ predicateFormat: String, _ args: Any...) throws -> Results<Element> {
        try checkedFilter(predicateFormat, arguments: args)
    }

    /// ``filter(_:_:)`` with its arguments as an array (for predicates built at
    /// run time); throws ``Realm/Error/Code/invalidValue`` with the position
    /// and reason for an invalid predicate or argument instead of stopping.
    public func checkedFilter(_ predicateFormat: String, arguments: [Any]) throws -> Results<Element> {
        try _rlmQueryResults().checkedFilter(predicateFormat, arguments: arguments)
    }

    /// Type-safe filter: `where { $0.age > 3 && $0.name.starts(with: "L") }`.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        orStop { try checkedWhere(isIncluded) }
    }

    /// ``where(_:)`` that throws ``Realm/Error/Code/invalidValue`` for a
    /// predicate it cannot evaluate (an unsupported value, a key path that is
    /// not a persisted property) instead of stopping.
    public func checkedWhere(_ isIncluded: (Query<Element>) -> Query<Bool>) throws -> Results<Element> {
        let results = try _rlmQueryResults()
        return try results.adding(isIncluded(Query<Element>(results.queryRoot)).predicate(), format: "")
    }

    // MARK: Sorting and distinct

    /// The objects ordered by the property named `keyPath`; a stable sort, so
    /// an earlier order breaks ties, and a later sort takes precedence. Stops
    /// with ``Realm/Error/Code/invalidValue`` for an unknown or collection
    /// property (``checkedSorted(byKeyPath:ascending:)`` throws instead).
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        orStop { try checkedSorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)]) }
    }

    /// The objects ordered by each descriptor in turn: the first descriptor
    /// decides, later ones break its ties. Stops with
    /// ``Realm/Error/Code/invalidValue`` for an unknown or collection property
    /// (`checkedSorted(by:)` throws instead).
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        orStop { try checkedSorted(by: sortDescriptors) }
    }

    /// The objects ordered by the property at `keyPath`: `sorted(by: \.age,
    /// ascending: false)`. Stable, like ``sorted(byKeyPath:ascending:)``; stops
    /// if the key path does not name a persisted property.
    public func sorted<V>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> where Element: ObjectBase {
        orStop { try checkedSorted(by: [SortDescriptor(keyPath: try keyPathString(keyPath), ascending: ascending)]) }
    }

    /// `sorted(by:)` with sort descriptors that throws
    /// ``Realm/Error/Code/invalidValue`` for an unknown or collection property
    /// instead of stopping.
    public func checkedSorted<S: Sequence>(by sortDescriptors: S) throws -> Results<Element> where S.Element == SortDescriptor {
        try _rlmQueryResults().sortedResults(by: Array(sortDescriptors))
    }

    /// ``sorted(byKeyPath:ascending:)`` that throws
    /// ``Realm/Error/Code/invalidValue`` for an unknown or collection property
    /// instead of stopping.
    public func checkedSorted(byKeyPath keyPath: String, ascending: Bool = true) throws -> Results<Element> {
        try checkedSorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// One object per distinct value (tuple) of the key paths; the first in the current order wins.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        orStop { try checkedDistinct(by: keyPaths) }
    }

    /// One object per distinct value tuple of the properties at `keyPaths`:
    /// `distinct(by: [\.name])`. The first object of each tuple in the current
    /// order is kept. Stops if a key path does not name a persisted property.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where Element: ObjectBase, S.Element == PartialKeyPath<Element> {
        orStop { try checkedDistinct(by: keyPaths.map { try keyPathString($0) }) }
    }

    /// `distinct(by:)` with property names that throws
    /// ``Realm/Error/Code/invalidValue`` for an unknown or collection property
    /// instead of stopping.
    public func checkedDistinct<S: Sequence>(by keyPaths: S) throws -> Results<Element> where S.Element == String {
        try _rlmQueryResults().distinctResults(by: Array(keyPaths))
    }

    // MARK: Aggregates

    /// The smallest value of the named numeric or date property, or nil if no
    /// object has a non-nil value (nil and NaN are skipped). Stops with
    /// ``Realm/Error/Code/invalidValue`` for an unknown or unsupported property
    /// (``checkedMin(ofProperty:)`` throws instead).
    public func min<T: _RealmPrimitive>(ofProperty property: String) -> T? {
        orStop { try checkedMin(ofProperty: property) }
    }

    /// The largest value of the named numeric or date property, or nil if no
    /// object has a non-nil value (nil and NaN are skipped). Stops with
    /// ``Realm/Error/Code/invalidValue`` for an unknown or unsupported property
    /// (``checkedMax(ofProperty:)`` throws instead).
    public func max<T: _RealmPrimitive>(ofProperty property: String) -> T? {
        orStop { try checkedMax(ofProperty: property) }
    }

    /// The sum (0 for no objects).
    public func sum<T: _RealmPrimitive>(ofProperty property: String) -> T {
        orStop { try checkedSum(ofProperty: property) }
    }

    /// The average, nil for no objects (or no non-nil values).
    public func average<T: _RealmPrimitive>(ofProperty property: String) -> T? {
        orStop { try checkedAverage(ofProperty: property) }
    }

    /// ``min(ofProperty:)`` that throws ``Realm/Error/Code/invalidValue`` for
    /// an unknown or unsupported property instead of stopping.
    public func checkedMin<T: _RealmPrimitive>(ofProperty property: String) throws -> T? {
        aggregateValue(try collectionAggregate(.min, property), as: T.self)
    }

    /// ``max(ofProperty:)`` that throws ``Realm/Error/Code/invalidValue`` for
    /// an unknown or unsupported property instead of stopping.
    public func checkedMax<T: _RealmPrimitive>(ofProperty property: String) throws -> T? {
        aggregateValue(try collectionAggregate(.max, property), as: T.self)
    }

    /// ``sum(ofProperty:)`` that throws ``Realm/Error/Code/invalidValue`` for
    /// an unknown or non-numeric property instead of stopping.
    public func checkedSum<T: _RealmPrimitive>(ofProperty property: String) throws -> T {
        aggregateValue(try collectionAggregate(.sum, property), as: T.self) ?? T._rlmDefaultValue()
    }

    /// ``average(ofProperty:)`` that throws ``Realm/Error/Code/invalidValue``
    /// for an unknown or non-numeric property instead of stopping.
    public func checkedAverage<T: _RealmPrimitive>(ofProperty property: String) throws -> T? {
        aggregateValue(try collectionAggregate(.avg, property), as: T.self)
    }

    /// The smallest value of the property at `keyPath` (`min(of: \.age)`), or
    /// nil if there are no objects; NaN is skipped.
    public func min<T: _RealmPrimitive>(of keyPath: KeyPath<Element, T>) -> T? where Element: ObjectBase {
        orStop { try checkedMin(ofProperty: keyPathString(keyPath)) }
    }

    /// The smallest non-nil value of the optional property at `keyPath`, or nil
    /// if there is none; nil and NaN are skipped.
    public func min<T: _RealmPrimitive>(of keyPath: KeyPath<Element, T?>) -> T? where Element: ObjectBase {
        orStop { try checkedMin(ofProperty: keyPathString(keyPath)) }
    }

    /// The largest value of the property at `keyPath` (`max(of: \.age)`), or
    /// nil if there are no objects; NaN is skipped.
    public func max<T: _RealmPrimitive>(of keyPath: KeyPath<Element, T>) -> T? where Element: ObjectBase {
        orStop { try checkedMax(ofProperty: keyPathString(keyPath)) }
    }

    /// The largest non-nil value of the optional property at `keyPath`, or nil
    /// if there is none; nil and NaN are skipped.
    public func max<T: _RealmPrimitive>(of keyPath: KeyPath<Element, T?>) -> T? where Element: ObjectBase {
        orStop { try checkedMax(ofProperty: keyPathString(keyPath)) }
    }

    /// The sum of the property at `keyPath` (`sum(of: \.price)`); 0 for no
    /// objects.
    public func sum<T: _RealmPrimitive>(of keyPath: KeyPath<Element, T>) -> T where Element: ObjectBase {
        orStop { try checkedSum(ofProperty: keyPathString(keyPath)) }
    }

    /// The sum of the non-nil values of the optional property at `keyPath`; 0
    /// if there are none.
    public func sum<T: _RealmPrimitive>(of keyPath: KeyPath<Element, T?>) -> T where Element: ObjectBase {
        orStop { try checkedSum(ofProperty: keyPathString(keyPath)) }
    }

    /// The average of the numeric property at `keyPath`, as `T` (`let mean:
    /// Double? = dogs.average(of: \.age)`); nil if no object has a non-nil
    /// value.
    public func average<T: _RealmPrimitive>(of keyPath: KeyPath<Element, some _RealmPrimitive>) -> T? where Element: ObjectBase {
        orStop { try checkedAverage(ofProperty: keyPathString(keyPath)) }
    }

    /// An aggregate over the objects' property, or over the values
    /// themselves (`"self"`) in a collection of values.
    func collectionAggregate(_ op: CollectionAggregate, _ property: String) throws -> (QueryOperand, PropertyType) {
        if linkedObjectType(Element.self) != nil { return try _rlmQueryResults().checkedAggregate(op, property) }
        return try valuesAggregate(op, property, self)
    }

    // MARK: Positions

    /// The position of the first object matching the predicate, or nil.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        orStop { try _rlmQueryResults().checkedIndex(matching: QueryParser.parse(predicateFormat, args), format: predicateFormat) }
    }

    /// The position of the first object matching the type-safe predicate, or
    /// nil: `index(matching: { $0.name == "Rex" })`. Stops on a predicate it
    /// cannot evaluate (``Realm/Error/Code/invalidValue``).
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        orStop { try _rlmQueryResults().checkedIndex(matching: isIncluded(Query<Element>(path: [])).predicate(), format: "") }
    }

    func keyPathString(_ keyPath: AnyKeyPath) throws -> String where Element: ObjectBase {
        try KeyPathRecorder.name(of: keyPath, root: Element.self)
    }
}

// MARK: - Collections of objects

extension List {
    /// This list as a Results, where queries start (RealmCollection).
    public func _rlmQueryResults() throws -> Results<Element> {
        guard let field else {
            throw Realm.Error.query("Only managed Lists can be queried; use Swift's filter/sorted on an unmanaged List.")
        }
        if linkedObjectType(Element.self) == nil { return valueResults(field, mapValues: false) }
        return try linkedObjectResults(field, keys: linkedKeys(field))
    }
}

extension MutableSet {
    /// This set as a Results, where queries start (RealmCollection).
    public func _rlmQueryResults() throws -> Results<Element> {
        guard let field else {
            throw Realm.Error.query("Only managed MutableSets can be queried; use Swift's filter/sorted on an unmanaged set.")
        }
        if linkedObjectType(Element.self) == nil { return valueResults(field, mapValues: false) }
        return try linkedObjectResults(field, keys: linkedKeys(field))
    }
}

/// Results over the objects a managed collection field links to, as `keys`
/// reads them on each evaluation, so the Results stay live. `Element` may be
/// an optional object (a map's `Dog?` values): a Results holds only objects,
/// so the keys give none for nil.
func linkedObjectResults<Element: RealmCollectionValue>(_ field: CollectionField, keys: KeySource) throws -> Results<Element> {
    guard let type = linkedObjectType(Element.self) else { throw valueQueryError(Element.self) }
    let realm = field.realm
    let info = try realm.classInfo(for: type)
    let plan = QueryPlan(info: info, base: .keys(keys), predicate: nil, compiled: nil, orderings: [])
    return Results(realm: realm, source: .query(plan))
}

/// The class of objects a collection of `type` holds: `Dog` for `Dog` and
/// for `Dog?`; nil for values. (An optional object reference has the layout
/// of the reference, so Results read it as they read objects.)
func linkedObjectType(_ type: Any.Type) -> ObjectBase.Type? {
    func wrapped<O: _QueryOptionalObject>(_: O.Type) -> ObjectBase.Type { O._QueryWrapped.self }
    return (type as? ObjectBase.Type) ?? (type as? any _QueryOptionalObject.Type).map { wrapped($0) }
}

private func linkedKeys(_ field: CollectionField) -> KeySource {
    KeySource(read: { _ in
        if field.owner.isInvalidated { return [] }
        let view = field.view
        return (0..<view.count).map { UInt64(littleEndian: view.element($0).loadUnaligned(as: UInt64.self)) }
    }, moved: { core in
        core.counterpart(of: field.owner).map { linkedKeys(field.moved(to: $0)) }
    })
}

extension LinkingObjects {
    /// These linking objects as a Results, where queries start (RealmCollection).
    public func _rlmQueryResults() throws -> Results<Element> {
        guard let owner, let realm = owner._realm, let info = owner._info else {
            throw Realm.Error.query("Only the LinkingObjects of a managed object can be queried.")
        }
        let linking = info.columns[column]
        guard let origin = linking.target, linking.originColumn >= 0 else {
            throw Realm.Error.query("LinkingObjects '\(propertyName)' has no origin property in the schema.")
        }
        let plan = QueryPlan(info: origin, base: .keys(backlinkKeys(owner, origin.columns[linking.originColumn])),
                             predicate: nil, compiled: nil, orderings: [])
        return Results(realm: realm, source: .query(plan))
    }
}

private func backlinkKeys(_ owner: ObjectBase, _ originColumn: Column) -> KeySource {
    KeySource(read: { realm in
        owner.isInvalidated ? [] : realm.backlinkSources(originColumn, target: owner._key)
    }, moved: { core in
        core.counterpart(of: owner).map { backlinkKeys($0, originColumn) }
    })
}

/// Object Results asked of a collection of values (which give Results of
/// values instead: Collections/ValueResults.swift).
func valueQueryError(_ type: Any.Type) -> Realm.Error {
    Realm.Error.query("Cannot read a collection of \(type) values as objects: query its values through 'self'.")
}
