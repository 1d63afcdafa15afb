import Foundation

// A list of constants compared with a property under two quantifiers:
// `ANY {1, 2} IN ints` (some constant is an element), `ALL {1, 2} IN ints`
// (every one is), `NONE {5, 9} == ints`, `ALL {6, 7} <= ALL ints` (each
// constant at most every element). The first quantifier ranges over the
// constants, the second (ANY unless written) over the property's values.

extension QueryCompiler {
    func listComparison(_ c: QueryComparison, _ path: ResolvedPath) throws -> RowFilter {
        guard case .list(let items, _) = c.right else {
            throw resolver.fail("ANY, ALL or NONE before a list need a list of constants", c.position)
        }
        let tests = try items.map { try operandTest(c.op, $0, c, path) }
        let check = quantified(c.quantifier, path)
        switch c.listQuantifier {
        case .all:
            return { realm, record, key in tests.allSatisfy { check(realm, record, key, $0) } }
        case .none:
            return { realm, record, key in !tests.contains { check(realm, record, key, $0) } }
        case .any, .implicit:
            return { realm, record, key in tests.contains { check(realm, record, key, $0) } }
        }
    }
}
