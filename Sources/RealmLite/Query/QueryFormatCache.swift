// `filter("name == %@", x)` in a loop parsed the same format once per
// value: tokenizing the format (an array of Characters) cost more than
// the lookup it asked for. A format of the shape `keyPath op %@` with one
// String or Int argument parses to the same comparison whatever the
// argument, so its comparison is kept per format string, and later calls
// only put their argument in. The shape is a fact of the text alone (the
// parser knows no schema): a kept comparison is still compiled against the
// class of each query, so it holds nothing a schema change, another file
// or a migration could make stale.

enum QueryFormatCache {
    /// What a format string parsed to with one String or Int argument.
    enum Shape {
        /// `template`, whose right operand is the argument.
        case comparison(QueryComparison)
        /// Anything else: parsed every time.
        case other
    }

    /// Formats seen, shared by every thread and Realm. Emptied when full
    /// (formats built with their values inside would grow it forever).
    private static let shapes = Protected<[String: Shape]>([:])
    static let capacity = 256

    /// `QueryParser.parseWithDescriptors(format, arguments)`, without
    /// parsing a format of a known shape again.
    static func parse(_ format: String, _ arguments: [Any]) throws -> (QueryPredicate, [QueryDescriptor]) {
        guard arguments.count == 1, let value = plainArgument(arguments[0]) else {
            return try QueryParser.parseWithDescriptors(format, arguments)
        }
        if let shape = shapes.withLock({ $0[format] }) {
            guard case .comparison(var template) = shape else { return try QueryParser.parseWithDescriptors(format, arguments) }
            template.right = .value(value, position: template.right.position)
            return (.comparison(template), [])
        }
        let parsed = try QueryParser.parseWithDescriptors(format, arguments)
        let shape = classify(format, parsed, value)
        shapes.withLock { shapes in
            if shapes.count >= capacity { shapes.removeAll(keepingCapacity: true) }
            shapes[format] = shape
        }
        return parsed
    }

    /// True once `format` has a kept shape (tests).
    static func isComparison(_ format: String) -> Bool {
        shapes.withLock { if case .comparison = $0[format] { true } else { false } }
    }

    /// The constant a String or Int argument stands for, as the parser
    /// reads it (QueryValue.from); nil for every other type.
    private static func plainArgument(_ argument: Any) -> QueryValue? {
        let type = type(of: argument)
        guard type == String.self || type == Int.self else { return nil }
        return QueryValue.from(argument)
    }

    /// `.comparison` when `parsed` is one comparison of a key path with the
    /// argument as it was given: parsed again with another argument of the
    /// same type, only the right operand may change, and to that argument
    /// (a literal, `%K`, or arithmetic on the argument fails one check).
    private static func classify(_ format: String, _ parsed: (QueryPredicate, [QueryDescriptor]), _ value: QueryValue) -> Shape {
        guard parsed.1.isEmpty, case .comparison(let c) = parsed.0, case .keyPath(let path, _) = c.left,
              case .value(let parsedValue, _) = c.right, same(parsedValue, value) else { return .other }
        let other: QueryValue, argument: Any
        switch value {
        case .string(let s): (other, argument) = (.string(s + "\u{1}"), s + "\u{1}")
        case .int(let v): (other, argument) = (.int(v == .max ? v - 1 : v + 1), Int(v == .max ? v - 1 : v + 1))
        default: return .other
        }
        guard let again = try? QueryParser.parseWithDescriptors(format, [argument]), again.1.isEmpty,
              case .comparison(let d) = again.0, case .keyPath(let path2, _) = d.left, path2 == path,
              case .value(let value2, _) = d.right, same(value2, other),
              d.op == c.op, d.quantifier == c.quantifier, d.listQuantifier == c.listQuantifier,
              d.listUnquantified == c.listUnquantified, d.caseInsensitive == c.caseInsensitive,
              d.diacriticInsensitive == c.diacriticInsensitive else { return .other }
        return .comparison(c)
    }

    private static func same(_ a: QueryValue, _ b: QueryValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): x.utf8.elementsEqual(y.utf8)
        case (.int(let x), .int(let y)): x == y
        default: false
        }
    }
}
