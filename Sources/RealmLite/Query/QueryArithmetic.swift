import Foundation

// Arithmetic in predicates: `age * 2 > 50`, `(price - discount) / 2 <= 10`.
// Operands are numbers and single-valued numeric key paths (int, float,
// double, including aggregates such as `ints.@sum`). Ints stay ints under
// + - * (wrapping on overflow); `/` and anything with a float or double gives
// a double. nil on either side gives nil, which satisfies only `== nil` and `!=`.

/// `a op b` of two constants, or nil if they are not both numbers.
func foldArithmetic(_ op: Character, _ a: QueryValue, _ b: QueryValue) -> QueryValue? {
    switch (a, b) {
    case (.int(let x), .int(let y)) where op != "/":
        return .int(op == "+" ? x &+ y : op == "-" ? x &- y : x &* y)
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

extension QueryCompiler {
    func arithmeticPath(_ op: Character, _ left: QueryExpression, _ right: QueryExpression, _ position: Int) throws -> ResolvedPath {
        let a = try arithmeticOperand(left), b = try arithmeticOperand(right)
        let ints = a.type == .int && b.type == .int && op != "/"
        let sourceA = a.source, sourceB = b.source, typeA = a.type, typeB = b.type
        return ResolvedPath(source: { realm, record, key, visit in
            var x = QueryOperand.null, y = QueryOperand.null
            _ = sourceA(realm, record, key) { x = $0; return false }
            _ = sourceB(realm, record, key) { y = $0; return false }
            if ints, let i = operandInt(x), let j = operandInt(y) {
                return visit(.int(op == "+" ? i &+ j : op == "-" ? i &- j : i &* j))
            }
            guard let u = operandDouble(x, typeA), let v = operandDouble(y, typeB) else { return visit(.null) }
            return visit(.double(applyArithmetic(op, u, v)))
        }, type: ints ? .int : .double, isAggregate: true, isOptional: true, text: "(\(a.text) \(op) \(b.text))")
    }

    /// One side of an arithmetic operation: a number, or a numeric key path
    /// with one value per object.
    private func arithmeticOperand(_ expression: QueryExpression) throws -> ResolvedPath {
        if case .value(let value, let position) = expression {
            switch value {
            case .int(let v): return ResolvedPath(source: { _, _, _, visit in visit(.int(v)) }, type: .int, isAggregate: true, text: "\(v)")
            case .double(let v): return ResolvedPath(source: { _, _, _, visit in visit(.double(v)) }, type: .double, isAggregate: true, text: "\(v)")
            default: throw resolver.fail("Arithmetic needs numbers, not \(value.kindName)", position)
            }
        }
        let path = try resolvePath(expression)
        guard [.int, .float, .double].contains(path.type), !path.endsInCollection else {
            throw resolver.fail("Arithmetic needs int, float or double properties, but '\(path.text)' is \(path.type)", expression.position)
        }
        if path.isMulti {
            throw resolver.fail("Arithmetic needs one value per object, but '\(path.text)' goes through a to-many relationship", expression.position)
        }
        return path
    }
}
