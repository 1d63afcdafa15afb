// RecordTest: the common predicates — AND / OR / NOT of comparisons between
// one scalar property of the row (int, bool, float, double, date; == and !=
// on string and data without [c]/[d]; nil checks on any property) and
// constants — compiled to plain data and
// evaluated by the engine straight on a record's bytes (cs_filter_values, a
// batch at a time): no closures, no QueryOperand enum, no reference
// counting per row. QueryCompiler builds one next to
// the general filter when every part of the predicate qualifies (anything
// else — string ordering and matching, links, collections, options,
// two-property comparisons —
// leaves it nil and the closures do the work). Its results must equal the
// general filter's exactly: same nil, NaN and int/double rules
// (QueryCompiler.operandTest / nonNullTest).

import CStorage
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
        /// Bool slot: (byte != 0) == `flag`; with `bitMask`, the Bool is
        /// that bit of the byte at `offset` (its null bit: boolBits).
        case bool
        /// Var field (string, data) byte-equal to constants[low ..< low + high].
        case bytesEqual
    }

    enum Comparison: UInt8 {
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    }

    /// Where evaluation goes after a test: another node, or a final result.
    static let resultFalse = CS_FILTER_FALSE
    static let resultTrue = CS_FILTER_TRUE

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
        /// The column is a packed integer: `offset` is its index (Record.swift).
        var packed = false
        /// A Bool held in its null bit: that bit of byte `offset`.
        var bitMask: UInt8 = 0
        var onTrue: Int32 = RecordTest.resultTrue
        var onFalse: Int32 = RecordTest.resultFalse
        var low: Int64 = 0
        var high: Int64 = 0
        var double: Double = 0
    }

    /// The nodes as the engine's value tests (cs_filter_values evaluates them).
    let tests: [cs_value_test]
    /// The first node, or a final result (constant predicates).
    let entry: Int32
    /// Bytes the string / data tests compare with.
    let constants: [UInt8]
    /// The class's record layout (where var fields are).
    let layout: RecordLayout
    /// The generation byte records of that layout start with, when the
    /// class has older ones (which the engine then leaves to the caller).
    let generation: UInt8?

    init(nodes: [Node], entry: Int32, constants: [UInt8], layout: RecordLayout, generation: UInt8?) {
        self.init(tests: nodes.map(\.engineTest), entry: entry, constants: constants, layout: layout, generation: generation)
    }

    private init(tests: [cs_value_test], entry: Int32, constants: [UInt8], layout: RecordLayout, generation: UInt8?) {
        self.tests = tests
        self.entry = entry
        self.constants = constants
        self.layout = layout
        self.generation = generation
    }

    /// This test for records of generation `generation`, whose layout is
    /// `old` (RecordGenerations.swift): each test reads its column where
    /// `old` has it; a test of a column `old` lacks decides as the stored
    /// default does (evaluated once, on `defaults`), since every such record
    /// reads that value (G2). `current` is the layout this test was made for.
    func forGeneration(_ generation: UInt8, _ old: PositionalLayout, current: PositionalLayout,
                       defaults: [UInt8]) -> RecordTest {
        var fixedPosition: [UInt32: Int] = [:], varPosition: [UInt32: Int] = [:], nullPosition: [UInt32: Int] = [:]
        var packedPosition: [UInt32: Int] = [:]
        for position in 0..<current.slots.count {
            let slot = current.slots[position]
            if slot.width == ColumnSlot.bitBool {
                // Found by its null bit, as a nil check is.
            } else if slot.width > 0 {
                fixedPosition[UInt32(slot.offset)] = position
            } else if slot.width == ColumnSlot.packedInt {
                packedPosition[UInt32(slot.offset)] = position
            } else {
                varPosition[UInt32(slot.offset)] = position
            }
            nullPosition[UInt32(slot.nullBit)] = position
        }
        let remapped = tests.map { test -> cs_value_test in
            let position: Int?
            if test.kind == UInt8(CS_TEST_NULL.rawValue) {
                guard test.null_mask != 0 else { return test } // decides alone
                position = nullPosition[test.null_byte * 8 + UInt32(test.null_mask.trailingZeroBitCount)]
            } else if test.kind == UInt8(CS_TEST_BYTES_EQ.rawValue) {
                position = varPosition[test.offset]
            } else if test.bit_mask != 0 {
                position = nullPosition[test.offset * 8 + UInt32(test.bit_mask.trailingZeroBitCount)]
            } else if test.packed != 0 {
                position = packedPosition[test.offset]
            } else {
                position = fixedPosition[test.offset]
            }
            var mapped = test
            if let position, position < old.slots.count {
                let slot = old.slots[position]
                mapped.offset = UInt32(slot.offset)
                if slot.width == ColumnSlot.bitBool {
                    mapped.offset = UInt32(slot.nullBit >> 3)
                    mapped.bit_mask = 1 << UInt8(slot.nullBit & 7)
                }
                mapped.packed = slot.width == ColumnSlot.packedInt ? 1 : 0
                mapped.null_byte = UInt32(slot.nullBit >> 3)
                if test.null_mask != 0 { mapped.null_mask = 1 << UInt8(slot.nullBit & 7) }
                return mapped
            }
            // The column is not in these records: the default decides.
            var alone = test
            alone.on_true = RecordTest.resultTrue
            alone.on_false = RecordTest.resultFalse
            let passes = RecordTest(tests: [alone], entry: 0, constants: constants, layout: current.layout, generation: nil)
                .matches(defaults)
            mapped.kind = UInt8(CS_TEST_NULL.rawValue)
            mapped.null_mask = 0
            mapped.packed = 0
            mapped.bit_mask = 0
            mapped.flag = passes ? 0 : 1
            return mapped
        }
        return RecordTest(tests: remapped, entry: entry, constants: constants, layout: old.layout, generation: generation)
    }

    /// Whether `record` passes (one record, through the engine's filter).
    private func matches(_ record: [UInt8]) -> Bool {
        record.withUnsafeBytes { raw in
            withFilter { filter in
                var value = cs_val(data: raw.baseAddress, size: raw.count)
                var match: UInt32 = 0
                return filterRecords(filter, &value, 1, &match) == 1
            }
        }
    }

    /// Calls `body` with the filter, valid for the duration of the call.
    @inline(__always)
    func withFilter<R>(_ body: (UnsafePointer<cs_filter>) throws -> R) rethrows -> R {
        try tests.withUnsafeBufferPointer { tests in
            try constants.withUnsafeBufferPointer { constants in
                var filter = cs_filter(tests: tests.baseAddress, ntests: UInt32(tests.count), entry: entry,
                                       constants: constants.baseAddress, nconstants: constants.count,
                                       var_table: UInt32(layout.varTableStart), var_data: UInt32(layout.varTableStart + 4 * layout.storedEnds),
                                       has_tag: generation == nil ? 0 : 1, tag: generation ?? 0,
                                       compact_offsets: layout.compactOffsets ? 1 : 0, implied_last_end: layout.storedEnds < layout.varCount ? 1 : 0,
                                       var_count: UInt32(layout.varCount),
                                       int_start: UInt32(layout.intStart), int_count: UInt32(layout.intCount),
                                       int_code_byte: UInt32(layout.intCount > 0 ? layout.intCodeByte : 0))
                return try body(&filter)
            }
        }
    }
}

extension RecordTest.Node {
    /// The same test in the engine's terms (cstorage.h, "Value filters").
    var engineTest: cs_value_test {
        let engineKind: cs_test_kind = switch kind {
        case .isNull: CS_TEST_NULL
        case .intRange: CS_TEST_I64_RANGE
        case .intAsDouble: CS_TEST_I64_VS_F64
        case .double: CS_TEST_F64
        case .float: CS_TEST_F32
        case .bool: CS_TEST_BOOL
        case .bytesEqual: CS_TEST_BYTES_EQ
        }
        let engineComparison: cs_test_cmp = switch comparison {
        case .equal: CS_CMP_EQ
        case .notEqual: CS_CMP_NE
        case .less: CS_CMP_LT
        case .lessOrEqual: CS_CMP_LE
        case .greater: CS_CMP_GT
        case .greaterOrEqual: CS_CMP_GE
        }
        var test = cs_value_test()
        test.kind = UInt8(engineKind.rawValue)
        test.cmp = UInt8(engineComparison.rawValue)
        test.flag = flag ? 1 : 0
        test.negate = negate ? 1 : 0
        test.null_mask = nullMask
        test.null_byte = UInt32(nullByte)
        test.offset = UInt32(offset)
        // A nil check reads the null bit alone.
        test.packed = packed && (kind == .intRange || kind == .intAsDouble) ? 1 : 0
        test.bit_mask = kind == .bool ? bitMask : 0
        test.on_true = onTrue
        test.on_false = onFalse
        test.low = low
        test.high = high
        test.f64 = double
        return test
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
        return RecordTest(nodes: nodes, entry: entry, constants: constants, layout: info.layout,
                          generation: info.generations?.current)
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
        case .geoWithin:
            return nil
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
        guard let c = try? normalized(original), c.quantifier == .implicit, c.listQuantifier == .implicit,
              !c.caseInsensitive, !c.diacriticInsensitive,
              case .keyPath(let components, _) = c.left,
              let path = try? PathResolver(root: info, format: "").resolve(components, position: -1),
              let column = path.directColumn, !path.isMulti, !path.isAggregate,
              column.collection == .none, column.type != .any else { return nil } // mixed: the closures (MixedQuery.swift)
        let slot = info.slots[column.index]
        guard slot.inRecord else { return nil }
        var template = RecordTest.Node(kind: .isNull)
        template.nullByte = slot.nullBit >> 3
        // A required column's null bit is never set: no need to read it.
        template.nullMask = column.isOptional ? 1 << UInt8(slot.nullBit & 7) : 0
        template.offset = slot.offset
        template.packed = slot.width == ColumnSlot.packedInt
        if slot.width == ColumnSlot.bitBool {
            template.offset = slot.nullBit >> 3
            template.bitMask = 1 << UInt8(slot.nullBit & 7)
        }
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
        if slot.width == ColumnSlot.packedInt { return node.kind == .intRange || node.kind == .intAsDouble ? node : nil }
        if slot.width == ColumnSlot.bitBool { return node.kind == .bool || node.kind == .isNull ? node : nil }
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
