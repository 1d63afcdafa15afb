import CStorage
import Foundation

// QueryCompiler: type-checks a QueryPredicate against a class and turns it
// into a row filter over record bytes (QueryPath.swift walks the key paths).
// It also finds equality / IN conditions on indexed properties and primary
// keys that can produce candidate rows from the index trees.

typealias RowFilter = (RealmCore, RecordView, UInt64) -> Bool

/// Candidate rows from an index: the rows whose value of `column` is one of
/// `keys` (encoded with KeyEncoding.indexKey). The full filter re-checks them.
struct IndexProbe {
    let column: Column
    let tree: cs_tree
    let isPrimaryKey: Bool
    let keys: [[UInt8]]
    /// Instead of keys: a range of 9-byte encodings (ints, dates) for < <= > >= BETWEEN.
    var range: IndexRange?
    /// `keys` are prefixes (BEGINSWITH on strings): every entry starting with one.
    var prefixScan = false
    /// `tree` is a keyed class's objects tree: its keys are object keys (an
    /// int's index encoding without its leading 0x01).
    var objectKeys = false
    /// Instead of keys: a full-text query that `tree`, a full-text index, answers.
    var fullTextQuery: String?
    /// The candidates are exactly the matches (the whole predicate is this
    /// probe's condition): no filter re-checks them.
    var exact = false
}

/// Encoded bounds; `low` defaults to the first non-nil value.
struct IndexRange {
    var low: [UInt8] = [1]
    var lowInclusive = true
    var high: [UInt8]?
    var highInclusive = true
}

struct CompiledQuery {
    private let compiledFilter: RowFilter?
    private let compiledProbe: IndexProbe?
    /// The same predicate evaluated on record bytes without closures, when
    /// it is simple enough (RecordTest.swift); scans prefer it.
    let test: RecordTest?
    /// Set for `property == constant` on an index (QueryCompiler+Lookup.swift),
    /// which needs no closure or probe until a general evaluation asks.
    let lookup: IndexedLookup?

    init(filter: @escaping RowFilter, probe: IndexProbe?, test: RecordTest?) {
        compiledFilter = filter
        compiledProbe = probe
        self.test = test
        lookup = nil
    }

    init(lookup: IndexedLookup) {
        compiledFilter = nil
        compiledProbe = nil
        test = nil
        self.lookup = lookup
    }

    var filter: RowFilter { compiledFilter ?? lookup!.filter }
    /// Set when the whole predicate implies `column IN keys` on an index.
    var probe: IndexProbe? { lookup?.probe ?? compiledProbe }
}

struct QueryCompiler {
    let info: ClassInfo
    let format: String
    /// False to ignore indexes (tests compare both ways).
    var useIndexes = true
    /// The element of a collection of values, as `self` (QueryCompiler+Self.swift).
    var selfPath: ResolvedPath? = nil

    var resolver: PathResolver { PathResolver(root: info, format: format, selfPath: selfPath) }

    func compile(_ predicate: QueryPredicate) throws -> CompiledQuery {
        if let lookup = indexedEquality(predicate) { return lookup }
        if case .comparison(let original) = predicate, original.op != .text {
            // A lone comparison (a lookup) is normalized once for the filter and the probe.
            let c = try normalized(original)
            let filter = try comparisonFilter(c)
            let probe = useIndexes ? comparisonProbe(c) : nil
            return CompiledQuery(filter: filter, probe: probe, test: probe == nil ? recordTest(predicate) : nil)
        }
        let filter = try filter(predicate)
        // Scans use the RecordTest; a query an index answers never scans.
        var probe = useIndexes ? probe(predicate) : nil
        if case .comparison = predicate, probe?.fullTextQuery != nil { probe?.exact = true }
        return CompiledQuery(filter: filter, probe: probe, test: probe == nil ? recordTest(predicate) : nil)
    }

    private func filter(_ predicate: QueryPredicate) throws -> RowFilter {
        switch predicate {
        case .constant(let value):
            return { _, _, _ in value }
        case .and(let a, let b):
            let fa = try filter(a), fb = try filter(b)
            return { realm, record, key in fa(realm, record, key) && fb(realm, record, key) }
        case .or(let a, let b):
            let fa = try filter(a), fb = try filter(b)
            return { realm, record, key in fa(realm, record, key) || fb(realm, record, key) }
        case .not(let a):
            let fa = try filter(a)
            return { realm, record, key in !fa(realm, record, key) }
        case .comparison(let comparison):
            return try compileComparison(comparison)
        case .geoWithin(let geo):
            return try geoWithinFilter(geo)
        }
    }

    // MARK: - Comparisons

    /// Puts the key path on the left: `3 < age` -> `age > 3`, `'x' IN tags` -> `ANY tags == 'x'`.
    func normalized(_ c: QueryComparison) throws -> QueryComparison {
        var c = c
        if c.left.isPath {
            return c
        }
        guard c.right.isPath else {
            throw resolver.fail("A comparison needs a property name on one side", c.position)
        }
        if c.op == .in {
            guard case .value = c.left else { throw resolver.fail("IN needs a value on its left", c.position) }
            swap(&c.left, &c.right)
            c.op = .equal
            if c.quantifier == .implicit { c.quantifier = .any }
            return c
        }
        guard let flipped = c.op.flipped else {
            throw resolver.fail("'\(c.op.rawValue)' needs the property on its left", c.position)
        }
        swap(&c.left, &c.right)
        c.op = flipped
        return c
    }

    private func compileComparison(_ original: QueryComparison) throws -> RowFilter {
        if original.op == .text { return try fullTextFilter(original) }
        return try comparisonFilter(try normalized(original))
    }

    /// The filter of a normalized comparison other than TEXT.
    private func comparisonFilter(_ c: QueryComparison) throws -> RowFilter {
        let path = try resolvePath(c.left)
        if c.quantifier != .implicit && !path.isMulti {
            throw resolver.fail("ANY/ALL/NONE need a to-many key path, but '\(path.text)' has one value per object", c.position)
        }
        if c.right.isPath {
            return try comparePaths(c, path, try resolvePath(c.right))
        }
        if let objectFilter = try objectLiteralFilter(c, path) { return objectFilter }
        if c.listUnquantified && c.quantifier == .implicit && path.isMulti { return try elementWiseComparison(c, path) }
        if c.listQuantifier != .implicit { return try listComparison(c, path) }
        let test = try valueTest(c, path)
        if let column = path.directColumn, !path.isMulti, !path.isAggregate, info.slots[column.index].width != ColumnSlot.objectKey {
            // One property of the row itself: read the field directly.
            let slot = info.slots[column.index], layout = info.layout
            return { _, record, _ in test(record.isNull(slot) ? .null : .raw(record.field(slot, layout))) }
        }
        let check = quantified(c.quantifier, path)
        return { realm, record, key in check(realm, record, key, test) }
    }

    /// Applies a test to the values of a path for one row: the first value
    /// of a single-valued path, or any / all / none of a to-many path's.
    func quantified(_ quantifier: QueryQuantifier, _ path: ResolvedPath) -> (RealmCore, RecordView, UInt64, (QueryOperand) -> Bool) -> Bool {
        let source = path.source
        if !path.isMulti {
            return { realm, record, key, test in
                var result = false
                _ = source(realm, record, key) { result = test($0); return false }
                return result
            }
        }
        switch quantifier {
        case .all: return { realm, record, key, test in source(realm, record, key) { test($0) } }
        case .none: return { realm, record, key, test in source(realm, record, key) { !test($0) } }
        case .any, .implicit: return { realm, record, key, test in !source(realm, record, key) { !test($0) } }
        }
    }

    func resolvePath(_ expression: QueryExpression) throws -> ResolvedPath {
        switch expression {
        case .keyPath(let components, let position):
            return try resolver.resolveCached(components, position: position)
        case .subquery(let subquery, let position):
            return try subqueryPath(subquery, position)
        case .arithmetic(let op, let left, let right, let position):
            return try arithmeticPath(op, left, right, position)
        case .value(_, let position), .list(_, let position):
            throw resolver.fail("Expected a property name", position)
        }
    }

    /// SUBQUERY(collection, $x, predicate).@count: counts the linked objects
    /// matching the inner predicate (compiled against their class).
    private func subqueryPath(_ original: QuerySubquery, _ position: Int) throws -> ResolvedPath {
        let subquery = original.variable.isEmpty ? try inferredSubquery(original, position) : original
        let collection = try resolver.resolve(subquery.collection, position: position)
        guard collection.endsInCollection, collection.type == .object, let target = collection.targetClass else {
            throw resolver.fail("SUBQUERY needs a collection of objects, but '\(collection.text)' is not one", position)
        }
        let inner = try QueryCompiler(info: target, format: format, useIndexes: false)
            .filter(try stripVariable(subquery.predicate, subquery.variable))
        let elements = collection.source
        return ResolvedPath(source: { realm, record, key, visit in
            var n: Int64 = 0
            _ = elements(realm, record, key) { operand in
                guard let linked = operand.linkedKey, let record = realm.linkedRecord(target, linked) else { return true }
                if inner(realm, record, linked) { n += 1 }
                return true
            }
            return visit(.int(n))
        }, type: .int, isAggregate: true,
           text: "SUBQUERY(\(collection.text), \(subquery.variable), ...).@count")
    }

    /// The inner predicate with `$x.` removed from its key paths.
    func stripVariable(_ predicate: QueryPredicate, _ variable: String) throws -> QueryPredicate {
        func strip(_ e: QueryExpression) throws -> QueryExpression {
            switch e {
            // As in Realm, key paths inside resolve against the element,
            // with or without the variable: the outer object is out of reach.
            case .keyPath(let components, let position):
                guard components.first == variable else { return e }
                if components.count == 1 { throw resolver.fail("Comparing the SUBQUERY variable \(variable) itself is not supported; use one of its properties", position) }
                return .keyPath(Array(components.dropFirst()), position: position)
            case .subquery(let inner, let position):
                guard inner.collection.first == variable else { return e }
                return .subquery(QuerySubquery(collection: Array(inner.collection.dropFirst()), variable: inner.variable,
                                               predicate: inner.predicate), position: position)
            case .arithmetic(let op, let left, let right, let position):
                return .arithmetic(op, try strip(left), try strip(right), position: position)
            default:
                return e
            }
        }
        switch predicate {
        case .constant: return predicate
        case .and(let a, let b): return .and(try stripVariable(a, variable), try stripVariable(b, variable))
        case .or(let a, let b): return .or(try stripVariable(a, variable), try stripVariable(b, variable))
        case .not(let a): return .not(try stripVariable(a, variable))
        case .comparison(var c):
            c.left = try strip(c.left)
            c.right = try strip(c.right)
            return .comparison(c)
        case .geoWithin(var g):
            g.left = try strip(g.left)
            return .geoWithin(g)
        }
    }

    /// `left op right` between two properties of the same row: the right
    /// key path must have one value per object; the left may be to-many.
    private func comparePaths(_ c: QueryComparison, _ left: ResolvedPath, _ right: ResolvedPath) throws -> RowFilter {
        let op = c.op
        if op.isStringOperator || c.caseInsensitive || c.diacriticInsensitive {
            if right.isMulti {
                throw resolver.fail("The right side '\(right.text)' of a comparison between properties must have one value per object", c.right.position)
            }
            return try compareStringPaths(c, left, right)
        }
        guard [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual].contains(op) else {
            throw resolver.fail("Only ==, !=, <, <=, > and >= can compare two properties ('\(left.text)' \(op.rawValue) '\(right.text)')", c.position)
        }
        if right.isMulti {
            throw resolver.fail("The right side '\(right.text)' of a comparison between properties must have one value per object", c.right.position)
        }
        if left.type == .any || right.type == .any {
            throw resolver.fail("Comparing two properties is not supported for AnyRealmValue ('\(left.text)', '\(right.text)')", c.position)
        }
        let numeric: Set<PropertyType> = [.int, .float, .double]
        let sameLinks = left.type == .object && right.type == .object && left.targetClass === right.targetClass
        guard (left.type == right.type && left.type != .object) || sameLinks
                || (numeric.contains(left.type) && numeric.contains(right.type)) else {
            throw resolver.fail("Cannot compare '\(left.text)' (\(typeName(left))) with '\(right.text)' (\(typeName(right)))", c.position)
        }
        if op.isOrdering && (left.type == .bool || left.type == .object) {
            throw resolver.fail("'\(op.rawValue)' is not supported on \(typeName(left)) ('\(left.text)')", c.position)
        }
        let leftType = left.type, rightType = right.type
        let test: (QueryOperand, SortValue) -> Bool = { operand, r in
            let l = SortValue(operand, leftType)
            if case .null = l { return op == .equal ? r == .null : op == .notEqual ? r != .null : false }
            if case .null = r { return op == .notEqual }
            if op.isOrdering, l == .nan || r == .nan { return false }
            return self.ordered(op, l.compare(r))
        }
        let rightSource = right.source
        let check = quantified(c.quantifier, left)
        return { realm, record, key in
            var r = SortValue.null
            _ = rightSource(realm, record, key) { r = SortValue($0, rightType); return false }
            return check(realm, record, key) { test($0, r) }
        }
    }

    /// The test applied to each value of the path.
    private func valueTest(_ c: QueryComparison, _ path: ResolvedPath) throws -> (QueryOperand) -> Bool {
        switch c.op {
        case .in:
            let items = try listOperand(c)
            let tests = try items.map { try operandTest(.equal, $0, c, path) }
            if path.type == .int, items.count > 2, !path.isAggregate {
                // Many integers: one hash lookup instead of a test per item.
                var set = Set<Int64>()
                var hasNull = false
                for item in items {
                    switch item {
                    case .int(let v): set.insert(v)
                    case .double(let d): if let v = Int64(exactly: d) { set.insert(v) }
                    case .null: hasNull = true
                    default: break
                    }
                }
                return { operand in
                    guard let v = operandInt(operand) else { return hasNull }
                    return set.contains(v)
                }
            }
            return { operand in tests.contains { $0(operand) } }
        case .between:
            let items = try listOperand(c)
            guard items.count == 2 else {
                throw resolver.fail("BETWEEN needs exactly two values {low, high}, got \(items.count)", c.right.position)
            }
            let low = try operandTest(.greaterOrEqual, items[0], c, path)
            let high = try operandTest(.lessOrEqual, items[1], c, path)
            return { low($0) && high($0) }
        default:
            switch c.right {
            case .value(let value, _):
                return try operandTest(c.op, value, c, path)
            case .list(_, let position):
                throw resolver.fail("'\(c.op.rawValue)' compares with one value, not a list (use IN for a list)", position)
            case .keyPath, .subquery, .arithmetic:
                throw resolver.fail("Comparing two properties is not supported", c.position)
            }
        }
    }

    private func listOperand(_ c: QueryComparison) throws -> [QueryValue] {
        switch c.right {
        case .list(let items, _): return items
        case .value(let value, _): return [value]
        case .keyPath(_, let position), .subquery(_, let position), .arithmetic(_, _, _, let position):
            throw resolver.fail("'\(c.op.rawValue)' needs a list of values {a, b, ...}", position)
        }
    }

    func mismatch(_ value: QueryValue, _ c: QueryComparison, _ path: ResolvedPath) -> Realm.Error {
        resolver.fail("Cannot compare '\(path.text)' (\(typeName(path))) with \(value) (\(value.kindName))", c.right.position)
    }

    private func typeName(_ path: ResolvedPath) -> String {
        if path.type == .object, let target = path.targetClass { return "link to \(target.name)" }
        return "\(path.type)"
    }

    /// A test of one operand against one constant.
    func operandTest(_ op: QueryOperator, _ value: QueryValue, _ c: QueryComparison,
                             _ path: ResolvedPath) throws -> (QueryOperand) -> Bool {
        if path.type == .any { return try mixedTest(op, value, c, path) }
        if (c.caseInsensitive || c.diacriticInsensitive) && path.type != .string {
            throw resolver.fail("Options [c] and [d] apply to strings only, but '\(path.text)' is \(typeName(path))", c.position)
        }
        if case .null = value {
            switch op {
            case .equal: return { if case .null = $0 { true } else { false } }
            case .notEqual: return { if case .null = $0 { false } else { true } }
            default: throw resolver.fail("nil can only be compared with == or !=, not '\(op.rawValue)'", c.right.position)
            }
        }
        if op.isStringOperator && path.type != .string && path.type != .data {
            throw resolver.fail("'\(op.rawValue)' applies to string and data properties, but '\(path.text)' is \(typeName(path))", c.position)
        }
        let test = try nonNullTest(op, value, c, path)
        let nilResult = op == .notEqual
        return { operand in
            if case .null = operand { return nilResult }
            return test(operand)
        }
    }

    func ordered(_ op: QueryOperator, _ order: Int) -> Bool {
        switch op {
        case .equal: order == 0
        case .notEqual: order != 0
        case .less: order < 0
        case .lessOrEqual: order <= 0
        case .greater: order > 0
        case .greaterOrEqual: order >= 0
        default: false
        }
    }

    private func nonNullTest(_ op: QueryOperator, _ value: QueryValue, _ c: QueryComparison,
                             _ path: ResolvedPath) throws -> (QueryOperand) -> Bool {
        let type = path.type
        switch type {
        case .int, .float, .double, .date:
            var constant: Double
            var exactInt: Int64?
            switch (type, value) {
            case (.date, .date(let d)): constant = d.timeIntervalSinceReferenceDate
            case (.int, .int(let v)), (.float, .int(let v)), (.double, .int(let v)):
                constant = Double(v)
                if type == .int { exactInt = v }
            case (.int, .double(let v)), (.float, .double(let v)), (.double, .double(let v)): constant = v
            case (.int, .decimal(let v)), (.float, .decimal(let v)), (.double, .decimal(let v)): constant = v.doubleValue
            default: throw mismatch(value, c, path)
            }
            // A Float property compares with the constant rounded to Float (float == 0.1 finds 0.1).
            if type == .float && !path.isAggregate { constant = Double(Float(constant)) }
            if let exactInt {
                return { operand in
                    guard let v = operandInt(operand) else {
                        guard let d = operandDouble(operand, type) else { return false }
                        return self.compareDoubles(op, d, constant)
                    }
                    return self.ordered(op, v < exactInt ? -1 : (v == exactInt ? 0 : 1))
                }
            }
            return { operand in
                guard let v = operandDouble(operand, type) else { return false }
                return self.compareDoubles(op, v, constant)
            }
        case .decimal128:
            let constant: Decimal128
            switch value {
            case .decimal(let v): constant = v
            case .int(let v): constant = Decimal128(Int(v))
            case .double(let v): constant = Decimal128(v)
            default: throw mismatch(value, c, path)
            }
            return { operand in
                guard let v = operandDecimal(operand) else { return false }
                if v.isNaN || constant.isNaN {
                    return op == .equal ? (v.isNaN && constant.isNaN) : op == .notEqual ? !(v.isNaN && constant.isNaN) : false
                }
                return self.ordered(op, v < constant ? -1 : (v == constant ? 0 : 1))
            }
        case .bool:
            let constant: Bool
            switch value {
            case .bool(let b): constant = b
            case .int(let v) where v == 0 || v == 1: constant = v == 1
            default: throw mismatch(value, c, path)
            }
            guard op == .equal || op == .notEqual else {
                throw resolver.fail("'\(op.rawValue)' is not supported on bool property '\(path.text)'", c.position)
            }
            return { operand in
                guard case .raw(let bytes) = operand else { return false }
                return (bytes[0] != 0) == constant ? op == .equal : op == .notEqual
            }
        case .string, .data:
            var bytes: [UInt8]
            switch (type, value) {
            case (.string, .string(let s)): bytes = Array(s.utf8)
            case (.data, .data(let d)): bytes = Array(d)
            case (.data, .string(let s)): bytes = Array(s.utf8)
            default: throw mismatch(value, c, path)
            }
            let folding = c.caseInsensitive || c.diacriticInsensitive
            let ci = c.caseInsensitive, di = c.diacriticInsensitive
            if folding, case .string(let s) = value { bytes = Array(foldString(s, caseInsensitive: ci, diacriticInsensitive: di).utf8) }
            let match = bytesTest(op, bytes)
            if !folding {
                return { operand in
                    guard case .raw(let field) = operand else { return false }
                    return match(field)
                }
            }
            return { operand in
                guard case .raw(let field) = operand else { return false }
                // ASCII needs no Unicode folding: lower-case the bytes on the stack.
                if field.count <= 256, !field.contains(where: { $0 >= 0x80 }) {
                    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(field.count, 1)) { buffer in
                        for i in 0..<field.count {
                            let b = field[i]
                            buffer[i] = ci && b >= 0x41 && b <= 0x5A ? b | 0x20 : b
                        }
                        return match(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<field.count]))
                    }
                }
                var folded = foldString(String(decoding: field, as: UTF8.self), caseInsensitive: ci, diacriticInsensitive: di)
                return folded.withUTF8 { match(UnsafeRawBufferPointer($0)) }
            }
        case .objectId, .UUID:
            let bytes: [UInt8]
            switch (type, value) {
            case (.objectId, .objectId(let v)): bytes = v._rlmWithBytes { Array($0) }
            case (.objectId, .string(let s)):
                guard let v = try? ObjectId(string: s) else { throw mismatch(value, c, path) }
                bytes = v._rlmWithBytes { Array($0) }
            case (.UUID, .uuid(let v)): bytes = v._rlmWithBytes { Array($0) }
            case (.UUID, .string(let s)):
                guard let v = UUID(uuidString: s) else { throw mismatch(value, c, path) }
                bytes = v._rlmWithBytes { Array($0) }
            default: throw mismatch(value, c, path)
            }
            return { operand in
                guard case .raw(let field) = operand else { return false }
                return self.ordered(op, bytes.withUnsafeBytes { compareBytes(field, $0) })
            }
        case .object:
            guard case .object(let object) = value else { throw mismatch(value, c, path) }
            guard op == .equal || op == .notEqual else {
                throw resolver.fail("'\(op.rawValue)' is not supported on links ('\(path.text)'); use == or !=", c.position)
            }
            guard let target = path.targetClass, object._info === target, object._realm != nil, !object._deleted else {
                // An object of another class, or unmanaged: never equal.
                return { _ in op == .notEqual }
            }
            let key = object._key
            return { operand in
                guard let linked = operand.linkedKey else { return false }
                return (linked == key) == (op == .equal)
            }
        default:
            throw resolver.fail("Properties of type \(type) cannot be queried ('\(path.text)')", c.position)
        }
    }

    private func compareDoubles(_ op: QueryOperator, _ v: Double, _ constant: Double) -> Bool {
        if v.isNaN || constant.isNaN {
            // NaN equals NaN for == / != (so NaN values can be found); never ordered.
            switch op {
            case .equal: return v.isNaN && constant.isNaN
            case .notEqual: return !(v.isNaN && constant.isNaN)
            default: return false
            }
        }
        return ordered(op, v < constant ? -1 : (v == constant ? 0 : 1))
    }

    func bytesTest(_ op: QueryOperator, _ constant: [UInt8]) -> (UnsafeRawBufferPointer) -> Bool {
        switch op {
        case .equal: return { $0.count == constant.count && bytesEqual($0, 0, constant) }
        case .notEqual: return { !($0.count == constant.count && bytesEqual($0, 0, constant)) }
        case .beginsWith: return { bytesEqual($0, 0, constant) }
        case .endsWith: return { $0.count >= constant.count && bytesEqual($0, $0.count - constant.count, constant) }
        case .contains: return { containsBytes($0, constant) }
        case .like:
            let pattern = Array(String(decoding: constant, as: UTF8.self).unicodeScalars)
            return { likeMatch(Array(String(decoding: $0, as: UTF8.self).unicodeScalars), pattern) }
        default: return { field in constant.withUnsafeBytes { self.ordered(op, compareBytes(field, $0)) } }
        }
    }

    // MARK: - Index probes

    /// `prop == v` / `prop IN {...}` on an indexed property or the primary
    /// key, at the top level or inside a top-level AND.
    private func probe(_ predicate: QueryPredicate) -> IndexProbe? {
        switch predicate {
        case .and(let a, let b):
            let pa = probe(a), pb = probe(b)
            guard let pa, let pb else { return pa ?? pb }
            // Prefer equality over ranges, then the primary key, then the shorter key list.
            let rangeA = pa.range != nil || pa.prefixScan || pa.fullTextQuery != nil
            let rangeB = pb.range != nil || pb.prefixScan || pb.fullTextQuery != nil
            if rangeA != rangeB { return rangeA ? pb : pa }
            if pa.isPrimaryKey != pb.isPrimaryKey { return pa.isPrimaryKey ? pa : pb }
            return pa.keys.count <= pb.keys.count ? pa : pb
        case .comparison(let original) where original.op == .text:
            return fullTextProbe(original)
        case .comparison(let original):
            return (try? normalized(original)).flatMap { comparisonProbe($0) }
        default:
            return nil
        }
    }

    /// The probe of a normalized comparison other than TEXT, if an index answers it.
    private func comparisonProbe(_ c: QueryComparison) -> IndexProbe? {
        guard c.quantifier == .implicit, c.listQuantifier == .implicit,
              !c.caseInsensitive, !c.diacriticInsensitive,
              case .keyPath(let components, _) = c.left, components.count == 1,
              let index = info.descriptor.propertyIndex[components[0]] else { return nil }
        let column = info.columns[index]
        guard column.collection == .none, column.isPrimary || column.isIndexed else { return nil }
        if column.type == .any {
            // Equality only: one mixed key per value (numbers of every type share it).
            return mixedProbe(c, column)
        }
        // A class keyed by its primary key: equality is one lookup of the object key.
        let tree = column.isPrimary ? (info.keyedByPrimaryKey ? info.objectsTree : info.primaryKeyTree) : column.indexTree
        if info.keyedByPrimaryKey && column.isPrimary && c.op == .beginsWith { return nil }
        if c.op.isOrdering || c.op == .between {
            // Ranges over fixed-width encodings only (strings may be truncated in the index).
            guard column.type == .int || column.type == .date else { return nil }
            var range = IndexRange()
            switch (c.op, c.right) {
            case (.between, .list(let items, _)) where items.count == 2:
                guard let low = indexKeyOf(items[0], column), let high = indexKeyOf(items[1], column),
                      low != [0], high != [0] else { return nil }
                range.low = low
                range.high = high
            case (_, .value(let value, _)):
                guard let bound = indexKeyOf(value, column), bound != [0] else { return nil }
                switch c.op {
                case .greater: range.low = bound; range.lowInclusive = false
                case .greaterOrEqual: range.low = bound
                case .less: range.high = bound; range.highInclusive = false
                default: range.high = bound
                }
            default:
                return nil
            }
            return IndexProbe(column: column, tree: tree, isPrimaryKey: column.isPrimary, keys: [], range: range,
                              objectKeys: info.keyedByPrimaryKey && column.isPrimary)
        }
        if c.op == .beginsWith {
            guard column.type == .string, case .value(.string(let prefix), _) = c.right else { return nil }
            let encoded = prefix._rlmWithBytes { indexKey(.string, isNull: false, $0) }
            // Not truncated: drop the terminator so longer strings match too.
            guard encoded.count < maxIndexedValueBytes else { return nil }
            return IndexProbe(column: column, tree: tree, isPrimaryKey: column.isPrimary, keys: [Array(encoded.dropLast(2))],
                              prefixScan: true)
        }
        guard let keys = probeKeys(c, { indexKeyOf($0, column) }) else { return nil }
        if column.isPrimary {
            return IndexProbe(column: column, tree: tree, isPrimaryKey: true, keys: keys)
        }
        return IndexProbe(column: column, tree: column.indexTree, isPrimaryKey: false, keys: keys)
    }

    /// The index keys an `==` or `IN` comparison looks up (nil: it cannot
    /// be answered from the index).
    private func probeKeys(_ c: QueryComparison, _ key: (QueryValue) -> [UInt8]?) -> [[UInt8]]? {
        guard c.op == .equal || c.op == .in else { return nil }
        let values: [QueryValue]
        switch c.right {
        case .value(let v, _): values = [v]
        case .list(let items, _) where c.op == .in: values = items
        default: return nil
        }
        var keys: [[UInt8]] = []
        for value in values {
            guard let k = key(value) else { return nil }
            keys.append(k)
        }
        return keys
    }

    private func mixedProbe(_ c: QueryComparison, _ column: Column) -> IndexProbe? {
        guard let keys = probeKeys(c, mixedIndexKey) else { return nil }
        return IndexProbe(column: column, tree: column.indexTree, isPrimaryKey: false, keys: keys)
    }

    /// The index encoding of a constant for `column`, if it converts exactly.
    func indexKeyOf(_ value: QueryValue, _ column: Column) -> [UInt8]? {
        func key<T: _RealmPrimitive>(_ v: T) -> [UInt8] { v._rlmWithBytes { indexKey(column.type, isNull: false, $0) } }
        switch (column.type, value) {
        case (_, .null): return column.isOptional ? [0] : nil
        case (.int, .int(let v)): return key(v)
        case (.int, .double(let d)): return Int64(exactly: d).map { key($0) }
        case (.bool, .bool(let b)): return key(b)
        case (.date, .date(let d)): return key(d)
        case (.string, .string(let s)): return key(s)
        case (.objectId, .objectId(let v)): return key(v)
        case (.UUID, .uuid(let v)): return key(v)
        default: return nil
        }
    }
}

// MARK: - Strings

/// Case folding for [c] (full upper-then-lower mapping, so ß matches SS)
/// and diacritic removal for [d] (canonical decomposition without marks).
func foldString(_ s: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
    var t = s
    if diacriticInsensitive {
        var scalars = String.UnicodeScalarView()
        for scalar in t.decomposedStringWithCanonicalMapping.unicodeScalars
        where scalar.properties.generalCategory != .nonspacingMark {
            scalars.append(scalar)
        }
        t = String(scalars)
    }
    if caseInsensitive { t = t.uppercased().lowercased() }
    return t.precomposedStringWithCanonicalMapping
}

/// True if `field[offset...]` starts with `constant` (memcmp, no decoding).
@inline(__always)
func bytesEqual(_ field: UnsafeRawBufferPointer, _ offset: Int, _ constant: [UInt8]) -> Bool {
    guard field.count - offset >= constant.count else { return false }
    if constant.isEmpty { return true }
    return constant.withUnsafeBytes { memcmp(field.baseAddress! + offset, $0.baseAddress!, constant.count) == 0 }
}

func containsBytes(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
    if needle.isEmpty { return true }
    if haystack.count < needle.count { return false }
    let first = needle[0]
    var i = 0
    let last = haystack.count - needle.count
    while i <= last {
        if haystack[i] == first {
            var j = 1
            while j < needle.count && haystack[i + j] == needle[j] { j += 1 }
            if j == needle.count { return true }
        }
        i += 1
    }
    return false
}

/// LIKE: `*` matches any run of characters, `?` exactly one.
func likeMatch(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
    var t = 0, p = 0
    var star = -1, mark = 0
    while t < text.count {
        if p < pattern.count && (pattern[p] == "?" || pattern[p] == text[t]) {
            t += 1; p += 1
        } else if p < pattern.count && pattern[p] == "*" {
            star = p; mark = t; p += 1
        } else if star >= 0 {
            p = star + 1; mark += 1; t = mark
        } else {
            return false
        }
    }
    while p < pattern.count && pattern[p] == "*" { p += 1 }
    return p == pattern.count
}
