import Foundation

// Object literals, as realm-core's parser reads them:
//
//   obj('Class', primaryKey)   the object of Class with that primary key
//                              (a number, string, oid(...), uuid(...), or
//                              an argument)
//   O123                       the object whose object key is 123, in the
//                              class the compared link targets
//   L<table>:<object>          realm-core's typed link: refused (below)
//
// QueryObjectLiterals.swift compares links and AnyRealmValues with them.

extension QueryLexer {
    /// The end of an `L<digits>:<digits>` literal starting at `i`.
    func typedLinkLiteral(at i: Int) -> Int? {
        guard chars[i] == "L" else { return nil }
        var j = i + 1
        func digits() -> Bool {
            let start = j
            while j < chars.count, chars[j].isASCII, chars[j].isNumber { j += 1 }
            return j > start
        }
        guard digits(), j < chars.count, chars[j] == ":" else { return nil }
        j += 1
        guard digits() else { return nil }
        if j < chars.count, chars[j].isLetter || chars[j].isNumber || chars[j] == "_" { return nil }
        return j
    }
}

extension QueryParser {
    /// `O123` as an object key; nil for any other name.
    func objectKeyLiteral(_ name: String) -> UInt64? {
        guard name.count > 1, name.first == "O", name.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt64(name.dropFirst())
    }

    /// realm-core's typed links name a table by its numeric table key; a
    /// RealmLite file keeps classes by name and has no table keys.
    func typedLinkError(_ text: String, _ token: QueryToken) -> Realm.Error {
        lexer.error("the typed link '\(text)' names a realm-core table key, which RealmLite files do not have; use obj('Class', primaryKey) or pass the object as %@", at: token.position)
    }

    /// `obj('Class', primaryKey)`.
    mutating func parseObjectLiteral() throws -> QueryExpression {
        let start = current.position
        index += 2
        guard case .string(let className) = current.kind else {
            throw lexer.error("obj(...) takes a class name string first: obj('Class', primaryKey)", at: current.position)
        }
        index += 1
        try expectSymbol(",", "after the class name in obj(...)")
        let keyToken = current
        guard case .value(let key, _) = try parseOperand() else {
            throw lexer.error("obj(...) takes a primary key value second: obj('Class', primaryKey)", at: keyToken.position)
        }
        switch key {
        case .int, .string, .objectId, .uuid, .null: break
        default: throw lexer.error("\(key) (\(key.kindName)) cannot be a primary key in obj(...); use an int, a string, oid(...) or uuid(...)", at: keyToken.position)
        }
        try expectSymbol(")", "to close the obj( opened at position \(start)")
        return .value(.objectReference(className, key), position: start)
    }
}
