// RecordTest: the common predicates — AND / OR / NOT of comparisons between
// one scalar property of the row (int, bool, float, double, date; nil
// checks on any property) and constants — compiled to plain data and
// evaluated straight on a record's bytes: no closures, no QueryOperand
// enum, no reference counting per row. QueryCompiler builds one next to
// the general filter when every part of the predicate qualifies (anything
// else — strings, links, collections, options, two-property comparisons —
// leaves it nil and the closures do the work). Its results must equal the
// general filter's exactly: same nil, NaN and int/double rules
// (QueryCompiler.operandTest / nonNullTest).

struct RecordTest {
    enum Kind: UInt8 {
        /// `flag` is the result.
        case constant
        /// Children: the next node, and the node at `right`.
        case and, or
        /// Child: the next node.
        case not
        /// True when the column's nil-ness equals `flag`.
        case isNull
        /// Int64 slot against `int`.
        case int
        /// Int64 slot, as Double, against `double` (an int property compared with a fraction).
        case intAsDouble
        /// Double slot (double, date) against `double`.
        case double
        /// Float slot, as Double, against `double` (already rounded to Float).
        case float
        /// Bool slot: true when (byte != 0) == `flag`, negated for !=.
        case bool
    }

    enum Comparison: UInt8 {
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    }

    /// Trivial (no references), so evaluation touches no reference counts.
    struct Node {
        var kind: Kind
        var comparison: Comparison = .equal
        var flag = false
        var nullByte: Int32 = 0
        var nullMask: UInt8 = 0
        var offset: Int32 = 0
        var right: Int32 = 0
        var int: Int64 = 0
        var double: Double = 0
    }

    let nodes: [Node]

    /// Calls `body` with an evaluator of this test over record base pointers.
    @inline(__always)
    func withEvaluator<R>(_ body: (Evaluator) throws -> R) rethrows -> R {
        try nodes.withUnsafeBufferPointer { try body(Evaluator(nodes: $0.baseAddress!)) }
    }

    struct Evaluator {
        let nodes: UnsafePointer<Node>

        @inline(__always)
        func matches(_ record: UnsafeRawPointer) -> Bool { Self.eval(nodes, 0, record) }

        private static func eval(_ nodes: UnsafePointer<Node>, _ index: Int, _ record: UnsafeRawPointer) -> Bool {
            let node = nodes + index
            switch node.pointee.kind {
            case .constant:
                return node.pointee.flag
            case .and:
                return eval(nodes, index + 1, record) && eval(nodes, Int(node.pointee.right), record)
            case .or:
                return eval(nodes, index + 1, record) || eval(nodes, Int(node.pointee.right), record)
            case .not:
                return !eval(nodes, index + 1, record)
            case .isNull:
                return isNull(node, record) == node.pointee.flag
            default:
                // A value test: nil satisfies only != (as operandTest).
                if isNull(node, record) { return node.pointee.comparison == .notEqual }
                return valueTest(node, record + Int(node.pointee.offset))
            }
        }

        @inline(__always)
        private static func isNull(_ node: UnsafePointer<Node>, _ record: UnsafeRawPointer) -> Bool {
            record.load(fromByteOffset: Int(node.pointee.nullByte), as: UInt8.self) & node.pointee.nullMask != 0
        }

        @inline(__always)
        private static func valueTest(_ node: UnsafePointer<Node>, _ field: UnsafeRawPointer) -> Bool {
            let comparison = node.pointee.comparison
            switch node.pointee.kind {
            case .int:
                let v = Int64(littleEndian: field.loadUnaligned(as: Int64.self)), c = node.pointee.int
                switch comparison {
                case .equal: return v == c
                case .notEqual: return v != c
                case .less: return v < c
                case .lessOrEqual: return v <= c
                case .greater: return v > c
                case .greaterOrEqual: return v >= c
                }
            case .intAsDouble:
                return compare(comparison, Double(Int64(littleEndian: field.loadUnaligned(as: Int64.self))), node.pointee.double)
            case .double:
                return compare(comparison, Double(bitPattern: UInt64(littleEndian: field.loadUnaligned(as: UInt64.self))),
                               node.pointee.double)
            case .float:
                return compare(comparison, Double(Float(bitPattern: UInt32(littleEndian: field.loadUnaligned(as: UInt32.self)))),
                               node.pointee.double)
            case .bool:
                let same = (field.load(as: UInt8.self) != 0) == node.pointee.flag
                return comparison == .equal ? same : !same
            default:
                return false
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
        guard append(predicate, to: &nodes) else { return nil }
        return RecordTest(nodes: nodes)
    }

    private func append(_ predicate: QueryPredicate, to nodes: inout [RecordTest.Node]) -> Bool {
        switch predicate {
        case .constant(let value):
            nodes.append(RecordTest.Node(kind: .constant, flag: value))
            return true
        case .and(let a, let b):
            return appendPair(.and, a, b, to: &nodes)
        case .or(let a, let b):
            return appendPair(.or, a, b, to: &nodes)
        case .not(let a):
            nodes.append(RecordTest.Node(kind: .not))
            return append(a, to: &nodes)
        case .comparison(let comparison):
            return appendComparison(comparison, to: &nodes)
        }
    }

    private func appendPair(_ kind: RecordTest.Kind, _ a: QueryPredicate, _ b: QueryPredicate,
                            to nodes: inout [RecordTest.Node]) -> Bool {
        let at = nodes.count
        nodes.append(RecordTest.Node(kind: kind))
        guard append(a, to: &nodes) else { return false }
        nodes[at].right = Int32(nodes.count)
        return append(b, to: &nodes)
    }

    private func appendComparison(_ original: QueryComparison, to nodes: inout [RecordTest.Node]) -> Bool {
        guard let c = try? normalized(original), c.quantifier == .implicit,
              !c.caseInsensitive, !c.diacriticInsensitive,
              case .keyPath(let components, _) = c.left,
              let path = try? PathResolver(root: info, format: "").resolve(components, position: -1),
              let column = path.directColumn, !path.isMulti, !path.isAggregate,
              column.collection == .none else { return false }
        let slot = info.slots[column.index]
        guard slot.width >= 0 else { return false }
        var template = RecordTest.Node(kind: .constant)
        template.nullByte = slot.nullBit >> 3
        template.nullMask = 1 << UInt8(slot.nullBit & 7)
        template.offset = slot.offset
        func leaf(_ op: QueryOperator, _ value: QueryValue) -> RecordTest.Node? {
            valueNode(op, value, column, slot, template)
        }
        switch (c.op, c.right) {
        case (.between, .list(let items, _)):
            guard items.count == 2, let low = leaf(.greaterOrEqual, items[0]), let high = leaf(.lessOrEqual, items[1]) else {
                return false
            }
            nodes.append(RecordTest.Node(kind: .and, right: Int32(nodes.count + 2)))
            nodes.append(low)
            nodes.append(high)
            return true
        case (.in, let right):
            let items: [QueryValue]
            switch right {
            case .list(let list, _): items = list
            case .value(let value, _): items = [value]
            default: return false
            }
            // Ints and nil only: the general filter's hash-set path for long
            // lists then agrees with a chain of exact == tests.
            guard items.count <= Self.maxInItems,
                  column.type != .int || items.allSatisfy({ if case .int = $0 { true } else if case .null = $0 { true } else { false } })
            else { return false }
            let tests = items.compactMap { leaf(.equal, $0) }
            guard tests.count == items.count else { return false }
            guard !tests.isEmpty else {
                nodes.append(RecordTest.Node(kind: .constant, flag: false))
                return true
            }
            for (i, test) in tests.enumerated() {
                if i < tests.count - 1 { nodes.append(RecordTest.Node(kind: .or, right: Int32(nodes.count + 2))) }
                nodes.append(test)
            }
            return true
        case (let op, .value(let value, _)):
            guard let node = leaf(op, value) else { return false }
            nodes.append(node)
            return true
        default:
            return false
        }
    }

    /// One comparison of the column with a constant, as operandTest would do it.
    private func valueNode(_ op: QueryOperator, _ value: QueryValue, _ column: Column, _ slot: ColumnSlot,
                           _ template: RecordTest.Node) -> RecordTest.Node? {
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
            node.kind = .int
            node.int = v
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
        case (.bool, .int(let v)) where (op == .equal || op == .notEqual) && (v == 0 || v == 1):
            node.kind = .bool
            node.flag = v == 1
        default:
            return nil
        }
        let width: Int32 = node.kind == .bool ? 1 : (node.kind == .float ? 4 : 8)
        return slot.width == width ? node : nil
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
