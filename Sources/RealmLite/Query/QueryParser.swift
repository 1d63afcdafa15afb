import Foundation
import Synchronization

// Predicate strings: Realm's query language (docs/QUERIES.md).
// A hand-written lexer and recursive-descent parser; every error names the
// character position of the offending token.
//
//   predicate  := or
//   or         := and (("OR" | "||") and)*
//   and        := not (("AND" | "&&") not)*
//   not        := ("NOT" | "!") not | "(" predicate ")" | TRUEPREDICATE | FALSEPREDICATE | comparison
//   comparison := [ANY | SOME | ALL | NONE] expression op ["[" c|d|cd "]"] [ANY | ALL | NONE] expression
//   expression := arithmetic on operands (QueryParser+Arithmetic.swift)
//   operand    := keypath | literal | %@ | %K | %d | %f | $n | "{" literal, ... "}"
//   keypath    := name ("." name | "." @op | "[" index | 'key' | FIRST | LAST | SIZE | * | argument "]")*

struct QueryToken {
    enum Kind: Equatable {
        case identifier(String)     // names and keywords
        case collectionOperator(String) // @count, @sum...
        case string(String)
        case number(String)
        case symbol(String)         // == != < ( ) { } , . [ ] && || !
        case argument(Character)    // %@ %K %d %f
        case positional(Int)        // $0, $1
        case typed(String, String)  // oid(...), uuid(...)
        case date(Date)             // date literals (QueryParser+Dates.swift)
        case end
    }
    let kind: Kind
    let position: Int
}

struct QueryLexer {
    let chars: [Character]
    let source: String

    init(_ source: String) {
        self.source = source
        chars = Array(source)
    }

    func error(_ message: String, at position: Int) -> Realm.Error {
        let shown = position >= chars.count ? "the end" : "position \(position)"
        return .query("Invalid predicate '\(source)': \(message) at \(shown).")
    }

    func tokenize() throws -> [QueryToken] {
        var tokens: [QueryToken] = []
        var i = 0
        func isIdentStart(_ c: Character) -> Bool { c.isLetter || c == "_" }
        func isIdent(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }
        while i < chars.count {
            let c = chars[i]
            let start = i
            if c.isWhitespace { i += 1; continue }
            if let (date, end) = try dateLiteral(at: i) {
                tokens.append(QueryToken(kind: .date(date), position: start))
                i = end
                continue
            }
            if let end = typedLinkLiteral(at: i) {
                tokens.append(QueryToken(kind: .typed("typedlink", String(chars[i..<end])), position: start))
                i = end
                continue
            }
            if isIdentStart(c) {
                while i < chars.count, isIdent(chars[i]) { i += 1 }
                let word = String(chars[start..<i])
                if word == "B64", i < chars.count, chars[i] == "\"" {
                    // B64"...": data given in base 64.
                    guard let close = chars[(i + 1)...].firstIndex(of: "\"") else { throw error("expected '\"' to close B64\"", at: i) }
                    tokens.append(QueryToken(kind: .typed("b64", String(chars[(i + 1)..<close])), position: start))
                    i = close + 1
                    continue
                }
                if ["oid", "uuid", "bin", "binary"].contains(word.lowercased()), i < chars.count, chars[i] == "(" {
                    guard let close = chars[i...].firstIndex(of: ")") else {
                        throw error("expected ')' to close \(word)(", at: i)
                    }
                    let text = String(chars[(i + 1)..<close]).trimmingCharacters(in: .whitespaces)
                    tokens.append(QueryToken(kind: .typed(word.lowercased(), text), position: start))
                    i = close + 1
                    continue
                }
                tokens.append(QueryToken(kind: .identifier(word), position: start))
                continue
            }
            if c == "@" {
                i += 1
                while i < chars.count, isIdent(chars[i]) { i += 1 }
                if i == start + 1 { throw error("'@' must be followed by a collection operator (@count, @sum...)", at: start) }
                tokens.append(QueryToken(kind: .collectionOperator(String(chars[(start + 1)..<i]).lowercased()), position: start))
                continue
            }
            if c.isNumber || (c == "-" || c == "+" || c == ".") && i + 1 < chars.count && chars[i + 1].isNumber {
                i += 1
                if c == "0", i < chars.count, chars[i] == "x" || chars[i] == "X" {
                    i += 1
                    while i < chars.count, chars[i].isHexDigit { i += 1 }
                } else {
                    while i < chars.count, chars[i].isNumber || chars[i] == "." { i += 1 }
                    if i < chars.count, chars[i] == "e" || chars[i] == "E" {
                        i += 1
                        if i < chars.count, chars[i] == "-" || chars[i] == "+" { i += 1 }
                        while i < chars.count, chars[i].isNumber { i += 1 }
                    }
                }
                if i < chars.count, isIdentStart(chars[i]) { throw error("malformed number", at: start) }
                tokens.append(QueryToken(kind: .number(String(chars[start..<i])), position: start))
                continue
            }
            if c == "'" || c == "\"" {
                i += 1
                var text = ""
                var closed = false
                while i < chars.count {
                    let d = chars[i]
                    if d == c { closed = true; i += 1; break }
                    if d == "\\", i + 1 < chars.count {
                        let e = chars[i + 1]
                        switch e {
                        case "n": text.append("\n")
                        case "t": text.append("\t")
                        case "r": text.append("\r")
                        case "0": text.append("\0")
                        default: text.append(e)
                        }
                        i += 2
                        continue
                    }
                    text.append(d)
                    i += 1
                }
                if !closed { throw error("unterminated string starting", at: start) }
                tokens.append(QueryToken(kind: .string(text), position: start))
                continue
            }
            if c == "%" {
                guard i + 1 < chars.count else { throw error("'%' must be followed by @, K, d, i or f", at: start) }
                var j = i + 1
                while j < chars.count, chars[j] == "l" || chars[j] == "q" { j += 1 } // %ld, %lld
                guard j < chars.count, "@Kdifu".contains(chars[j]) else {
                    throw error("unknown argument '%\(j < chars.count ? String(chars[j]) : "")'; use %@, %K, %d or %f", at: start)
                }
                tokens.append(QueryToken(kind: .argument(chars[j]), position: start))
                i = j + 1
                continue
            }
            if c == "$", i + 1 < chars.count, isIdentStart(chars[i + 1]) {
                // A SUBQUERY variable: lexed as a name.
                i += 1
                while i < chars.count, isIdent(chars[i]) { i += 1 }
                tokens.append(QueryToken(kind: .identifier(String(chars[start..<i])), position: start))
                continue
            }
            if c == "$" {
                i += 1
                while i < chars.count, chars[i].isNumber { i += 1 }
                guard let n = Int(String(chars[(start + 1)..<i])) else { throw error("'$' must be followed by an argument number", at: start) }
                tokens.append(QueryToken(kind: .positional(n), position: start))
                continue
            }
            let two = i + 1 < chars.count ? String(chars[i...(i + 1)]) : ""
            if ["==", "!=", "<>", "<=", ">=", "=<", "=>", "&&", "||"].contains(two) {
                tokens.append(QueryToken(kind: .symbol(two), position: start))
                i += 2
                continue
            }
            if "=<>(){},.[]!*+-/".contains(c) {
                tokens.append(QueryToken(kind: .symbol(String(c)), position: start))
                i += 1
                continue
            }
            throw error("unexpected character '\(c)'", at: start)
        }
        tokens.append(QueryToken(kind: .end, position: chars.count))
        return tokens
    }
}

/// SORT / DISTINCT / LIMIT after a predicate string.
enum QueryDescriptor {
    case sort([SortDescriptor])
    case distinct([String])
    case limit(Int)
}

struct QueryParser {
    private let format: String
    /// Only error messages need the lexer (its characters): made on demand.
    var lexer: QueryLexer { QueryLexer(format) }
    private let tokens: [QueryToken]
    var index = 0
    private let arguments: [Any]
    private var nextArgument = 0

    /// Parses `format` with its arguments; every argument must be used.
    /// A predicate without SORT / DISTINCT / LIMIT.
    static func parse(_ format: String, _ arguments: [Any]) throws -> QueryPredicate {
        let (predicate, descriptors) = try parseWithDescriptors(format, arguments)
        if !descriptors.isEmpty {
            throw Realm.Error.query("Invalid predicate '\(format)': SORT, DISTINCT and LIMIT are only accepted by filter().")
        }
        return predicate
    }

    /// A predicate followed by any number of `SORT(a ASC, b DESC)`,
    /// `DISTINCT(a, b)`, `LIMIT(n)`, applied in order.
    static func parseWithDescriptors(_ format: String, _ arguments: [Any]) throws -> (QueryPredicate, [QueryDescriptor]) {
        var parser = try QueryParser(format, arguments)
        let predicate = try parser.parseOr()
        var descriptors: [QueryDescriptor] = []
        while let word = parser.keyword(parser.current), ["SORT", "DISTINCT", "LIMIT"].contains(word) {
            descriptors.append(try parser.parseDescriptor(word))
        }
        guard case .end = parser.current.kind else {
            throw parser.lexer.error("unexpected \(parser.describe(parser.current))", at: parser.current.position)
        }
        if parser.nextArgument < arguments.count {
            throw Realm.Error.query("Invalid predicate '\(format)': \(arguments.count) arguments given but the format uses \(parser.nextArgument).")
        }
        return (predicate, descriptors)
    }

    private mutating func parseDescriptor(_ word: String) throws -> QueryDescriptor {
        let start = current.position
        index += 1
        try expectSymbol("(", "after \(word)")
        if word == "LIMIT" {
            guard case .number(let text) = current.kind, let n = Int(text), n >= 0 else {
                throw lexer.error("LIMIT needs a non-negative integer", at: current.position)
            }
            index += 1
            try expectSymbol(")", "to close the LIMIT opened at position \(start)")
            return .limit(n)
        }
        var sorts: [SortDescriptor] = []
        var paths: [String] = []
        while true {
            let token = current
            guard case .keyPath(let components, _) = try parseOperand() else {
                throw lexer.error("\(word) needs property names", at: token.position)
            }
            let path = components.joined(separator: ".")
            if word == "SORT" {
                switch keyword(current) {
                case "ASC", "ASCENDING": index += 1; sorts.append(SortDescriptor(keyPath: path, ascending: true))
                case "DESC", "DESCENDING": index += 1; sorts.append(SortDescriptor(keyPath: path, ascending: false))
                default: throw lexer.error("expected ASC or DESC after '\(path)' in SORT, found \(describe(current))", at: current.position)
                }
            } else {
                paths.append(path)
            }
            if isSymbol(",") { index += 1; continue }
            break
        }
        try expectSymbol(")", "to close the \(word) opened at position \(start)")
        return word == "SORT" ? .sort(sorts) : .distinct(paths)
    }

    private init(_ format: String, _ arguments: [Any]) throws {
        self.format = format
        tokens = try Self.tokens(format)
        self.arguments = arguments
    }

    /// Tokens of recently used formats: apps run the same few query strings
    /// again and again, and lexing by Character costs more than a filtered
    /// count of 10k objects. Tokens do not depend on the arguments.
    private static let recentTokens = Mutex<[String: [QueryToken]]>([:])

    private static func tokens(_ format: String) throws -> [QueryToken] {
        if let tokens = recentTokens.withLock({ $0[format] }) { return tokens }
        let tokens = try QueryLexer(format).tokenize()
        recentTokens.withLock { cache in
            if cache.count >= 256 { cache.removeAll(keepingCapacity: true) }
            cache[format] = tokens
        }
        return tokens
    }

    var current: QueryToken { tokens[index] }

    private func describe(_ token: QueryToken) -> String {
        switch token.kind {
        case .identifier(let s): "'\(s)'"
        case .collectionOperator(let s): "'@\(s)'"
        case .string(let s): "string '\(s)'"
        case .number(let s): "number \(s)"
        case .symbol(let s): "'\(s)'"
        case .argument(let c): "'%\(c)'"
        case .positional(let n): "'$\(n)'"
        case .typed(let kind, let text): "'\(kind)(\(text))'"
        case .date(let date): "date \(date)"
        case .end: "end of the predicate"
        }
    }

    private func keyword(_ token: QueryToken) -> String? {
        if case .identifier(let s) = token.kind { return s.uppercased() }
        return nil
    }

    func isSymbol(_ s: String) -> Bool {
        if case .symbol(let t) = current.kind { return t == s }
        return false
    }

    mutating func expectSymbol(_ s: String, _ context: String) throws {
        guard isSymbol(s) else { throw lexer.error("expected '\(s)' \(context), found \(describe(current))", at: current.position) }
        index += 1
    }

    private mutating func parseOr() throws -> QueryPredicate {
        var left = try parseAnd()
        while keyword(current) == "OR" || isSymbol("||") {
            index += 1
            left = .or(left, try parseAnd())
        }
        return left
    }

    private mutating func parseAnd() throws -> QueryPredicate {
        var left = try parseNot()
        while keyword(current) == "AND" || isSymbol("&&") {
            index += 1
            left = .and(left, try parseNot())
        }
        return left
    }

    private mutating func parseNot() throws -> QueryPredicate {
        if keyword(current) == "NOT" || isSymbol("!") {
            index += 1
            return .not(try parseNot())
        }
        if isSymbol("(") {
            // A group of predicates, or the start of an arithmetic operand: `(age + 1) * 2 > 10`.
            let saved = (index, nextArgument)
            do {
                let open = current.position
                index += 1
                let inner = try parseOr()
                guard isSymbol(")") else {
                    throw lexer.error("expected ')' to close the '(' at position \(open), found \(describe(current))", at: current.position)
                }
                index += 1
                if !continuesOperand(current) { return inner }
            } catch let groupError {
                (index, nextArgument) = saved
                do { return try parseComparison() } catch { throw groupError }
            }
            (index, nextArgument) = saved
            return try parseComparison()
        }
        switch keyword(current) {
        case "TRUEPREDICATE": index += 1; return .constant(true)
        case "FALSEPREDICATE": index += 1; return .constant(false)
        default: return try parseComparison()
        }
    }

    private func quantifierKeyword(_ token: QueryToken) -> QueryQuantifier? {
        switch keyword(token) {
        case "ANY", "SOME": .any
        case "ALL": .all
        case "NONE": QueryQuantifier.none
        default: nil
        }
    }

    private mutating func parseComparison() throws -> QueryPredicate {
        let start = current.position
        var quantifier = QueryQuantifier.implicit
        if let leading = quantifierKeyword(current) {
            quantifier = leading
            index += 1
        }
        if case .end = current.kind { throw lexer.error("expected a comparison", at: current.position) }
        let left = try parseExpression()
        if let geo = try parseGeoWithin(quantifier, left, start) { return geo }
        let opToken = current
        let op: QueryOperator
        switch opToken.kind {
        case .symbol("=="), .symbol("="): op = .equal
        case .symbol("!="), .symbol("<>"): op = .notEqual
        case .symbol("<"): op = .less
        case .symbol("<="), .symbol("=<"): op = .lessOrEqual
        case .symbol(">"): op = .greater
        case .symbol(">="), .symbol("=>"): op = .greaterOrEqual
        case .identifier(let word):
            guard let named = QueryOperator(rawValue: word.uppercased()), named.isStringOperator || named == .in || named == .between || named == .text else {
                throw lexer.error("expected an operator (==, !=, <, >, BEGINSWITH, IN...) after the operand, found \(describe(opToken))", at: opToken.position)
            }
            op = named
        default:
            throw lexer.error("expected an operator (==, !=, <, >, BEGINSWITH, IN...) after the operand, found \(describe(opToken))", at: opToken.position)
        }
        index += 1
        var comparison = QueryComparison(quantifier: quantifier, left: left, op: op, right: left, position: start)
        if isSymbol("[") {
            let open = current.position
            index += 1
            guard case .identifier(let flags) = current.kind,
                  flags.lowercased().allSatisfy({ $0 == "c" || $0 == "d" }) else {
                throw lexer.error("expected option c, d or cd inside '[...]'", at: current.position)
            }
            comparison.caseInsensitive = flags.lowercased().contains("c")
            comparison.diacriticInsensitive = flags.lowercased().contains("d")
            index += 1
            guard isSymbol("]") else { throw lexer.error("expected ']' to close the options opened at position \(open)", at: current.position) }
            index += 1
        }
        if case .end = current.kind { throw lexer.error("expected a value after '\(op.rawValue)'", at: current.position) }
        if case .list(let constants, _) = left {
            // `ANY {1, 2} IN [ALL] path`: each constant against the path's values;
            // `{1, 2} == path` (no quantifier on either side): element by element.
            let rightQuantifier = quantifierKeyword(current)
            if rightQuantifier != nil { index += 1 }
            let at = current.position
            let path = try parseExpression()
            let unquantified = quantifier == .implicit && rightQuantifier == nil
            if case .list(let others, _) = path {
                // Two lists of constants: decided here, for every object.
                if unquantified { return .constant(try constantListsElementWise(constants, comparison, others, at: at)) }
                return .constant(try constantListComparison(quantifier == .implicit ? .any : quantifier, constants, comparison,
                                                            rightQuantifier ?? .any, others, at: at))
            }
            guard let flipped = op.flippedToCollection else {
                throw lexer.error("'\(op.rawValue)' cannot compare a list of constants with a property; use ==, !=, <, <=, >, >= or IN", at: opToken.position)
            }
            guard path.isPath else { throw lexer.error("expected a property after '\(op.rawValue)' to compare the list with", at: at) }
            comparison.listQuantifier = quantifier == .implicit ? .any : quantifier
            comparison.listUnquantified = unquantified
            comparison.quantifier = rightQuantifier ?? .implicit
            comparison.left = path
            comparison.right = left
            comparison.op = flipped
            return .comparison(comparison)
        }
        if let rightQuantifier = quantifierKeyword(current) {
            let at = current.position
            index += 1
            let right = try parseExpression()
            if case .list = right {
                // `age == NONE {18, 21}`: the property's values against the constants.
                comparison.right = right
                comparison.listQuantifier = rightQuantifier
                comparison.listIsOuter = false
                return .comparison(comparison)
            }
            // `value op ANY path` is `ANY path flipped-op value`.
            guard quantifier == .implicit else { throw lexer.error("ANY, ALL or NONE may stand on one side of a comparison only", at: at) }
            guard let flipped = op.flippedToCollection else {
                throw lexer.error("'\(op.rawValue)' cannot take ANY, ALL or NONE on its right; put the collection on the left", at: at)
            }
            comparison.quantifier = rightQuantifier
            comparison.right = comparison.left
            comparison.left = right
            comparison.op = flipped
            return .comparison(comparison)
        }
        comparison.right = try parseExpression()
        if case .list = comparison.right, op != .between {
            // `age == {18, 21}` means `age == ANY {18, 21}`; on a to-many
            // path, `ints == {1, 2}` compares element by element (compiler).
            comparison.listUnquantified = quantifier == .implicit
            if op != .in {
                comparison.listQuantifier = .any
                comparison.listIsOuter = false
            }
        }
        return .comparison(comparison)
    }

    /// `path GEOWITHIN shape`, or `path IN %@` with a shape argument
    /// (GeoQuery.swift reads the shape); nil for any other operator.
    private mutating func parseGeoWithin(_ quantifier: QueryQuantifier, _ left: QueryExpression, _ start: Int) throws -> QueryPredicate? {
        let word = keyword(current)
        guard word == "GEOWITHIN" || word == "IN" && isShapeArgument(tokens[index + 1]) else { return nil }
        index += 1
        var reader = GeoLiteralReader(tokens: tokens, index: index, lexer: lexer)
        let shape = try reader.shape { try self.argument(for: $0) }
        index = reader.index
        return .geoWithin(QueryGeoWithin(quantifier: quantifier, left: left, shape: shape, position: start))
    }

    private func isShapeArgument(_ token: QueryToken) -> Bool {
        switch token.kind {
        case .argument("@"): nextArgument < arguments.count && GeoShape(argument: arguments[nextArgument]) != nil
        case .positional(let n): n < arguments.count && GeoShape(argument: arguments[n]) != nil
        default: false
        }
    }

    /// The value of an argument token (%@, %d, %f or $n).
    private mutating func argument(for token: QueryToken) throws -> Any {
        guard case .positional(let n) = token.kind else { return try takeArgument(token) }
        guard n < arguments.count else {
            throw lexer.error("argument $\(n) is missing (\(arguments.count) given)", at: token.position)
        }
        nextArgument = max(nextArgument, n + 1)
        return arguments[n]
    }

    private mutating func takeArgument(_ token: QueryToken) throws -> Any {
        guard nextArgument < arguments.count else {
            throw lexer.error("argument \(nextArgument + 1) is missing (\(arguments.count) given)", at: token.position)
        }
        defer { nextArgument += 1 }
        return arguments[nextArgument]
    }

    mutating func parseOperand() throws -> QueryExpression {
        let token = current
        switch token.kind {
        case .identifier(let name):
            switch name.uppercased() {
            case "TRUE", "YES": index += 1; return .value(.bool(true), position: token.position)
            case "FALSE", "NO": index += 1; return .value(.bool(false), position: token.position)
            case "NIL", "NULL": index += 1; return .value(.null, position: token.position)
            case "INF", "INFINITY": index += 1; return .value(.double(.infinity), position: token.position)
            case "NAN": index += 1; return .value(.double(.nan), position: token.position)
            case "SUBQUERY":
                if index + 1 < tokens.count, case .symbol("(") = tokens[index + 1].kind { return try parseSubquery() }
            case "OBJ":
                if index + 1 < tokens.count, case .symbol("(") = tokens[index + 1].kind { return try parseObjectLiteral() }
            default: break
            }
            if let key = objectKeyLiteral(name) {
                index += 1
                return .value(.objectKey(key), position: token.position)
            }
            return try parseKeyPath(first: [name])
        case .collectionOperator("links"):
            return try parseKeyPath(first: ["@links"])
        case .argument(let kind):
            index += 1
            let arg = try takeArgument(token)
            if kind == "K" {
                guard let path = arg as? String else {
                    throw lexer.error("%K needs a key path string, got \(type(of: arg))", at: token.position)
                }
                return try parseKeyPath(first: path.split(separator: ".").map(String.init), position: token.position, consumed: true)
            }
            return try argumentValue(arg, token)
        case .positional:
            index += 1
            return try argumentValue(try argument(for: token), token)
        case .string(let s):
            index += 1
            return .value(.string(s), position: token.position)
        case .typed(let kind, let text):
            index += 1
            return try typedLiteral(kind, text, token)
        case .date(let date):
            index += 1
            return .value(.date(date), position: token.position)
        case .number(let text):
            index += 1
            return .value(try number(text, token), position: token.position)
        case .symbol("{"):
            index += 1
            var items: [QueryValue] = []
            if !isSymbol("}") {
                while true {
                    let itemToken = current
                    guard case .value(let value, _) = try parseOperand() else {
                        throw lexer.error("a '{...}' list holds values, not key paths or lists", at: itemToken.position)
                    }
                    items.append(value)
                    if isSymbol(",") { index += 1; continue }
                    break
                }
            }
            try expectSymbol("}", "to close the list opened at position \(token.position)")
            return .list(items, position: token.position)
        default:
            throw lexer.error("expected a property name or a value, found \(describe(token))", at: token.position)
        }
    }

    func number(_ text: String, _ token: QueryToken) throws -> QueryValue {
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            guard let v = Int64(text.dropFirst(2), radix: 16) else { throw lexer.error("malformed number '\(text)'", at: token.position) }
            return .int(v)
        }
        if let v = Int64(text) { return .int(v) }
        // More significant digits than a Double keeps (Decimal128 takes 15
        // from a Double): a decimal128, so a Decimal128 property compares with
        // the digits written. Other numeric properties take its Double.
        if significantDigits(text) > 15, let v = try? Decimal128(string: text) { return .decimal(v) }
        if let v = Double(text) { return .double(v) }
        throw lexer.error("malformed number '\(text)'", at: token.position)
    }

    private func argumentValue(_ arg: Any, _ token: QueryToken) throws -> QueryExpression {
        if !isNil(arg), let sequence = unwrapOptional(arg) as? any Sequence, !(unwrapOptional(arg) is String), !(unwrapOptional(arg) is Data) {
            var items: [QueryValue] = []
            for element in AnySequence(sequence.map { $0 as Any }) {
                guard let value = QueryValue.from(element) else {
                    throw lexer.error("unsupported argument element of type \(type(of: element))", at: token.position)
                }
                items.append(value)
            }
            return .list(items, position: token.position)
        }
        guard let value = QueryValue.from(arg) else {
            throw lexer.error("unsupported argument of type \(type(of: unwrapOptional(arg)))", at: token.position)
        }
        return .value(value, position: token.position)
    }

    private func typedLiteral(_ kind: String, _ text: String, _ token: QueryToken) throws -> QueryExpression {
        if kind == "typedlink" { throw typedLinkError(text, token) }
        if kind == "b64" || kind == "bin" || kind == "binary" {
            guard let data = binaryLiteral(kind, text) else {
                throw lexer.error("'\(text)' is not valid binary data (use bin('text') or B64\"base64\")", at: token.position)
            }
            return .value(.data(data), position: token.position)
        }
        if kind == "oid" {
            guard let oid = try? ObjectId(string: text) else { throw lexer.error("'\(text)' is not a valid object id", at: token.position) }
            return .value(.objectId(oid), position: token.position)
        }
        guard let uuid = UUID(uuidString: text) else { throw lexer.error("'\(text)' is not a valid uuid", at: token.position) }
        return .value(.uuid(uuid), position: token.position)
    }

    /// `B64"..."`, or `bin(...)` / `binary(...)` around a quoted string or a `B64"..."`.
    private func binaryLiteral(_ kind: String, _ text: String) -> Data? {
        if kind == "b64" { return Data(base64Encoded: text) }
        if text.hasPrefix("B64\""), text.hasSuffix("\""), text.count >= 5 { return Data(base64Encoded: String(text.dropFirst(4).dropLast())) }
        guard text.count >= 2, let quote = text.first, quote == "'" || quote == "\"", text.last == quote else { return nil }
        return Data(text.dropFirst().dropLast().utf8)
    }

    /// SUBQUERY(keypath, $var, predicate).@count
    private mutating func parseSubquery() throws -> QueryExpression {
        let start = current.position
        index += 2
        guard case .keyPath(let collection, _) = try parseOperand() else {
            throw lexer.error("SUBQUERY needs a collection key path first", at: start)
        }
        try expectSymbol(",", "after the SUBQUERY collection")
        guard case .identifier(let variable) = current.kind, variable.hasPrefix("$") else {
            throw lexer.error("expected a variable such as $x as the second SUBQUERY argument, found \(describe(current))", at: current.position)
        }
        index += 1
        try expectSymbol(",", "after the SUBQUERY variable")
        let predicate = try parseOr()
        try expectSymbol(")", "to close the SUBQUERY opened at position \(start)")
        try expectSymbol(".", "after SUBQUERY(...): only SUBQUERY(...).@count is supported")
        guard case .collectionOperator(let op) = current.kind, op == "count" || op == "size" else {
            throw lexer.error("only SUBQUERY(...).@count is supported, found \(describe(current))", at: current.position)
        }
        index += 1
        return .subquery(QuerySubquery(collection: collection, variable: variable, predicate: predicate), position: start)
    }

    /// `[0]`, `['key']`, `[*]`, `[FIRST]`, `[LAST]` after a key path (into
    /// the collections nested in an AnyRealmValue): a component spelled
    /// `[0]`, `['key']`, `[*]`, `[FIRST]` or `[LAST]` (MixedQuery.swift).
    private mutating func parseSubscript() throws -> String {
        let start = current.position
        index += 1
        let component: String
        switch current.kind {
        case .number(let text):
            guard let n = Int(text), n >= 0 else { throw lexer.error("expected a list index (0, 1, ...) inside [ ], found \(describe(current))", at: current.position) }
            component = "[\(n)]"
        case .string(let key): component = "['\(key)']"
        case .symbol("*"): component = "[*]"
        case .identifier(let word) where ["FIRST", "LAST"].contains(word.uppercased()): component = "[\(word.uppercased())]"
        case .identifier(let word) where word.uppercased() == "SIZE": component = "@size"
        case .argument("@"), .argument("d"), .argument("i"), .positional:
            // An index or key given as an argument.
            let arg: Any
            if case .positional(let n) = current.kind {
                guard n < arguments.count else { throw lexer.error("argument $\(n) is missing (\(arguments.count) given)", at: current.position) }
                nextArgument = max(nextArgument, n + 1)
                arg = arguments[n]
            } else {
                arg = try takeArgument(current)
            }
            switch QueryValue.from(arg) {
            case .int(let n) where n >= 0: component = "[\(n)]"
            case .string(let key): component = "['\(key)']"
            default: throw lexer.error("a subscript argument must be an index (0, 1, ...) or a key string, got \(type(of: arg))", at: current.position)
            }
        default: throw lexer.error("expected an index, a 'key', * , FIRST or LAST inside [ ], found \(describe(current))", at: current.position)
        }
        index += 1
        try expectSymbol("]", "to close the subscript opened at position \(start)")
        return component
    }

    private mutating func parseKeyPath(first: [String], position: Int? = nil, consumed: Bool = false) throws -> QueryExpression {
        let start = position ?? current.position
        if !consumed { index += 1 }
        var components = first
        while isSymbol(".") || isSymbol("[") {
            if isSymbol("[") {
                components.append(try parseSubscript())
                continue
            }
            index += 1
            switch current.kind {
            case .identifier(let name): components.append(name)
            case .collectionOperator(let op): components.append("@" + op)
            default: throw lexer.error("expected a property name after '.', found \(describe(current))", at: current.position)
            }
            index += 1
        }
        return .keyPath(components, position: start)
    }
}


/// The significant digits of a number literal: without leading zeros, the
/// fraction's trailing zeros, or the exponent.
private func significantDigits(_ text: String) -> Int {
    let mantissa = text.prefix { $0 != "e" && $0 != "E" }
    var digits = mantissa.filter(\.isNumber).drop { $0 == "0" }
    if mantissa.contains(".") { while digits.last == "0" { digits.removeLast() } }
    return digits.count
}
