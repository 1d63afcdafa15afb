import Foundation

// Sectioned results (RealmSwift 10.29): a sorted Results split into
// sections by a key computed from each element (a key path, or a block).
// A section holds the elements with one key, in the Results' order;
// sections come in the order of their first element, so with the section
// key as the primary sort, each section is one run of the sorted Results.
// The layout is computed on first access after each change of the Realm's
// version (one pass calling the key for each element) and cached.

/// The protocol of SectionedResults and ResultsSection (RealmSwift's).
public protocol RealmSectionedResult: RandomAccessCollection, Equatable, ThreadConfined {}

/// Sections of one version: each key and the flat Results indexes of its elements.
struct SectionLayout<Key: Hashable> {
    var keys: [Key] = []
    var rows: [[Int]] = []
    var sectionOf: [Key: Int] = [:]

    init() {}

    init<C: Collection>(_ elements: C, key: (C.Element) -> Key) {
        for (index, element) in elements.enumerated() {
            let k = key(element)
            if let section = sectionOf[k] {
                rows[section].append(index)
            } else {
                sectionOf[k] = keys.count
                keys.append(k)
                rows.append([index])
            }
        }
    }

    /// (section, row) of each flat index.
    func paths(count: Int) -> [IndexPath] {
        var paths = [IndexPath](repeating: IndexPath(indexes: [0, 0]), count: count)
        for (section, indexes) in rows.enumerated() {
            for (row, index) in indexes.enumerated() { paths[index] = IndexPath(indexes: [section, row]) }
        }
        return paths
    }
}

/// The layout of a SectionedResults, recomputed when its Realm's version moves.
final class SectionCache<Key: Hashable, Element: RealmCollectionValue> {
    let results: Results<Element>
    let key: (Element) -> Key
    private var layout = SectionLayout<Key>()
    private var generation: UInt64 = 0
    private let lock = NSLock() // frozen sectioned results are read from any thread

    init(results: Results<Element>, key: @escaping (Element) -> Key) {
        self.results = results
        self.key = key
    }

    var current: SectionLayout<Key> {
        let core = results.realmInstance
        core.verifyThread()
        lock.lock()
        defer { lock.unlock() }
        if generation == 0 || generation != core.generation || core.isFrozen && generation == 0 {
            layout = SectionLayout(results, key: key)
            generation = core.generation
        }
        return layout
    }
}

/// A sorted Results split into sections by a key (RealmSwift's
/// SectionedResults): `results.sectioned(by: \.firstLetter)`. Live like its
/// Results: it follows the Realm's version, and `observe` reports changes by
/// section and row.
public struct SectionedResults<Key: _Persistable & Hashable, SectionElement: RealmCollectionValue>: RealmSectionedResult {
    /// Each section.
    public typealias Element = ResultsSection<Key, SectionElement>
    let cache: SectionCache<Key, SectionElement>

    init(results: Results<SectionElement>, key: @escaping (SectionElement) -> Key) {
        cache = SectionCache(results: results, key: key)
    }

    init(cache: SectionCache<Key, SectionElement>) { self.cache = cache }

    /// The sorted Results the sections split.
    var results: Results<SectionElement> { cache.results }

    /// The section keys, in section order.
    public var allKeys: [Key] { cache.current.keys }
    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of sections.
    public var endIndex: Int { cache.current.keys.count }

    /// The section at `index`.
    public subscript(_ index: Int) -> ResultsSection<Key, SectionElement> {
        let keys = cache.current.keys
        precondition(keys.indices.contains(index), "Section index \(index) out of bounds (\(keys.count) sections)")
        return ResultsSection(cache: cache, key: keys[index])
    }

    /// The element at `indexPath`: [section, row] (UIKit's `section`, `item`).
    public subscript(_ indexPath: IndexPath) -> SectionElement { self[indexPath[0]][indexPath[1]] }

    /// The Realm managing the results.
    public var realm: Realm? { results.realm }
    /// True once the results can no longer be read.
    public var isInvalidated: Bool { results.isInvalidated }
    /// True if read through a frozen Realm.
    public var isFrozen: Bool { results.isFrozen }
    /// The sections as of the current version, readable from any thread.
    public func freeze() -> Self { SectionedResults(results: results.freeze(), key: cache.key) }
    /// The live sections in the calling context (nil if the results are gone).
    public func thaw() -> Self? { results.thaw().map { SectionedResults(results: $0, key: cache.key) } }
    /// The same sections read through `core` (ThreadSafeReference).
    public func _rlmMoved(to core: RealmCore) -> Self? {
        results._rlmMoved(to: core).map { SectionedResults(results: $0, key: cache.key) }
    }

    /// Equal when they section the same Results the same way (the same cache).
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.cache === rhs.cache }
}

/// One section of a SectionedResults: its key and its elements, in order.
public struct ResultsSection<Key: _Persistable & Hashable, T: RealmCollectionValue>: RealmSectionedResult, Identifiable {
    /// The section's elements.
    public typealias Element = T
    let cache: SectionCache<Key, T>
    /// The key every element of this section has.
    public let key: Key
    /// The key (Identifiable, for SwiftUI lists).
    public var id: Key { key }

    private var rows: [Int] { cache.current.sectionOf[key].map { cache.current.rows[$0] } ?? [] }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of elements in the section (0 once it has none left).
    public var endIndex: Int { rows.count }

    /// The element at `index` in the section.
    public subscript(_ index: Int) -> T {
        let rows = self.rows
        precondition(rows.indices.contains(index), "Index \(index) out of bounds (section of \(rows.count))")
        return cache.results[rows[index]]
    }

    /// The Realm managing the results.
    public var realm: Realm? { cache.results.realm }
    /// True once the results can no longer be read.
    public var isInvalidated: Bool { cache.results.isInvalidated }
    /// True if read through a frozen Realm.
    public var isFrozen: Bool { cache.results.isFrozen }
    /// The section as of the current version, readable from any thread.
    public func freeze() -> Self { ResultsSection(cache: SectionedResults(results: cache.results, key: cache.key).freeze().cache, key: key) }
    /// The live section in the calling context (nil if the results are gone).
    public func thaw() -> Self? { _rlmThawed(cache.results.thaw()) }
    /// The same section read through `core` (ThreadSafeReference).
    public func _rlmMoved(to core: RealmCore) -> Self? { _rlmThawed(cache.results._rlmMoved(to: core)) }

    private func _rlmThawed(_ results: Results<T>?) -> Self? {
        results.map { ResultsSection(cache: SectionCache(results: $0, key: cache.key), key: key) }
    }

    /// Equal when they are the same section of the same sectioned results.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.cache === rhs.cache && lhs.key == rhs.key }
}

/// Sectioning by a key path sorts by it first (RealmSwift raises otherwise):
/// stops with ``Realm/Error/Code/invalidValue`` unless the first descriptor
/// sorts by `sectionKeyPath`.
func checkSectionSort(sectionKeyPath: String, _ sortDescriptors: [SortDescriptor]) {
    guard let first = sortDescriptors.first else {
        realmFatal(.invalidValue, "Cannot section Results with no sort descriptor: the first one must sort by the section key.")
    }
    if first.keyPath != sectionKeyPath {
        realmFatal(.invalidValue, "The section key path '\(sectionKeyPath)' must match the primary sort descriptor ('\(first.keyPath)').")
    }
}

// On every collection of objects, as in RealmSwift: a List, MutableSet,
// LinkingObjects or AnyRealmCollection is sorted into a Results first.
extension RealmCollection where Element: ObjectBase {
    /// Sorts by `keyPath` and sections by its value.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>, ascending: Bool = true)
        -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: [SortDescriptor(keyPath: _name(for: keyPath), ascending: ascending)]) { $0[keyPath: keyPath] }
    }

    /// Sorts by `sortDescriptors` and sections by `keyPath`, which must be
    /// the first sort (else a stop with ``Realm/Error/Code/invalidValue``, as
    /// RealmSwift raises).
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortDescriptor])
        -> SectionedResults<Key, Element> {
        checkSectionSort(sectionKeyPath: _name(for: keyPath), sortDescriptors)
        return sectioned(sortDescriptors: sortDescriptors) { $0[keyPath: keyPath] }
    }

    /// Sorts by `sortDescriptors` and sections by the key `block` computes
    /// for each element (the first sort should order by that key, so that a
    /// section is one run of the sorted results).
    public func sectioned<Key: _Persistable & Hashable>(by block: @escaping (Element) -> Key, sortDescriptors: [SortDescriptor])
        -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: sortDescriptors, block)
    }

}

// On every collection, of objects or of values (RealmSwift's "sectioned
// results on primitives": a List<String> sorted by the values themselves).
extension RealmCollection {
    /// RealmSwift's general form: sorts, then sections by `keyBlock`. For a
    /// collection of values the only sort key path is `"self"`.
    public func sectioned<Key: _Persistable & Hashable>(sortDescriptors: [SortDescriptor], _ keyBlock: @escaping (Element) -> Key)
        -> SectionedResults<Key, Element> {
        SectionedResults(results: sorted(by: sortDescriptors), key: keyBlock)
    }

    /// Sorts a collection of values by the values themselves and sections
    /// them by the key `block` computes for each
    /// (`names.sectioned(by: { String($0.prefix(1)) })`). On a collection of
    /// objects, which cannot sort by themselves, sort by a property with
    /// `sectioned(by:sortDescriptors:)` instead (this stops with
    /// ``Realm/Error/Code/invalidValue``).
    public func sectioned<Key: _Persistable & Hashable>(by block: @escaping (Element) -> Key, ascending: Bool = true)
        -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: [SortDescriptor(keyPath: "self", ascending: ascending)], block)
    }
}
