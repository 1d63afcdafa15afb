import Foundation

// Queries on AnyRealmValue ("mixed") properties and collections, evaluated
// on the stored bytes (MixedCodec.swift) as Realm's Mixed comparisons do:
// numbers compare by value across int, float, double and Decimal128; strings
// and data compare by bytes with each other; other types only with their
// own; values of different type classes are never equal and never ordered.
// `prop.@type` compares the stored type with a name. docs/QUERIES.md.

extension QueryCompiler {
    /// The test of one mixed operand against one constant.
    func mixedTest(_ op: QueryOperator, _ value: QueryValue, _ c: QueryComparison,
                   _ path: ResolvedPath) throws -> (QueryOperand) -> Bool {
        if path.typeOf { return try mixedTypeTest(op, value, c, path) }
        if case .null = value {
            guard op == .equal || op == .notEqual else {
                throw resolver.fail("nil can only be compared with == or !=, not '\(op.rawValue)'", c.right.position)
            }
            let wantNull = op == .equal
            return { operand in (mixedView(operand) == nil) == wantNull }
        }
        if op.isStringOperator || c.caseInsensitive || c.diacriticInsensitive {
            return try mixedStringTest(op, value, c, path)
        }
        guard let bytes = mixedConstantBytes(value) else {
            // An unmanaged object (or one of another Realm) is linked by no value.
            return { _ in op == .notEqual }
        }
        return { operand in
            guard let view = mixedView(operand) else { return op == .notEqual }
            let order = bytes.withUnsafeBytes { compareMixed(view, MixedView($0)!) }
            guard let order else { return op == .notEqual }
            return self.ordered(op, order)
        }
    }

    /// BEGINSWITH, CONTAINS... and [c]/[d] comparisons: true only for string
    /// (and data) values.
    private func mixedStringTest(_ op: QueryOperator, _ value: QueryValue, _ c: QueryComparison,
                                 _ path: ResolvedPath) throws -> (QueryOperand) -> Bool {
        let constant: String
        switch value {
        case .string(let s): constant = s
        case .data(let d): constant = String(decoding: d, as: UTF8.self)
        default: throw mismatch(value, c, path)
        }
        let ci = c.caseInsensitive, di = c.diacriticInsensitive
        let folding = ci || di
        let match = bytesTest(op, Array((folding ? foldString(constant, caseInsensitive: ci, diacriticInsensitive: di) : constant).utf8))
        return { operand in
            guard let view = mixedView(operand), view.tag == .string || view.tag == .data else { return op == .notEqual }
            guard folding else { return match(view.payload) }
            var folded = foldString(String(decoding: view.payload, as: UTF8.self), caseInsensitive: ci, diacriticInsensitive: di)
            return folded.withUTF8 { match(UnsafeRawBufferPointer($0)) }
        }
    }

    /// `prop.@type == 'int'` (also !=, IN): the stored type against a name.
    private func mixedTypeTest(_ op: QueryOperator, _ value: QueryValue, _ c: QueryComparison,
                               _ path: ResolvedPath) throws -> (QueryOperand) -> Bool {
        guard op == .equal || op == .notEqual, case .string(let name) = value else {
            throw resolver.fail("'\(path.text)' compares with a type name ('int', 'numeric', 'string'...) using ==, != or IN", c.position)
        }
        guard let tags = mixedTypeNames[name.lowercased()] else {
            let known = mixedTypeNames.keys.sorted().joined(separator: ", ")
            throw resolver.fail("Unknown type '\(name)' for '\(path.text)' (types: \(known))", c.right.position)
        }
        let wanted = op == .equal
        if let declared = path.declaredTag {
            return { operand in
                let tag: MixedTag = if case .null = operand { .none } else { declared }
                return tags.contains(tag) == wanted
            }
        }
        return { operand in tags.contains(mixedView(operand)?.tag ?? .none) == wanted }
    }

    /// The index encoding of a constant for a mixed column.
    func mixedIndexKey(_ value: QueryValue) -> [UInt8]? {
        mixedConstantBytes(value).map { bytes in bytes.withUnsafeBytes { indexedMixedKey($0) } }
    }
}

extension PathResolver {
    /// Key path components after an AnyRealmValue property: `@type`,
    /// `@size` / `@count` of a nested collection, and subscripts into it —
    /// `[0]`, `[FIRST]`, `[LAST]` (lists), `['key']` (dictionaries), `[*]`
    /// (every element or value: a to-many path).
    func resolveMixed(_ rest: ArraySlice<String>, _ source: @escaping QuerySource, isMulti: Bool,
                      position: Int, text: String) throws -> ResolvedPath {
        guard let next = rest.first else { return ResolvedPath(source: source, type: .any, isMulti: isMulti, text: text) }
        let more = rest.dropFirst()
        if next.hasPrefix("@") {
            guard more.isEmpty else { throw fail("Nothing can follow '\(next)' in '\(text)'", position) }
            switch next {
            case "@type":
                return ResolvedPath(source: source, type: .any, isMulti: isMulti, typeOf: true, text: text)
            case "@size", "@count":
                return ResolvedPath(source: { realm, record, key, visit in
                    source(realm, record, key) { operand in
                        guard let view = mixedView(operand), view.tag == .list || view.tag == .dictionary else { return visit(.null) }
                        return visit(.int(Int64(ElementArrayView(bytes: view.payload).count)))
                    }
                }, type: .int, isAggregate: true, isMulti: isMulti, isOptional: true, text: text)
            default:
                throw fail("'\(next)' cannot follow the AnyRealmValue in '\(text)' (use @type, @size, [index], ['key'] or [*])", position)
            }
        }
        guard let select = mixedSubscript(next) else {
            throw fail("'\(next)' cannot follow the AnyRealmValue in '\(text)' (use @type, @size, [index], ['key'] or [*])", position)
        }
        let all = next == "[*]"
        let elements: QuerySource = { realm, record, key, visit in
            source(realm, record, key) { operand in
                let picked = mixedView(operand).map(select) ?? []
                if picked.isEmpty && !all { return visit(.null) }
                for element in picked where !visit(.raw(element)) { return false }
                return true
            }
        }
        return try resolveMixed(more, elements, isMulti: isMulti || all, position: position, text: text)
    }
}

/// The elements a subscript component picks from a nested list or
/// dictionary (their stored mixed values).
private func mixedSubscript(_ component: String) -> ((MixedView) -> [UnsafeRawBufferPointer])? {
    func elements(_ view: MixedView) -> (ElementArrayView, isMap: Bool)? {
        guard view.tag == .list || view.tag == .dictionary else { return nil }
        return (ElementArrayView(bytes: view.payload), view.tag == .dictionary)
    }
    func value(_ array: ElementArrayView, _ i: Int, _ isMap: Bool) -> UnsafeRawBufferPointer {
        isMap ? MapEntry.split(array.element(i)).value : array.element(i)
    }
    switch component {
    case "[*]":
        return { view in
            guard let (array, isMap) = elements(view) else { return [] }
            return (0..<array.count).map { value(array, $0, isMap) }
        }
    case "[FIRST]", "[LAST]":
        let last = component == "[LAST]"
        return { view in
            guard view.tag == .list, let (array, _) = elements(view), array.count > 0 else { return [] }
            return [array.element(last ? array.count - 1 : 0)]
        }
    default:
        if component.hasPrefix("['"), component.hasSuffix("']") {
            let key = Array(component.dropFirst(2).dropLast(2).utf8)
            return { view in
                guard view.tag == .dictionary else { return [] }
                let array = ElementArrayView(bytes: view.payload)
                let search = key.withUnsafeBytes { mapSearch(array, $0) }
                return search.found ? [MapEntry.split(array.element(search.index)).value] : []
            }
        }
        guard component.hasPrefix("["), component.hasSuffix("]"), let index = Int(component.dropFirst().dropLast()) else { return nil }
        return { view in
            guard view.tag == .list else { return [] }
            let array = ElementArrayView(bytes: view.payload)
            return index < array.count ? [array.element(index)] : []
        }
    }
}

/// The numbers among mixed values, as doubles (aggregates over mixed values
/// skip every other type, as Realm's do).
func mixedNumbers(_ values: @escaping QuerySource) -> QuerySource {
    { realm, record, key, visit in
        values(realm, record, key) { operand in
            guard let view = mixedView(operand), view.isNumeric else { return true }
            return visit(.double(view.doubleValue))
        }
    }
}

/// `@type` names (Realm Query Language) and the stored types each matches.
private let mixedTypeNames: [String: Set<MixedTag>] = {
    var names: [String: Set<MixedTag>] = [:]
    for tag in [MixedTag.none, .int, .bool, .float, .double, .string, .data, .date, .objectId, .decimal128, .uuid, .object, .list, .dictionary] {
        names[tag.typeName] = [tag]
    }
    names["numeric"] = [.int, .float, .double, .decimal128]
    names["data"] = [.data]
    names["timestamp"] = [.date]
    names["decimal128"] = [.decimal128]
    names["link"] = [.object]
    names["collection"] = [.list, .dictionary]
    return names
}()

/// The stored mixed value of an operand; nil for nil (.none).
func mixedView(_ operand: QueryOperand) -> MixedView? {
    guard case .raw(let bytes) = operand, let view = MixedView(bytes), view.tag != .none else { return nil }
    return view
}

/// A query constant in the stored mixed form; nil for an object that is
/// not managed (no stored value links to it).
func mixedConstantBytes(_ value: QueryValue) -> [UInt8]? {
    var out: [UInt8] = []
    func scalar<T: _RealmPrimitive>(_ tag: MixedTag, _ v: T) { appendMixed(tag, v, to: &out) }
    switch value {
    case .null: out.append(MixedTag.none.rawValue)
    case .bool(let v): scalar(.bool, v)
    case .int(let v): scalar(.int, v)
    case .double(let v): scalar(.double, v)
    case .string(let v): scalar(.string, v)
    case .data(let v): scalar(.data, v)
    case .date(let v): scalar(.date, v)
    case .objectId(let v): scalar(.objectId, v)
    case .uuid(let v): scalar(.uuid, v)
    case .decimal(let v): scalar(.decimal128, v)
    case .object(let object):
        guard object._realm != nil, !object._deleted, let info = object._info else { return nil }
        appendMixedLink(MixedLink(className: info.name, key: object._key), to: &out)
    case .objectReference, .objectKey:
        return nil
    }
    return out
}
