import Foundation

// Comparisons with object literals (QueryParser+Objects.swift): a link or an
// AnyRealmValue `==` / `!=` obj('Class', primaryKey) or O123. The primary
// key is looked up when the query is evaluated, in the snapshot being read
// (the object with that key may be deleted and added again between
// evaluations): one lookup per object evaluated, none for a class keyed by
// an int primary key, whose object key is the primary key.

extension QueryCompiler {
    /// The filter of `path op literal`; nil if `c.right` is no object literal.
    func objectLiteralFilter(_ c: QueryComparison, _ path: ResolvedPath) throws -> RowFilter? {
        guard case .value(let value, let position) = c.right else { return nil }
        let className: String?
        let objectKey: UInt64?
        let primaryKey: QueryValue?
        switch value {
        case .objectReference(let name, let key): (className, objectKey, primaryKey) = (name, nil, key)
        case .objectKey(let key): (className, objectKey, primaryKey) = (nil, key, nil)
        default: return nil
        }
        guard c.op == .equal || c.op == .notEqual, !c.caseInsensitive, !c.diacriticInsensitive else {
            throw resolver.fail("An object compares with == or != only, not '\(c.op.rawValue)'", c.position)
        }
        let check = quantified(c.quantifier, path)
        let equal = c.op == .equal
        if path.type == .object {
            guard let target = path.targetClass else { throw mismatch(value, c, path) }
            if let className, className != target.name {
                throw resolver.fail("'\(path.text)' links to class '\(target.name)' and cannot be compared with \(value), an object of class '\(className)'", position)
            }
            let resolve = try keyResolver(target, objectKey, primaryKey, value, position)
            return { realm, record, key in
                let wanted = resolve(realm)
                return check(realm, record, key) { operand in
                    guard let linked = operand.linkedKey, let wanted else { return !equal }
                    return (linked == wanted) == equal
                }
            }
        }
        guard path.type == .any else { throw mismatch(value, c, path) }
        guard let className, let primaryKey else {
            throw resolver.fail("\(value) names an object key of the class a link targets, but '\(path.text)' is an AnyRealmValue (any class): use obj('Class', primaryKey) or %@", position)
        }
        // An AnyRealmValue may link to any class of the schema: the class is
        // found in the snapshot's schema when evaluated.
        return { realm, record, key in
            guard let target = realm.schemaState.byName[className],
                  let resolve = try? self.keyResolver(target, nil, primaryKey, value, position),
                  let wanted = resolve(realm) else { return check(realm, record, key) { _ in !equal } }
            var bytes: [UInt8] = []
            appendMixedLink(MixedLink(className: className, key: wanted), to: &bytes)
            return check(realm, record, key) { operand in
                guard let view = mixedView(operand) else { return !equal }
                let same = bytes.withUnsafeBytes { compareMixed(view, MixedView($0)!) } == 0
                return same == equal
            }
        }
    }

    /// How to find the literal's object key in a snapshot (nil: no such object).
    private func keyResolver(_ target: ClassInfo, _ objectKey: UInt64?, _ primaryKey: QueryValue?, _ value: QueryValue,
                             _ position: Int) throws -> (RealmCore) -> UInt64? {
        if let objectKey { return { _ in objectKey } }
        guard let primaryKey, let column = target.primaryKeyColumn else {
            throw resolver.fail("Class '\(target.name)' has no primary key, so \(value) names no object; declare one with @Persisted(primaryKey: true)", position)
        }
        if case .null = primaryKey, !target.columns[column].isOptional { return { _ in nil } }
        guard let entry = indexKeyOf(primaryKey, target.columns[column]) else {
            throw resolver.fail("The primary key of '\(target.name)' is \(target.columns[column].type), not \(primaryKey.kindName) as in \(value)", position)
        }
        return { realm in realm.primaryKeyLookup(target, entry: entry) }
    }
}
