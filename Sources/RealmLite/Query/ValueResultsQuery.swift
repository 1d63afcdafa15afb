import Foundation

// The query API of Results of values (Collections/ValueResults.swift):
// filter strings and where {} compiled with `self` as the element, sorting
// and distinct by the values themselves, LIMIT, index(matching:) and
// observation. ResultsQuery.swift's entry points turn here for these Results.

extension Results {
    /// The predicate compiled for the elements of `plan`.
    private func valueFilterStep(_ plan: ValuePlan, _ predicate: QueryPredicate, format: String) throws -> RowFilter {
        var compiler = QueryCompiler(info: plan.source.info, format: format)
        compiler.useIndexes = false
        compiler.selfPath = plan.source.element.selfPath
        return try compiler.compile(predicate).filter
    }

    private func with(_ plan: ValuePlan) -> Results<Element> {
        Results(realm: realmInstance, source: .values(plan))
    }

    func addingValueFilter(_ plan: ValuePlan, _ predicate: QueryPredicate, format: String) throws -> Results<Element> {
        with(plan.adding(.filter(try valueFilterStep(plan, predicate, format: format))))
    }

    /// A predicate string, with its SORT/DISTINCT/LIMIT applied in order.
    func valueFilter(_ plan: ValuePlan, _ format: String, _ arguments: [Any]) throws -> Results<Element> {
        let (predicate, descriptors) = try QueryParser.parseWithDescriptors(format, arguments)
        var results = try addingValueFilter(plan, predicate, format: format)
        for descriptor in descriptors {
            let current = results.valuePlan ?? plan
            switch descriptor {
            case .sort(let sorts): results = try results.valueSorted(current, by: sorts)
            case .distinct(let paths): results = try results.valueDistinct(current, by: paths)
            case .limit(let n): results = with(current.adding(.limit(n)))
            }
        }
        return results
    }

    /// Values sort only by themselves: every descriptor must be `self`, and
    /// the first decides (the others see equal values).
    func valueSorted(_ plan: ValuePlan, by descriptors: [SortDescriptor]) throws -> Results<Element> {
        try checkSelf(descriptors.map(\.keyPath), "sort")
        guard let first = descriptors.first else { return self }
        return with(plan.adding(.sort(ascending: first.ascending)))
    }

    func valueDistinct(_ plan: ValuePlan, by keyPaths: [String]) throws -> Results<Element> {
        try checkSelf(keyPaths, "make distinct")
        return keyPaths.isEmpty ? self : with(plan.adding(.distinct))
    }

    private func checkSelf(_ keyPaths: [String], _ verb: String) throws {
        if let other = keyPaths.first(where: { $0 != "self" }) {
            throw Realm.Error.query("Cannot \(verb) a collection of \(Element.self) values by '\(other)': values have no properties; use 'self' (sorted(ascending:), distinct()).")
        }
    }

    func valueIndex(_ plan: ValuePlan, matching predicate: QueryPredicate, format: String) throws -> Int? {
        let filter = try valueFilterStep(plan, predicate, format: format)
        let realm = realmInstance
        return plan.elements(realm).firstIndex { withElement($0) { filter(realm, $0, 0) } }
    }

    /// Observes a Results of values: the notifier evaluates it at each
    /// version and diffs the values (insertions and deletions; a changed
    /// value is a deletion and an insertion).
    func observeValues(_ plan: ValuePlan, keyPaths: [String]?,
                       _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> NotificationToken {
        orStop { try checkCollectionKeyPaths(keyPaths, elements: nil, kind: "Results<\(Element.self)>") }
        return realmInstance.observeCollection("Results", keyPaths: keyPaths, read: { core in
            plan.moved(to: core).map { ObservedElements(ids: $0.elements(core), objectClass: nil) }
        }, value: self, block)
    }
}

// MARK: - Sorting and distinct by the values

extension AnyRealmValue: SortableType {}

extension RealmCollection where Element: SortableType {
    /// The values sorted by themselves (a managed collection of values):
    /// nil first, then numbers, dates, strings and data in order;
    /// AnyRealmValues in Realm's mixed order. The same as
    /// `sorted(byKeyPath: "self", ascending:)`.
    public func sorted(ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: "self", ascending: ascending)
    }

    /// The distinct values, each where it first occurs (a managed collection
    /// of values); the same as `distinct(by: ["self"])`.
    public func distinct() -> Results<Element> {
        distinct(by: ["self"])
    }
}

extension RealmCollection where Element: PersistableEnum {
    /// The enum values sorted by their raw (persisted) values.
    public func sorted(ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: "self", ascending: ascending)
    }

    /// The distinct enum values, each where it first occurs.
    public func distinct() -> Results<Element> {
        distinct(by: ["self"])
    }
}

extension RealmCollection where Element: _CustomPersistable, Element.PersistedType: SortableType {
    /// The values sorted by their persisted values.
    public func sorted(ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: "self", ascending: ascending)
    }

    /// The distinct values (by persisted value), each where it first occurs.
    public func distinct() -> Results<Element> {
        distinct(by: ["self"])
    }
}
