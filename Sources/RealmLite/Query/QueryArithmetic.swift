import Foundation

// Arithmetic in predicates: `age * 2 > 50`, `(price - discount) / 2 <= 10`,
// `ANY dogs.age * 2 > 10`. Operands are numbers and numeric key paths (int,
// float, double, decimal128, including aggregates such as `ints.@sum`), as
// realm-core's rule (Mixed::is_numeric): dates, strings and the other types
// take none. Two ints give an int (wrapping on overflow; `/` divides as
// ints, and by 0 gives the largest or smallest int, as realm-core's Mixed
// division); anything with a float or double gives a double; anything with
// a decimal128 gives a decimal128. nil on either side gives nil, which satisfies only
// `== nil` and `!=`. One side may be to-many (each of its values with the
// other side's one value); both to-many is refused, as in realm-core.

/// `a op b` of two constants, or nil if they are not both numbers.
func foldArithmetic(_ op: Character, _ a: QueryValue, _ b: QueryValue) -> QueryValue? {
    switch (a, b) {
    case (.int(let x), .int(let y)):
        return .int(applyArithmetic(op, x, y))
    case (.decimal, _), (_, .decimal):
        guard let x = a.arithmeticDecimal, let y = b.arithmeticDecimal else { return nil }
        return .decimal(applyArithmetic(op, x, y))
    default:
        guard let x = a.arithmeticDouble, let y = b.arithmeticDouble else { return nil }
        return .double(applyArithmetic(op, x, y))
    }
}

private extension QueryValue {
    var arithmeticDouble: Double? {
        switch self {
        case .int(let v): Double(v)
        case .double(let v): v
        default: nil
        }
    }

    var arithmeticDecimal: Decimal128? {
        switch self {
        case .int(let v): Decimal128(Int(v))
        case .double(let v): Decimal128(v)
        case .decimal(let v): v
        default: nil
        }
    }
}

/// An operand of a numeric path of `type` as a decimal128 (raw bytes are
/// read by the property's type).
private func decimalOperand(_ operand: QueryOperand, _ type: PropertyType) -> Decimal128? {
    guard case .raw = operand, type != .decimal128 else { return operandDecimal(operand) }
    if type == .int, let i = operandInt(operand) { return Decimal128(Int(i)) }
    return operandDouble(operand, type).map { Decimal128($0) }
}

@inline(__always)
func applyArithmetic(_ op: Character, _ x: Int64, _ y: Int64) -> Int64 {
    switch op {
    case "+": return x &+ y
    case "-": return x &- y
    case "*": return x &* y
    default:
        if y == 0 { return x < 0 ? .min : .max }
        return x.dividedReportingOverflow(by: y).partialValue
    }
}

@inline(__always)
func applyArithmetic(_ op: Character, _ x: Double, _ y: Double) -> Double {
    switch op {
    case "+": x + y
    case "-": x - y
    case "*": x * y
    default: x / y
    }
}

func applyArithmetic(_ op: Character, _ x: Decimal128, _ y: Decimal128) -> Decimal128 {
    switch op {
    case "+": x + y
    case "-": x - y
    case "*": x * y
    default: x / y
    }
}

extension QueryCompiler {
    func arithmeticPath(_ op: Character, _ left: QueryExpression, _ right: QueryExpression, _ position: Int) throws -> ResolvedPath {
        let a = try arithmeticOperand(left, op), b = try arithmeticOperand(right, op)
        if a.isMulti && b.isMulti {
            throw resolver.fail("Operations involving two lists are not supported ('\(a.text) \(op) \(b.text)': both go through to-many relationships; Realm allows one)", position)
        }
        let decimal = a.type == .decimal128 || b.type == .decimal128
        let ints = a.type == .int && b.type == .int
        let typeA = a.type, typeB = b.type
        let combine: (QueryOperand, QueryOperand) -> QueryOperand = { x, y in
            if case .null = x { return .null }
            if case .null = y { return .null }
            if decimal {
                guard let u = decimalOperand(x, typeA), let v = decimalOperand(y, typeB) else { return .null }
                return .decimal(applyArithmetic(op, u, v))
            }
            if ints, let i = operandInt(x), let j = operandInt(y) {
                return .int(applyArithmetic(op, i, j))
            }
            guard let u = operandDouble(x, typeA), let v = operandDouble(y, typeB) else { return .null }
            return .double(applyArithmetic(op, u, v))
        }
        let type: PropertyType = decimal ? .decimal128 : ints ? .int : .double
        let text = "(\(a.text) \(op) \(b.text))"
        let sourceA = a.source, sourceB = b.source
        if a.isMulti || b.isMulti {
            // Each value of the to-many side with the one value of the other.
            let multiIsLeft = a.isMulti
            let many = multiIsLeft ? sourceA : sourceB, one = multiIsLeft ? sourceB : sourceA
            return ResolvedPath(source: { realm, record, key, visit in
                var single = QueryOperand.null
                _ = one(realm, record, key) { single = $0; return false }
                return many(realm, record, key) { value in visit(multiIsLeft ? combine(value, single) : combine(single, value)) }
            }, type: type, isAggregate: true, isMulti: true, isOptional: true, text: text)
        }
        return ResolvedPath(source: { realm, record, key, visit in
            var x = QueryOperand.null, y = QueryOperand.null
            _ = sourceA(realm, record, key) { x = $0; return false }
            _ = sourceB(realm, record, key) { y = $0; return false }
            return visit(combine(x, y))
        }, type: type, isAggregate: true, isOptional: true, text: text)
    }

    /// One side of an arithmetic operation: a number, or a numeric key path.
    private func arithmeticOperand(_ expression: QueryExpression, _ op: Character) throws -> ResolvedPath {
        if case .value(let value, let position) = expression {
            switch value {
            case .int(let v): return ResolvedPath(source: { _, _, _, visit in visit(.int(v)) }, type: .int, isAggregate: true, text: "\(v)")
            case .double(let v): return ResolvedPath(source: { _, _, _, visit in visit(.double(v)) }, type: .double, isAggregate: true, text: "\(v)")
            case .decimal(let v): return ResolvedPath(source: { _, _, _, visit in visit(.decimal(v)) }, type: .decimal128, isAggregate: true, text: "\(v)")
            default: throw resolver.fail("Cannot perform '\(op)' on \(value) (\(value.kindName)): Realm's arithmetic takes numbers only", position)
            }
        }
        let path = try resolvePath(expression)
        guard [.int, .float, .double, .decimal128].contains(path.type) else {
            throw resolver.fail("Cannot perform '\(op)' on '\(path.text)' (\(path.type)): Realm's arithmetic takes int, float, double and decimal128 values only", expression.position)
        }
        return path
    }
}
