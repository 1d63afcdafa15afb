import Dispatch
import CStorage

// Results: a live view of objects, evaluated on access against the Realm's
// current snapshot. Two sources: every object of a class, which maps straight
// onto the engine (count is the tree's O(1) count, subscript is O(log n)
// rank access, iteration walks a cursor), and a query (filter, sort,
// distinct, limit: Query/QueryPlan.swift), evaluated once per snapshot.

/// What a Results evaluates.
enum ResultsSource {
    /// Every object of the class, in object-key (insertion) order.
    case all(ClassInfo)
    /// A filtered / sorted / distinct view (Query/QueryPlan.swift).
    case query(QueryPlan)
    /// The values of a List, MutableSet or Map of values, filtered, sorted
    /// or distinct (Collections/ValueResults.swift).
    case values(ValuePlan)
}

/// A Results of every object of a class (delete's fast path asks).
protocol WholeClassResults {
    var wholeClass: (core: RealmCore, info: ClassInfo)? { get }
}

/// The objects of a query, read live: ``Realm/objects(_:)`` gives every object
/// of a class, and `filter`, `where`, `sorted` and `distinct` narrow or order
/// it. A Results holds no copy of its objects: each access evaluates it against
/// the Realm's current version, so it always reflects the latest refresh, and a
/// query is evaluated at most once per version.
///
/// Confined to the Realm's thread, queue or actor like the Realm
/// (``Realm/Error/Code/incorrectThread``); ``freeze()`` it, or pass a
/// ``ThreadSafeReference``, to use it elsewhere.
public final class Results<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    let core: RealmCore
    /// What these results evaluate; a pending lookup builds its plan here.
    var source: ResultsSource {
        guard let pending else { return builtSource }
        builtSource = .query(pending.plan)
        self.pending = nil
        return builtSource
    }
    private(set) var builtSource: ResultsSource
    /// A lone indexed equality whose plan is not built yet (first and count
    /// need none: QueryCompiler+Lookup.swift). Set on live Realms only, and
    /// read and cleared on the Realm's thread (every access checks it).
    private(set) var pending: PendingLookup?
    /// Set for Results of projections: the projection class wrapping each
    /// object read (Projection/Projection.swift).
    let projection: (any ProjectionBridge.Type)?

    init(realm: RealmCore, info: ClassInfo) {
        precondition(Element.self is AnyObject.Type, "RealmLite: Results of objects only")
        core = realm
        builtSource = .all(info)
        // An object class is no projection: a superclass check, where the
        // protocol cast's first use for a class scans every conformance.
        projection = Element.self is ObjectBase.Type ? nil : Element.self as? any ProjectionBridge.Type
    }

    init(realm: RealmCore, source: ResultsSource) {
        core = realm
        builtSource = source
        projection = Element.self as? any ProjectionBridge.Type
    }

    /// Results of the same element type as `base` (a query derived from
    /// it): the projection cast is a conformance lookup, which a lookup
    /// loop would pay on every query.
    init(derivedFrom base: Results<Element>, source: ResultsSource) {
        core = base.realmInstance
        builtSource = source
        projection = base.projection
    }

    /// Results of `base`'s class narrowed by a lookup, its plan pending.
    init(derivedFrom base: Results<Element>, pending: PendingLookup) {
        core = base.realmInstance
        builtSource = .all(pending.info)
        self.pending = pending
        projection = base.projection
    }

    /// The Realm, after checking that the caller may use it (every access
    /// of a Results goes through here).
    var realmInstance: RealmCore {
        core.verifyThread()
        return core
    }

    /// The Realm these results read.
    public var realm: Realm? { Realm(core: realmInstance) }
    /// Always false: Results stay valid as long as their Realm is (a deleted
    /// object simply leaves them).
    public var isInvalidated: Bool { false }

    var wholeClass: (core: RealmCore, info: ClassInfo)? {
        if case .all(let info) = source { return (core, info) }
        return nil
    }

    private var info: ClassInfo {
        if let pending { return pending.info }
        return switch source {
        case .all(let info): info
        case .query(let plan): plan.info
        case .values(let plan): plan.source.info
        }
    }

    /// The number of objects in the current version: O(1) for every object of a
    /// class, one evaluation of the query per version otherwise.
    public var count: Int {
        if let pending { return pending.lookup.count(realmInstance, pending.info) }
        if let plan = valuePlan { return valueCount(plan) }
        if case .query(let plan) = source { return plan.count(realmInstance) }
        return realmInstance.count(of: info)
    }
    /// True if there are no objects in the current version.
    public var isEmpty: Bool { count == 0 }
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The object at `position` in the current version. An index outside
    /// `0..<count` stops with ``Realm/Error/Code/invalidValue``.
    public subscript(position: Int) -> Element {
        if let plan = valuePlan { return value(plan, at: position) }
        let info = self.info
        if case .query(let plan) = source {
            guard let object = plan.object(at: position, realmInstance) else {
                realmFatal(.invalidValue, "Index \(position) is out of bounds for Results<\(info.name)> (count \(plan.keys(realmInstance).count)).")
            }
            return wrap(object)
        }
        guard let (key, value) = realmInstance.cursor(info.objectsTree)?.seek(toIndex: position) else {
            realmFatal(.invalidValue, "Index \(position) is out of bounds for Results<\(info.name)> (count \(count)).")
        }
        return element(key, value)
    }

    /// The first object, or nil if there are none.
    public var first: Element? { edge(last: false) }
    /// The last object, or nil if there are none.
    public var last: Element? { edge(last: true) }

    private func edge(last: Bool) -> Element? {
        // Unwrapped by hand: `Optional.map` is generic over Element here and
        // copied the object through value witnesses.
        if !last, let pending {
            guard let object = pending.lookup.first(realmInstance, pending.info) else { return nil }
            return wrap(object)
        }
        if let plan = valuePlan { return valueEdge(plan, last: last) }
        if case .query(let plan) = source {
            if !last { return plan.firstObject(realmInstance).map(wrap) }
            let count = plan.keys(realmInstance).count
            guard count > 0, let object = plan.object(at: count - 1, realmInstance) else { return nil }
            return wrap(object)
        }
        guard let cursor = realmInstance.cursor(info.objectsTree),
              let (key, value) = last ? cursor.last() : cursor.first() else { return nil }
        return element(key, value)
    }

    /// The position of a managed object (of a value: the first equal one), or nil.
    public func index(of object: Element) -> Int? {
        if let plan = valuePlan { return valueIndex(plan, of: object) }
        guard let object = (object as? ObjectBase) ?? (object as? any ProjectionBridge)?._projectedObject, object._realm === realmInstance, object._info === info else { return nil }
        if case .query(let plan) = source { return plan.keys(realmInstance).firstIndex(of: object._key) }
        guard let cursor = realmInstance.cursor(info.objectsTree),
              withKey(object._key, { cursor.seekExact($0) }) != nil else { return nil }
        return cursor.index()
    }

    @inline(__always)
    func element(_ key: cs_val, _ value: cs_val) -> Element {
        wrap(realmInstance.materialize(info, key: keyValue(key), record: value))
    }

    /// The element for an object read: the object, or its projection.
    @inline(__always)
    func wrap(_ object: ObjectBase) -> Element {
        if let projection { return unsafeBitCast(projection._project(object), to: Element.self) }
        return unsafeBitCast(object, to: Element.self)
    }

    public func makeIterator() -> ResultsIterator<Element> { ResultsIterator(results: self) }

    public var description: String {
        elementsDescription("Results<\(valuePlan == nil ? info.name : "\(Element.self)")>", Array(self))
    }
}

/// Walks the class's tree with the Realm's cursor. While nothing else moves
/// that cursor and nothing is written, each step is one CS_NEXT; otherwise it
/// re-seeks after the last key seen, so writes during iteration are safe.
public struct ResultsIterator<Element: RealmCollectionValue>: IteratorProtocol {
    let results: Results<Element>
    private var cursor: EngineCursor?
    private var lastKey: UInt64 = 0
    private var started = false
    private var generation: UInt64 = 0
    private var claims: UInt64 = 0
    /// Rows of the class read ahead a leaf at a time (cs_cursor_next_batch):
    /// `batch` owns the buffers, read through the raw pointers (no
    /// reference counting per row).
    private var batch: RowBatch?
    private var batchObjectKeys: UnsafeMutablePointer<UInt64>?
    private var batchValues: UnsafeMutablePointer<cs_val>?
    private var batchCount = 0
    private var batchPosition = 0
    /// Query results: the rows when iteration started (objects deleted since are skipped).
    private var queryRows: (keys: [UInt64], records: [RecordView])?
    private var queryPosition = 0
    private var accessor = ReusableAccessor()
    // Used without reference counting on every step (guaranteed refs);
    // `results` keeps both alive.
    private let realmRef: Unmanaged<RealmCore>
    private let allInfoRef: Unmanaged<ClassInfo>?
    /// True for Results of projections: each object is wrapped.
    @usableFromInline let projects: Bool
    /// True for Results of values: the elements when iteration started.
    @usableFromInline let isValues: Bool
    private var values: [[UInt8]]?

    init(results: Results<Element>) {
        self.results = results
        projects = results.projection != nil
        isValues = results.valuePlan != nil
        realmRef = .passUnretained(results.core)
        if case .all(let info) = results.source { allInfoRef = .passUnretained(info) } else { allInfoRef = nil }
    }

    /// Inlined into the caller, so that the loop works on `Element` without
    /// generic value-witness copies; the work is in the non-generic part.
    @inlinable
    public mutating func next() -> Element? {
        if isValues { return nextValue() }
        guard let object = nextObject() else { return nil }
        if projects { return projected(object) }
        return unsafeBitCast(object, to: Element.self)
    }

    @usableFromInline
    mutating func nextValue() -> Element? {
        let realm = results.realmInstance
        if values == nil { values = results.valuePlan?.elements(realm) }
        guard let values, queryPosition < values.count else { return nil }
        queryPosition += 1
        return results.decodeValue(values[queryPosition - 1], realm)
    }

    @usableFromInline
    func projected(_ object: ObjectBase) -> Element { results.wrap(object) }

    @usableFromInline
    mutating func nextObject() -> ObjectBase? {
        if let infoRef = allInfoRef {
            return realmRef._withUnsafeGuaranteedRef { realm in
                infoRef._withUnsafeGuaranteedRef { info in
                    realm.verifyThread()
                    return nextOfAll(realm, info)
                }
            }
        }
        let realm = realmRef.takeUnretainedValue()
        realm.verifyThread()
        switch results.source {
        case .all(let info):
            return nextOfAll(realm, info)
        case .values:
            return nil
        case .query(let plan):
            if queryRows == nil {
                queryRows = plan.rows(realm)
                generation = realm.generation
            }
            while let rows = queryRows, queryPosition < rows.keys.count {
                let position = queryPosition
                queryPosition += 1
                if realm.generation == generation {
                    // Unchanged snapshot: the plan's record, no lookup.
                    let record = rows.records[position]
                    return yield(realm, plan.info, rows.keys[position], cs_val(data: record.base, size: record.size))
                }
                // Written since: look the key up (the object may be gone).
                if let value = realm.loadRecord(plan.info, rows.keys[position]) {
                    return yield(realm, plan.info, rows.keys[position], value)
                }
            }
            return nil
        }
    }

    @inline(__always)
    private mutating func nextOfAll(_ realm: RealmCore, _ info: ClassInfo) -> ObjectBase? {
        // Rows read ahead from the current leaf, valid while the snapshot is.
        if batchPosition < batchCount, realm.generation == generation, let keys = batchObjectKeys, let values = batchValues {
            let i = batchPosition
            batchPosition = i + 1
            lastKey = keys[i]
            return yield(realm, info, lastKey, values[i])
        }
        let entry: EngineCursor.Entry?
        if started, let cursor, realm.generation == generation, realm.cursorClaims == claims {
            if batch == nil {
                let storage = RowBatch()
                batch = storage
                batchObjectKeys = storage.objectKeys
                batchValues = storage.values
            }
            let objectKeys = batchObjectKeys.unsafelyUnwrapped, values = batchValues.unsafelyUnwrapped
            let count = cursor.nextIDs(objectKeys, values: values, capacity: RowBatch.capacity)
            guard count > 0 else { return nil }
            batchCount = count
            batchPosition = 1
            lastKey = objectKeys[0]
            return yield(realm, info, lastKey, values[0])
        } else {
            batchCount = 0
            guard let fresh = realm.cursor(info.objectsTree) else { return nil }
            cursor = fresh
            if !started {
                entry = fresh.first()
            } else {
                if lastKey == .max { return nil }
                entry = withKey(lastKey + 1) { fresh.seek($0) }
            }
            generation = realm.generation
            claims = realm.cursorClaims
        }
        started = true
        guard let (key, value) = entry else { return nil }
        lastKey = keyValue(key)
        return yield(realm, info, lastKey, value)
    }

    @inline(__always)
    private mutating func yield(_ realm: RealmCore, _ info: ClassInfo, _ key: UInt64, _ value: cs_val) -> ObjectBase {
        accessor.object(realm, info, key: key, record: value)
    }
}

extension Results: WholeClassResults {}

/// Keys and records read ahead by a ResultsIterator (pointers into the
/// snapshot it read them from).
final class RowBatch {
    static let capacity = 64
    let objectKeys = UnsafeMutablePointer<UInt64>.allocate(capacity: RowBatch.capacity)
    let values = UnsafeMutablePointer<cs_val>.allocate(capacity: RowBatch.capacity)

    deinit {
        objectKeys.deallocate()
        values.deallocate()
    }
}

extension ResultsSource {
    func moved(to core: RealmCore) -> ResultsSource? {
        switch self {
        case .all: return self
        case .query(let plan): return plan.moved(to: core).map { .query($0) }
        case .values(let plan): return plan.moved(to: core).map { .values($0) }
        }
    }
}

extension Results {
    /// True if these results read a frozen Realm: immutable, and readable from
    /// any thread.
    public var isFrozen: Bool { core.isFrozen }

    /// These results as of the current version: the query is evaluated
    /// there, once, and the frozen Results can be read from any thread.
    public func freeze() -> Results {
        if core.isFrozen { return self }
        let frozen = orStop { try realmInstance.freeze() }
        guard let moved = source.moved(to: frozen) else { realmFatal(.invalidValue, "Cannot freeze Results whose collection was deleted.") }
        return Results(realm: frozen, source: moved)
    }

    /// The live Results in the calling thread's Realm (the query re-runs
    /// there); nil if the collection they came from was deleted.
    public func thaw() -> Results? {
        guard core.isFrozen else { return self }
        let live = orStop { try RealmCore.live(for: core.configuration, atLeast: core.version) }
        return source.moved(to: live).map { Results(realm: live, source: $0) }
    }
}
