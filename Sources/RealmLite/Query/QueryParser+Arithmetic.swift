import Foundation

// Arithmetic operands of a predicate (QueryArithmetic.swift evaluates them):
//
//   expression := term (("+" | "-") term)*
//   term       := factor (("*" | "/") factor)*
//   factor     := ("-" | "+") factor | "(" expression ")" | operand

extension QueryParser {
    /// True if `token` goes on with an operand (an operator or arithmetic),
    /// so a parenthesized part before it was an operand, not a predicate.
    func continuesOperand(_ token: QueryToken) -> Bool {
        switch token.kind {
        case .symbol(let s): return ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "+", "-", "*", "/"].contains(s)
        case .number(let text): return text.hasPrefix("-") || text.hasPrefix("+")
        case .identifier(let word): return QueryOperator(rawValue: word.uppercased()) != nil
        default: return false
        }
    }

    mutating func parseExpression() throws -> QueryExpression {
        var left = try parseTerm()
        while true {
            let token = current
            if isSymbol("+") || isSymbol("-") {
                index += 1
                left = try arithmetic(token.kind == .symbol("+") ? "+" : "-", left, try parseTerm(), token)
            } else if case .number(let text) = token.kind, text.hasPrefix("-") || text.hasPrefix("+") {
                // `age -1` lexes as age, -1: a subtraction (or addition).
                index += 1
                let number = QueryExpression.value(try self.number(String(text.dropFirst()), token), position: token.position + 1)
                left = try arithmetic(text.first!, left, try continueTerm(number), token)
            } else {
                return left
            }
        }
    }

    private mutating func parseTerm() throws -> QueryExpression {
        try continueTerm(try parseFactor())
    }

    private mutating func continueTerm(_ first: QueryExpression) throws -> QueryExpression {
        var left = first
        while isSymbol("*") || isSymbol("/") {
            let token = current
            index += 1
            left = try arithmetic(token.kind == .symbol("*") ? "*" : "/", left, try parseFactor(), token)
        }
        return left
    }

    private mutating func parseFactor() throws -> QueryExpression {
        if isSymbol("-") || isSymbol("+") {
            // A sign before an operand that is not a number literal: -inf, -(age + 1).
            let token = current
            index += 1
            let operand = try parseFactor()
            guard token.kind == .symbol("-") else { return operand }
            return try arithmetic("*", .value(.int(-1), position: token.position), operand, token)
        }
        guard isSymbol("(") else { return try parseOperand() }
        let open = current.position
        index += 1
        let inner = try parseExpression()
        try expectSymbol(")", "to close the '(' at position \(open)")
        return inner
    }

    /// `left op right`; two numbers are folded into one.
    /// `{8, 10} / 2` is the list of each constant's result, as in realm-core.
    private func arithmetic(_ op: Character, _ left: QueryExpression, _ right: QueryExpression, _ token: QueryToken) throws -> QueryExpression {
        for side in [left, right] {
            let values: [QueryValue]
            switch side {
            case .list(let items, _): values = items
            case .value(let v, _): values = [v]
            default: values = []
            }
            for v in values {
                switch v {
                case .int, .double, .decimal, .null: break
                default: throw lexer.error("Cannot perform '\(op)' on \(v) (\(v.kindName)): Realm's arithmetic takes numbers only", at: side.position)
                }
            }
        }
        func fold(_ a: QueryValue, _ b: QueryValue) -> QueryValue {
            if case .null = a { return .null }
            if case .null = b { return .null }
            return foldArithmetic(op, a, b) ?? .null
        }
        switch (left, right) {
        case (.value(let a, _), .value(let b, _)):
            return .value(fold(a, b), position: left.position)
        case (.list(let items, _), .value(let b, _)):
            return .list(items.map { fold($0, b) }, position: left.position)
        case (.value(let a, _), .list(let items, _)):
            return .list(items.map { fold(a, $0) }, position: left.position)
        case (.list, .list):
            throw lexer.error("Operations involving two lists are not supported", at: token.position)
        case (.list, _), (_, .list):
            throw lexer.error("arithmetic between a list of constants and a property is not supported; put the property on the other side of the comparison", at: token.position)
        default:
            return .arithmetic(op, left, right, position: token.position)
        }
    }
}
