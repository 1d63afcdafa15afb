import Foundation

// `self` in a query of a collection of values (`ints.filter("self > 3")`,
// `where { $0 > 3 }`). The compiled filter is handed each element's stored
// bytes in place of a record, and the `self` path visits them as one operand:
// comparisons, [c]/[d], IN, BETWEEN, LIKE and the AnyRealmValue rules are the
// compiler's own, exactly as for `ANY ints > 3` on the owning object.

/// How a collection of values stores its elements.
struct ValueElementType {
    let type: PropertyType
    /// Elements start with a presence byte (collections of optionals).
    let tagged: Bool

    /// The element itself, read from the bytes passed as the record.
    var selfPath: ResolvedPath {
        let tagged = self.tagged
        return ResolvedPath(source: { _, element, _, visit in
            visit(elementOperand(UnsafeRawBufferPointer(start: element.base, count: element.size), tagged: tagged))
        }, type: type, isOptional: tagged, text: "self")
    }
}

extension PathResolver {
    /// A key path of a value query: `self`, or what may follow it (`@type`,
    /// `@size` of a string or data value, and into an AnyRealmValue). The
    /// builder's root (`$0`) is the empty path.
    func resolveSelf(_ components: [String], _ selfPath: ResolvedPath, position: Int) throws -> ResolvedPath {
        let text = components.isEmpty ? "self" : components.joined(separator: ".")
        guard components.isEmpty || components[0] == "self" else {
            throw fail("A collection of \(selfPath.type) values has no properties: compare the values themselves with 'self' ('self > 3'), not '\(text)'", position)
        }
        let rest = components.dropFirst()
        guard let next = rest.first else { return selfPath }
        if selfPath.type == .any { return try resolveMixed(rest, selfPath.source, isMulti: false, position: position, text: text) }
        if rest.count == 1, next == "@type", let tag = MixedTag(declared: selfPath.type) {
            return ResolvedPath(source: selfPath.source, type: .any, typeOf: true, declaredTag: tag, text: text)
        }
        if rest.count == 1, next == "@size" || next == "@count", selfPath.type == .string || selfPath.type == .data {
            let source = selfPath.source
            return ResolvedPath(source: { realm, element, key, visit in
                source(realm, element, key) { operand in
                    guard case .raw(let bytes) = operand else { return visit(.null) }
                    return visit(.int(Int64(bytes.count)))
                }
            }, type: .int, isAggregate: true, isOptional: selfPath.isOptional, text: text)
        }
        throw fail("'\(next)' cannot follow 'self' on a collection of \(selfPath.type) values", position)
    }
}
