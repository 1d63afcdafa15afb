import Foundation

// String comparisons between two properties of a row: `name BEGINSWITH
// prefix`, `name ==[c] nickname`, `ANY dogs.name CONTAINS[cd] name`. The
// right property has one value per row; its bytes (folded for [c]/[d])
// become the constant the left values are tested against.

extension QueryCompiler {
    func compareStringPaths(_ c: QueryComparison, _ left: ResolvedPath, _ right: ResolvedPath) throws -> RowFilter {
        let textual: Set<PropertyType> = [.string, .data]
        guard textual.contains(left.type), textual.contains(right.type), !left.isAggregate, !right.isAggregate else {
            let what = c.op.isStringOperator ? "'\(c.op.rawValue)'" : "Options [c] and [d]"
            throw resolver.fail("\(what) between two properties needs strings (or data), but '\(left.text)' is \(left.type) and '\(right.text)' is \(right.type)", c.position)
        }
        guard c.op.isStringOperator || c.op == .equal || c.op == .notEqual else {
            throw resolver.fail("Options [c] and [d] apply to ==, !=, BEGINSWITH, ENDSWITH, CONTAINS and LIKE, not '\(c.op.rawValue)'", c.position)
        }
        let op = c.op, ci = c.caseInsensitive, di = c.diacriticInsensitive, folding = ci || di
        func bytes(_ raw: UnsafeRawBufferPointer) -> [UInt8] {
            guard folding else { return Array(raw) }
            // ASCII has no diacritics and folds case byte by byte.
            if !raw.contains(where: { $0 >= 0x80 }) {
                return raw.map { ci && $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            }
            return Array(foldString(String(decoding: raw, as: UTF8.self), caseInsensitive: ci, diacriticInsensitive: di).utf8)
        }
        let rightSource = right.source
        let check = quantified(c.quantifier, left)
        return { realm, record, key in
            var constant: [UInt8]?
            _ = rightSource(realm, record, key) { operand in
                if case .raw(let raw) = operand { constant = bytes(raw) }
                return false
            }
            guard let constant else {
                // nil on the right: only == / != compare with it.
                return check(realm, record, key) { operand in
                    let isNull = if case .null = operand { true } else { false }
                    return op == .equal ? isNull : op == .notEqual ? !isNull : false
                }
            }
            let match = self.bytesTest(op, constant)
            return check(realm, record, key) { operand in
                guard case .raw(let raw) = operand else { return op == .notEqual }
                guard folding else { return match(raw) }
                return bytes(raw).withUnsafeBytes { match($0) }
            }
        }
    }
}
