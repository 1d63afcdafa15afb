// RecordTest: the common predicates — AND / OR / NOT of comparisons between
// one scalar property of the row (int, bool, float, double, date; == and !=
// on string and data without [c]/[d]; nil checks on any property) and
// constants — compiled to plain data and
// evaluated straight on a record's bytes: no closures, no QueryOperand
// enum, no reference counting per row. QueryCompiler builds one next to
// the general filter when every part of the predicate qualifies (anything
// else — string ordering and matching, links, collections, options,
// two-property comparisons —
// leaves it nil and the closures do the work). Its results must equal the
// general filter's exactly: same nil, NaN and int/double rules
// (QueryCompiler.operandTest / nonNullTest).

import Foundation

struct RecordTest {
    enum Kind: UInt8 {
        /// True when the column's nil-ness equals `flag`.
        case isNull
        /// Int64 slot in `low...high` (a full-range test with `negate` is never true).
        case intRange
        /// Int64 slot, as Double, against `double` (an int property compared with a fraction).
        case intAsDouble
        /// Double slot (double, date) against `double`.
        case double
        /// Float slot, as Double, against `double` (already rounded to Float).
        case float
        /// Bool slot: (byte != 0) == `flag`.
        case bool
        /// Var field (string, data) byte-equal to constants[low ..< low + high].
        case bytesEqual
    }

    enum Comparison: UInt8 {
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    }

    /// Where evaluation goes after a test: another node, or a final result.
    static let resultFalse: Int32 = -1
    static let resultTrue: Int32 = -2

    /// One test of one column, and where to go on either outcome (AND, OR
    /// and NOT are compiled into these jumps, so evaluation is a loop with
    /// no stack). Trivial (no references): evaluation touches no reference counts.
    struct Node {
        var kind: Kind
        var comparison: Comparison = .equal
        var flag = false
        /// Invert the test's result (!=).
        var negate = false
        var nullByte: Int32 = 0
        var nullMask: UInt8 = 0
        var offset: Int32 = 0
        var onTrue: Int32 = RecordTest.resultTrue
        var onFalse: Int32 = RecordTest.resultFalse
        var low: Int64 = 0
        var high: Int64 = 0
        var double: Double = 0
    }

    let nodes: [Node]
    /// The first node, or a final result (constant predicates).
    let entry: Int32
    /// Bytes the string / data tests compare with.
    let constants: [UInt8]
    /// The class's record layout (where var fields are).
    let layout: RecordLayout

    /// Calls `body` with an evaluator of this test over record base pointers.
    @inline(__always)
    func withEvaluator<R>(_ body: (Evaluator) throws -> R) rethrows -> R {
        try nodes.withUnsafeBufferPointer { nodes in
            try constants.withUnsafeBufferPointer { constants in
                try body(Evaluator(nodes: nodes.baseAddress, entry: entry, constants: constants.baseAddress, layout: layout))
            }
        }
    }

    struct Evaluator {
        let nodes: UnsafePointer<Node>?
        let entry: Int32
        let constants: UnsafePointer<UInt8>?
        let layout: RecordLayout

        @inline(__always)
        func matches(_ record: UnsafeRawPointer) -> Bool {
            var next = entry
            while next >= 0 {
                let node = nodes.unsafelyUnwrapped + Int(next)
                next = test(node, record) ? node.pointee.onTrue : node.pointee.onFalse
            }
            return next == RecordTest.resultTrue
        }

        @inline(__always)
        private func test(_ node: UnsafePointer<Node>, _ record: UnsafeRawPointer) -> Bool {
            let isNull = record.load(fromByteOffset: Int(node.pointee.nullByte), as: UInt8.self) & node.pointee.nullMask != 0
            if node.pointee.kind == .isNull { return isNull == node.pointee.flag }
            // A value test: nil satisfies only != (as operandTest).
            if isNull { return node.pointee.comparison == .notEqual }
            let field = record + Int(node.pointee.offset)
            switch node.pointee.kind {
            case .intRange:
                let v = Int64(littleEndian: field.loadUnaligned(as: Int64.self)), low = node.pointee.low
                let inRange = UInt64(bitPattern: v &- low) <= UInt64(bitPattern: node.pointee.high &- low)
                return inRange != node.pointee.negate
            case .intAsDouble:
                return Self.compare(node.pointee.comparison, Double(Int64(littleEndian: field.loadUnaligned(as: Int64.self))),
                               node.pointee.double)
            case .double:
                return Self.compare(node.pointee.comparison, Double(bitPattern: UInt64(littleEndian: field.loadUnaligned(as: UInt64.self))),
                               node.pointee.double)
            case .float:
                return Self.compare(node.pointee.comparison, Double(Float(bitPattern: UInt32(littleEndian: field.loadUnaligned(as: UInt32.self)))),
                               node.pointee.double)
            case .bool:
                return ((field.load(as: UInt8.self) != 0) == node.pointee.flag) != node.pointee.negate
            case .bytesEqual:
                let bytes = RecordView(base: record, size: 0).variable(Int(node.pointee.offset), layout)
                let count = Int(node.pointee.high)
                let equal = bytes.count == count
                    && (count == 0 || memcmp(bytes.baseAddress!, constants.unsafelyUnwrapped + Int(node.pointee.low), count) == 0)
                return equal != node.pointee.negate
            case .isNull:
                return isNull == node.pointee.flag
            }
        }

        /// QueryCompiler.compareDoubles: NaN equals NaN, and is never ordered.
        @inline(__always)
        private static func compare(_ comparison: Comparison, _ v: Double, _ c: Double) -> Bool {
            switch comparison {
            case .equal: return v == c || (v.isNaN && c.isNaN)
            case .notEqual: return !(v == c || (v.isNaN && c.isNaN))
            case .less: return v < c
            case .lessOrEqual: return v <= c
            case .greater: return v > c
            case .greaterOrEqual: return v >= c
            }
        }
    }
}

extension QueryCompiler {
    /// Longest IN list turned into a chain of == tests.
    private static var maxInItems: Int { 8 }

    /// The predicate as a RecordTest, or nil if some part needs the general
    /// filter. Call after `compile` succeeded (errors are reported there).
    func recordTest(_ predicate: QueryPredicate) -> RecordTest? {
        var nodes: [RecordTest.Node] = []
        var constants: [UInt8] = []
        guard let entry = emit(predicate, onTrue: RecordTest.resultTrue, onFalse: RecordTest.resultFalse,
                               into: &nodes, &constants) else {
            return nil
        }
        return RecordTest(nodes: nodes, entry: entry, constants: constants, layout: info.layout)
    }

    /// Appends the nodes of `predicate` going to `onTrue` / `onFalse` when
    /// decided, and returns where its evaluation starts (nodes of a later
    /// operand are emitted first, so that earlier ones can jump to them).
    private func emit(_ predicate: QueryPredicate, onTrue: Int32, onFalse: Int32,
                      into nodes: inout [RecordTest.Node], _ constants: inout [UInt8]) -> Int32? {
        switch predicate {
        case .constant(let value):
            return value ? onTrue : onFalse
        case .and(let a, let b):
            guard let second = emit(b, onTrue: onTrue, onFalse: onFalse, into: &nodes, &constants) else { return nil }
            return emit(a, onTrue: second, onFalse: onFalse, into: &nodes, &constants)
        case .or(let a, let b):
            guard let second = emit(b, onTrue: onTrue, onFalse: onFalse, into: &nodes, &constants) else { return nil }
            return emit(a, onTrue: onTrue, onFalse: second, into: &nodes, &constants)
        case .not(let a):
            return emit(a, onTrue: onFalse, onFalse: onTrue, into: &nodes, &constants)
        case .comparison(let comparison):
            guard let (tests, isAny) = comparisonTests(comparison, &constants) else { return nil }
            // All of the tests (BETWEEN), or any of them (IN).
            var next = isAny ? onFalse : onTrue
            for var test in tests.reversed() {
                test.onTrue = isAny ? onTrue : next
                test.onFalse = isAny ? next : onFalse
                next = Int32(nodes.count)
                nodes.append(test)
            }
            return next
        }
    }

    /// The tests of one comparison: one, two (BETWEEN: all must pass) or a
    /// list (IN: any may pass; none for an empty list).
    private func comparisonTests(_ original: QueryComparison, _ constants: inout [UInt8]) -> (tests: [RecordTest.Node], isAny: Bool)? {
        guard let c = try? normalized(original), c.quantifier == .implicit,
              !c.caseInsensitive, !c.diacriticInsensitive,
              case .keyPath(let components, _) = c.left,
              let path = try? PathResolver(root: info, format: "").resolve(components, position: -1),
              let column = path.directColumn, !path.isMulti, !path.isAggregate,
              column.collection == .none else { return nil }
        let slot = info.slots[column.index]
        guard slot.width >= 0 else { return nil }
        var template = RecordTest.Node(kind: .isNull)
        template.nullByte = slot.nullBit >> 3
        template.nullMask = 1 << UInt8(slot.nullBit & 7)
        template.offset = slot.offset
        func test(_ op: QueryOperator, _ value: QueryValue) -> RecordTest.Node? {
            valueTest(op, value, column, slot, template, &constants)
        }
        switch (c.op, c.right) {
        case (.between, .list(let items, _)):
            guard items.count == 2, let low = test(.greaterOrEqual, items[0]), let high = test(.lessOrEqual, items[1]) else {
                return nil
            }
            return ([low, high], false)
        case (.in, let right):
            let items: [QueryValue]
            switch right {
            case .list(let list, _): items = list
            case .value(let value, _): items = [value]
            default: return nil
            }
            // Ints and nil only: the general filter's hash-set path for long
            // lists then agrees with a chain of exact == tests.
            guard items.count <= Self.maxInItems,
                  column.type != .int || items.allSatisfy({ if case .int = $0 { true } else if case .null = $0 { true } else { false } })
            else { return nil }
            let tests = items.compactMap { test(.equal, $0) }
            guard tests.count == items.count else { return nil }
            return (tests, true)
        case (let op, .value(let value, _)):
            return test(op, value).map { ([$0], false) }
        default:
            return nil
        }
    }

    /// One comparison of the column with a constant, as operandTest would do it.
    private func valueTest(_ op: QueryOperator, _ value: QueryValue, _ column: Column, _ slot: ColumnSlot,
                           _ template: RecordTest.Node, _ constants: inout [UInt8]) -> RecordTest.Node? {
        var node = template
        if case .null = value {
            guard op == .equal || op == .notEqual else { return nil }
            node.kind = .isNull
            node.flag = op == .equal
            return node
        }
        guard let comparison = Self.comparison(op) else { return nil }
        node.comparison = comparison
        switch (column.type, value) {
        case (.int, .int(let v)):
            node.kind = .intRange
            (node.low, node.high, node.negate) = Self.intRange(comparison, v)
        case (.int, .double(let d)):
            node.kind = .intAsDouble
            node.double = d
        case (.double, .int(let v)):
            node.kind = .double
            node.double = Double(v)
        case (.double, .double(let d)):
            node.kind = .double
            node.double = d
        case (.date, .date(let d)):
            node.kind = .double
            node.double = d.timeIntervalSinceReferenceDate
        case (.float, .int(let v)):
            node.kind = .float
            node.double = Double(Float(Double(v)))
        case (.float, .double(let d)):
            node.kind = .float
            node.double = Double(Float(d))
        case (.bool, .bool(let b)) where op == .equal || op == .notEqual:
            node.kind = .bool
            node.flag = b
            node.negate = op == .notEqual
        case (.bool, .int(let v)) where (op == .equal || op == .notEqual) && (v == 0 || v == 1):
            node.kind = .bool
            node.flag = v == 1
            node.negate = op == .notEqual
        case (.string, .string(let s)) where op == .equal || op == .notEqual,
             (.data, .string(let s)) where op == .equal || op == .notEqual:
            node.kind = .bytesEqual
            node.negate = op == .notEqual
            node.low = Int64(constants.count)
            node.high = Int64(s.utf8.count)
            constants.append(contentsOf: s.utf8)
        case (.data, .data(let d)) where op == .equal || op == .notEqual:
            node.kind = .bytesEqual
            node.negate = op == .notEqual
            node.low = Int64(constants.count)
            node.high = Int64(d.count)
            constants.append(contentsOf: d)
        default:
            return nil
        }
        let width: Int32 = node.kind == .bytesEqual ? 0 : node.kind == .bool ? 1 : (node.kind == .float ? 4 : 8)
        return slot.width == width ? node : nil
    }

    /// `v op c` as `v in low...high`, negated for != (and for the empty
    /// ranges `< Int64.min`, `> Int64.max`: never true).
    private static func intRange(_ comparison: RecordTest.Comparison, _ c: Int64) -> (Int64, Int64, Bool) {
        switch comparison {
        case .equal: return (c, c, false)
        case .notEqual: return (c, c, true)
        case .less: return c == .min ? (.min, .max, true) : (.min, c - 1, false)
        case .lessOrEqual: return (.min, c, false)
        case .greater: return c == .max ? (.min, .max, true) : (c + 1, .max, false)
        case .greaterOrEqual: return (c, .max, false)
        }
    }

    private static func comparison(_ op: QueryOperator) -> RecordTest.Comparison? {
        switch op {
        case .equal: .equal
        case .notEqual: .notEqual
        case .less: .less
        case .lessOrEqual: .lessOrEqual
        case .greater: .greater
        case .greaterOrEqual: .greaterOrEqual
        default: nil
        }
    }
}
