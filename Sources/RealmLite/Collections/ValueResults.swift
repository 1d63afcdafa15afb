import Foundation

// Results of values: `list.filter("self > 3")`, `set.sorted(ascending:)`,
// `map.distinct()`... over a managed List, MutableSet or Map of values. The
// plan reads the collection's stored element bytes at evaluation time (so the
// Results stay live), then applies its steps in order: filters compiled with
// `self` as the element (QueryCompiler+Self.swift), sorts and distincts by
// the comparator object queries sort with (SortValue), limits. The matching
// element bytes are cached per Realm generation, as QueryPlan caches keys;
// elements are decoded on access.

/// Where a Results of values reads its elements, and how to find the same
/// collection through another core (freeze, thaw, notifier).
struct ValueSource {
    /// The stored bytes of each element, in the collection's order.
    let read: (RealmCore) -> [[UInt8]]
    /// The same collection read through `core`; nil if its owner is gone there.
    let moved: (RealmCore) -> ValueSource?
    let element: ValueElementType
    /// The owner's class: the compiler's root (only `self` resolves).
    let info: ClassInfo
}

enum ValueStep {
    case filter(RowFilter)
    case sort(ascending: Bool)
    case distinct
    case limit(Int)
}

final class ValuePlan: @unchecked Sendable {
    // @unchecked: immutable but for the cache, which the mutex guards (a
    // frozen Results is read from several threads).
    let source: ValueSource
    let steps: [ValueStep]
    private let cache = Protected<(generation: UInt64, elements: [[UInt8]])?>(nil)

    init(source: ValueSource, steps: [ValueStep]) {
        self.source = source
        self.steps = steps
    }

    func adding(_ step: ValueStep) -> ValuePlan { ValuePlan(source: source, steps: steps + [step]) }

    func moved(to core: RealmCore) -> ValuePlan? {
        source.moved(core).map { ValuePlan(source: $0, steps: steps) }
    }

    /// The elements' bytes in the realm's current snapshot, evaluated once per generation.
    func elements(_ realm: RealmCore) -> [[UInt8]] {
        let generation = realm.generation
        if generation != 0, let cached = cache.withLock({ $0 }), cached.generation == generation { return cached.elements }
        let elements = evaluate(realm)
        cache.withLock { $0 = (generation, elements) }
        return elements
    }

    private func evaluate(_ realm: RealmCore) -> [[UInt8]] {
        var elements = source.read(realm)
        for step in steps {
            switch step {
            case .filter(let filter):
                elements = elements.filter { bytes in withElement(bytes) { filter(realm, $0, 0) } }
            case .sort(let ascending):
                let values = elements.map(sortValue)
                let order = elements.indices.sorted { a, b in
                    let c = values[a].compare(values[b])
                    if c != 0 { return ascending ? c < 0 : c > 0 }
                    return a < b
                }
                elements = order.map { elements[$0] }
            case .distinct:
                var seen = Set<SortValue>()
                elements = elements.filter { seen.insert(sortValue($0)).inserted }
            case .limit(let n):
                elements = Array(elements.prefix(n))
            }
        }
        return elements
    }

    /// An element as sorted and compared for distinct, as object queries do.
    private func sortValue(_ bytes: [UInt8]) -> SortValue {
        let element = source.element
        return bytes.withUnsafeBytes { SortValue(elementOperand($0, tagged: element.tagged), element.type) }
    }
}

/// `body` with an element's bytes as the record a compiled filter reads.
func withElement<R>(_ bytes: [UInt8], _ body: (RecordView) -> R) -> R {
    bytes.withUnsafeBytes { raw in
        // An empty element (an empty string) still needs a valid pointer.
        withUnsafeBytes(of: UInt8(0)) { empty in
            body(RecordView(base: raw.baseAddress ?? empty.baseAddress!, size: raw.count))
        }
    }
}

extension ValueSource {
    /// The elements of a managed List or MutableSet of values (`mapValues`:
    /// the values of a Map's entries).
    static func field(_ field: CollectionField, mapValues: Bool) -> ValueSource {
        let info = field.owner._info.unsafelyUnwrapped
        let column = info.columns[field.column]
        let element = field.isNested ? ValueElementType(type: .any, tagged: false)
                                     : ValueElementType(type: column.type, tagged: column.isOptional)
        return ValueSource(read: { _ in
            if field.owner.isInvalidated { return [] }
            let view = field.view
            return (0..<view.count).map { i in
                let stored = view.element(i)
                return Array(mapValues ? MapEntry.split(stored).value : stored)
            }
        }, moved: { core in
            core.counterpart(of: field.owner).map { .field(field.moved(to: $0), mapValues: mapValues) }
        }, element: element, info: info)
    }
}

/// A Results over the values of a managed collection field.
func valueResults<Element: RealmCollectionValue>(_ field: CollectionField, mapValues: Bool) -> Results<Element> {
    let plan = ValuePlan(source: .field(field, mapValues: mapValues), steps: [])
    return Results(realm: field.realm, source: .values(plan))
}

// MARK: - Reading a Results of values

extension Results {
    /// The plan of a Results of values; nil for objects.
    var valuePlan: ValuePlan? {
        if case .values(let plan) = source { return plan }
        return nil
    }

    func valueCount(_ plan: ValuePlan) -> Int { plan.elements(realmInstance).count }

    func value(_ plan: ValuePlan, at position: Int) -> Element {
        let realm = realmInstance
        let elements = plan.elements(realm)
        guard elements.indices.contains(position) else {
            realmFatal(.invalidValue, "Index \(position) is out of bounds for Results<\(Element.self)> (count \(elements.count)).")
        }
        return decodeValue(elements[position], realm)
    }

    func decodeValue(_ bytes: [UInt8], _ realm: RealmCore) -> Element {
        bytes.withUnsafeBytes { Element._rlmDecodeElement($0, realm) }
    }

    func valueEdge(_ plan: ValuePlan, last: Bool) -> Element? {
        let realm = realmInstance
        let elements = plan.elements(realm)
        return (last ? elements.last : elements.first).map { decodeValue($0, realm) }
    }

    func valueIndex(_ plan: ValuePlan, of value: Element) -> Int? {
        let realm = realmInstance
        return plan.elements(realm).firstIndex { decodeValue($0, realm) == value }
    }
}
