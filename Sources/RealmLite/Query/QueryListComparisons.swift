import Foundation

// Lists of constants under quantifiers, as Realm's "list comparisons":
//
//   ANY {1, 2} IN ints        some constant is an element
//   ALL {1, 2} IN ints        every constant is
//   ALL {0, 2} <= ALL ints    each constant at most every element
//   age == NONE {18, 21}      the property is none of them
//   age == {18, 21}           ANY is implied
//   ANY {1, 2, 3} > ALL {1, 2}  two lists: true or false for every object
//   {1, 2} == ints            no quantifier on either side and a to-many
//                             path: element by element, as realm-core
//
// The quantifier written first is the outer one; a side without one is ANY.

extension QueryCompiler {
    func listComparison(_ c: QueryComparison, _ path: ResolvedPath) throws -> RowFilter {
        guard case .list(let items, _) = c.right else {
            throw resolver.fail("ANY, ALL or NONE before a list need a list of constants", c.position)
        }
        let op: QueryOperator = c.op == .in ? .equal : c.op
        let tests = try items.map { try operandTest(op, $0, c, path) }
        let check = quantified(c.quantifier, path)
        let listQuantifier = c.listQuantifier
        if c.listIsOuter {
            return { realm, record, key in
                quantify(listQuantifier, tests) { check(realm, record, key, $0) }
            }
        }
        return { realm, record, key in
            check(realm, record, key) { operand in quantify(listQuantifier, tests) { $0(operand) } }
        }
    }
}

extension QueryCompiler {
    /// `{a, b} op path` or `path op {a, b}` with no quantifier: the path
    /// has as many values as the list and the i-th value stands in `op` to
    /// the i-th constant. realm-core's rule for `!=` is kept: lists of
    /// different lengths differ, lists of one length differ only if every
    /// pair does (and two empty lists are both equal and unequal).
    func elementWiseComparison(_ c: QueryComparison, _ path: ResolvedPath) throws -> RowFilter {
        guard case .list(let items, _) = c.right else {
            throw resolver.fail("Expected a list of constants to compare element by element", c.position)
        }
        let op: QueryOperator = c.op == .in ? .equal : c.op
        let tests = try items.map { try operandTest(op, $0, c, path) }
        let source = path.source, differentLengths = op == .notEqual
        return { realm, record, key in
            var count = 0, every = true
            _ = source(realm, record, key) { operand in
                if count < tests.count, every, !tests[count](operand) { every = false }
                count += 1
                return count <= tests.count
            }
            return count == tests.count ? every : differentLengths
        }
    }
}

/// ANY (also implicit), ALL or NONE of `items` satisfying `test`.
@inline(__always)
func quantify<T>(_ quantifier: QueryQuantifier, _ items: [T], _ test: (T) -> Bool) -> Bool {
    switch quantifier {
    case .all: items.allSatisfy(test)
    case .none: !items.contains(where: test)
    case .any, .implicit: items.contains(where: test)
    }
}

extension QueryParser {
    /// `Q1 {a, b} op Q2 {c, d}`: whether Q1 of the left constants stand in
    /// `op` to Q2 of the right ones. Numbers compare by value, strings (with
    /// the comparison's [c]/[d]) by code points, other values only when of
    /// the same kind; values of different kinds are unequal and unordered.
    func constantListComparison(_ outer: QueryQuantifier, _ left: [QueryValue], _ c: QueryComparison,
                                _ inner: QueryQuantifier, _ right: [QueryValue], at position: Int) throws -> Bool {
        let op: QueryOperator = c.op == .in ? .equal : c.op
        guard [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual].contains(op) else {
            throw lexer.error("two lists of constants compare with ==, !=, <, <=, >, >= or IN, not '\(op.rawValue)'", at: position)
        }
        func holds(_ a: QueryValue, _ b: QueryValue) -> Bool {
            guard let order = constantOrder(a, b, c) else { return op == .notEqual }
            switch op {
            case .equal: return order == 0
            case .notEqual: return order != 0
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        }
        return quantify(outer, left) { a in quantify(inner, right) { b in holds(a, b) } }
    }

    /// `{a, b} op {c, d}` without quantifiers: element by element, by the
    /// rule of `elementWiseComparison`.
    func constantListsElementWise(_ left: [QueryValue], _ c: QueryComparison, _ right: [QueryValue], at position: Int) throws -> Bool {
        guard left.count == right.count else {
            _ = try constantListComparison(.any, [], c, .any, [], at: position) // the operator's check
            return c.op == .notEqual
        }
        for (a, b) in zip(left, right) where !(try constantListComparison(.any, [a], c, .any, [b], at: position)) { return false }
        return true
    }

    private func constantOrder(_ a: QueryValue, _ b: QueryValue, _ c: QueryComparison) -> Int? {
        func order<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
        func number(_ v: QueryValue) -> Double? {
            switch v {
            case .int(let i): Double(i)
            case .double(let d): d
            case .decimal(let d): d.doubleValue
            default: nil
            }
        }
        if let x = number(a), let y = number(b) { return x.isNaN || y.isNaN ? nil : order(x, y) }
        switch (a, b) {
        case (.string(let x), .string(let y)):
            let ci = c.caseInsensitive, di = c.diacriticInsensitive
            let fx = foldString(x, caseInsensitive: ci, diacriticInsensitive: di)
            let fy = foldString(y, caseInsensitive: ci, diacriticInsensitive: di)
            if fx == fy { return 0 }
            return fx.unicodeScalars.lexicographicallyPrecedes(fy.unicodeScalars) { $0.value < $1.value } ? -1 : 1
        case (.bool(let x), .bool(let y)): return x == y ? 0 : nil
        case (.date(let x), .date(let y)): return order(x, y)
        case (.null, .null): return 0
        default: return nil
        }
    }
}
