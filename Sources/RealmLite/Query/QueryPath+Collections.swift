import Foundation

// Key path components after a collection (QueryPath.swift resolves up to
// it): `@count`/`@size`, aggregates, `@type` of mixed elements, a property
// of the linked objects, map subscripts (`map['key']`), `@keys`/`@values`,
// list subscripts (`list[0]`, `[FIRST]`, `[LAST]`, `[*]`), and the
// `@links` backlinks of an object. Also the length of a string (`@size`),
// and `@type` of values of a declared type (the type of each non-nil value).

/// A to-many property (or `@links.Class.property`) as the resolver sees it.
struct CollectionSource {
    /// Visits each element: its value (a map entry's value), `.null` for a
    /// nil element, `.int(key)` for a linking object.
    var elements: QuerySource
    var elementType: PropertyType
    var target: ClassInfo?
    var isObject: Bool
    var isMap: Bool
    var isList: Bool
    /// Elements start with a presence byte (collections of optionals).
    var tagged: Bool
    /// The stored element array (read out of the collections tree for a
    /// collection stored there): subscripts and @keys read it (nil for backlinks).
    var field: ((RealmCore, RecordView) -> ElementArrayView)?
    /// "Class.property", for messages.
    var name: String
}

/// An element's bytes as an operand (a tagged nil element is `.null`).
@inline(__always)
func elementOperand(_ element: UnsafeRawBufferPointer, tagged: Bool) -> QueryOperand {
    guard tagged else { return .raw(element) }
    return element.first == 1 ? .raw(UnsafeRawBufferPointer(rebasing: element[1...])) : .null
}

extension PathResolver {
    func collectionPath(_ c: CollectionSource, _ rest: ArraySlice<String>, position: Int, text: String) throws -> ResolvedPath {
        let elements = c.elements
        guard let next = rest.first else {
            return ResolvedPath(source: elements, type: c.elementType, isMulti: true, isOptional: c.tagged,
                                targetClass: c.isObject ? c.target : nil, endsInCollection: true, text: text)
        }
        let more = rest.dropFirst()
        // `[*]` is every element, as without it; `@values` every value of a map.
        if next == "[*]" || (c.isMap && (next == "@values" || next == "@allValues")) {
            return try collectionPath(c, more, position: position, text: text)
        }
        if next.hasPrefix("[") { return try subscriptPath(c, next, more, position: position, text: text) }
        if c.isMap && (next == "@keys" || next == "@allKeys") {
            if let extra = more.first { throw fail("Nothing can follow '\(next)' in '\(text)' ('\(extra)')", position) }
            return try keysPath(c, text: text)
        }
        if next == "@keys" || next == "@values" {
            throw fail("'\(next)' applies to Map properties, but '\(c.name)' is not one", position)
        }
        if next == "@type", c.elementType == .any || MixedTag(declared: c.elementType) != nil {
            if !more.isEmpty { throw fail("Nothing can follow '@type' in '\(text)'", position) }
            return ResolvedPath(source: elements, type: .any, isMulti: true, endsInCollection: true, typeOf: true,
                                declaredTag: MixedTag(declared: c.elementType), text: text)
        }
        if next.hasPrefix("@") {
            guard let op = CollectionAggregate(rawValue: next == "@size" ? "count" : String(next.dropFirst())) else {
                throw fail("Unknown collection operator '\(next)' (use @count, @size, @sum, @min, @max, @avg, @keys or @values)", position)
            }
            if op == .count {
                if !more.isEmpty { throw fail("Nothing can follow '\(next)' in '\(text)'", position) }
                return ResolvedPath(source: { realm, record, key, visit in
                    var n: Int64 = 0
                    _ = elements(realm, record, key) { _ in n += 1; return true }
                    return visit(.int(n))
                }, type: .int, isAggregate: true, text: text)
            }
            // @sum/@min/@max/@avg over the values, or over a property of linked objects.
            var valuesSource = elements
            var valueType = c.elementType
            if c.isObject {
                guard let target = c.target else { throw fail("Class of '\(c.name)' is not in the schema", position) }
                guard !more.isEmpty else {
                    throw fail("'\(next)' on objects needs a property: '\(text).property'", position)
                }
                let inner = try resolve(more, info: target, position: position, text: text)
                valuesSource = objectWalk(elements, target, inner.source)
                valueType = inner.type
            } else if !more.isEmpty {
                throw fail("Nothing can follow '\(next)' on a collection of values in '\(text)'", position)
            }
            return try aggregatePath(op, valuesSource, valueType, name: c.name, position: position, text: text)
        }
        guard c.isObject, let target = c.target else {
            throw fail("Property '\(c.name)' is a collection of \(c.elementType) values, so '\(next)' cannot follow it", position)
        }
        var inner = try resolve(rest, info: target, position: position, text: text)
        inner.source = objectWalk(elements, target, inner.source)
        inner.isMulti = true
        inner.directColumn = nil
        return inner
    }

    /// `map['key']` (the value, nil when the key is absent) or `list[n]`,
    /// `list[FIRST]`, `list[LAST]` (nil past the end): one value per object,
    /// followed by the rest of the key path for objects.
    private func subscriptPath(_ c: CollectionSource, _ component: String, _ more: ArraySlice<String>,
                               position: Int, text: String) throws -> ResolvedPath {
        guard let field = c.field else {
            throw fail("Subscripts apply to List and Map properties, not to '\(c.name)'", position)
        }
        let tagged = c.tagged
        let pick: (ElementArrayView) -> UnsafeRawBufferPointer?
        if c.isMap {
            guard component.hasPrefix("['") else {
                throw fail("A Map is subscripted by a key string ('\(c.name)[\"key\"]'), not '\(component)'", position)
            }
            let key = Array(component.dropFirst(2).dropLast(2).utf8)
            pick = { view in
                key.withUnsafeBytes { wanted in
                    let (index, found) = mapSearch(view, wanted)
                    return found ? MapEntry.split(view.element(index)).value : nil
                }
            }
        } else {
            guard c.isList else {
                throw fail("Only List and Map properties can be subscripted, not '\(c.name)' (a set has no order)", position)
            }
            switch component {
            case "[FIRST]": pick = { $0.count > 0 ? $0.element(0) : nil }
            case "[LAST]": pick = { $0.count > 0 ? $0.element($0.count - 1) : nil }
            default:
                guard let n = Int(component.dropFirst().dropLast()) else {
                    throw fail("A List is subscripted by an index, FIRST, LAST or *, not '\(component)'", position)
                }
                pick = { $0.count > n ? $0.element(n) : nil }
            }
        }
        let value: QuerySource = { realm, record, _, visit in
            let view = field(realm, record)
            guard let element = pick(view) else { return visit(.null) }
            return visit(elementOperand(element, tagged: tagged))
        }
        if c.elementType == .any, !more.isEmpty {
            return try resolveMixed(more, value, isMulti: false, position: position, text: text)
        }
        guard let next = more.first else {
            return ResolvedPath(source: value, type: c.elementType, isOptional: true,
                                targetClass: c.isObject ? c.target : nil, text: text)
        }
        guard c.isObject, let target = c.target else {
            throw fail("'\(c.name)' holds \(c.elementType) values, so '\(next)' cannot follow '\(component)'", position)
        }
        var inner = try resolve(more, info: target, position: position, text: text)
        let walk = inner.source
        inner.source = { realm, record, key, visit in
            value(realm, record, key) { operand in
                guard let linked = operand.linkedKey, let record = realm.linkedRecord(target, linked) else { return visit(.null) }
                return walk(realm, record, linked, visit)
            }
        }
        inner.isOptional = true
        inner.directColumn = nil
        return inner
    }

    /// `map.@keys`: each key of the map, as a string.
    private func keysPath(_ c: CollectionSource, text: String) throws -> ResolvedPath {
        guard let field = c.field else { throw fail("'@keys' applies to Map properties", -1) }
        return ResolvedPath(source: { realm, record, _, visit in
            let view = field(realm, record)
            for i in 0..<view.count where !visit(.raw(MapEntry.split(view.element(i)).key)) { return false }
            return true
        }, type: .string, isMulti: true, endsInCollection: true, text: text)
    }

    /// `@links.Class.property...`: the objects of `Class` linking here
    /// through `property` (a to-many path like a LinkingObjects property);
    /// `@links.@count` (or `@size`): how many objects link here through any
    /// property of any class.
    func backlinksPath(_ rest: ArraySlice<String>, info: ClassInfo, position: Int, text: String) throws -> ResolvedPath {
        let links = info.incomingLinks.compactMap { link in link.origin.map { ($0, $0.columns[link.column]) } }
        // AnyRealmValue properties (and their lists and dictionaries) link too.
        let mixedLinks = info.mixedLinkSources.compactMap { link in link.origin.map { ($0, $0.columns[link.column]) } }
        let className = info.name
        if rest.first == "@count" || rest.first == "@size" {
            if rest.count > 1 { throw fail("Nothing can follow '@links.\(rest.first!)' in '\(text)'", position) }
            return ResolvedPath(source: { realm, _, key, visit in
                var n = 0
                for (_, column) in links { n += realm.backlinkSources(column, target: key).count }
                if !mixedLinks.isEmpty {
                    let target = MixedLink(className: className, key: key)
                    for (_, column) in mixedLinks { n += realm.mixedBacklinkSources(column, target: target).count }
                }
                return visit(.int(Int64(n)))
            }, type: .int, isAggregate: true, text: text)
        }
        guard rest.count >= 2 else {
            throw fail("'@links' must be followed by a class and one of its properties ('@links.Class.property') or by @count", position)
        }
        let originName = rest.first!, propertyName = rest.dropFirst().first!
        let sources: (RealmCore, UInt64) -> [UInt64]
        let origin: ClassInfo
        if let (linkOrigin, column) = links.first(where: { $0.0.name == originName && $0.1.name == propertyName }) {
            origin = linkOrigin
            sources = { realm, key in realm.backlinkSources(column, target: key) }
        } else if let (mixedOrigin, column) = mixedLinks.first(where: { $0.0.name == originName && $0.1.name == propertyName }) {
            origin = mixedOrigin
            sources = { realm, key in realm.mixedBacklinkSources(column, target: MixedLink(className: className, key: key)) }
        } else {
            let known = (links + mixedLinks).map { "\($0.0.name).\($0.1.name)" }.joined(separator: ", ")
            throw fail("No property '\(originName).\(propertyName)' links to class '\(info.name)' (links: \(known.isEmpty ? "none" : known))", position)
        }
        let collection = CollectionSource(elements: { realm, _, key, visit in
            for source in sources(realm, key) where !visit(.int(Int64(bitPattern: source))) { return false }
            return true
        }, elementType: .object, target: origin, isObject: true, isMap: false, isList: false, tagged: false,
           field: nil, name: "@links.\(originName).\(propertyName)")
        return try collectionPath(collection, rest.dropFirst(2), position: position, text: text)
    }

    /// `string.@size` (also `@count`): the length of a string or data value
    /// in bytes (UTF-8 for strings), as Realm counts it; nil for nil.
    func lengthPath(_ slot: ColumnSlot, _ layout: RecordLayout, _ column: Column, text: String) -> ResolvedPath {
        ResolvedPath(source: { _, record, _, visit in
            record.isNull(slot) ? visit(.null) : visit(.int(Int64(record.field(slot, layout).count)))
        }, type: .int, isAggregate: true, isOptional: column.isOptional, text: text)
    }
}

extension MixedTag {
    /// The type `@type` reports for a value of a declared (non-mixed) type.
    init?(declared type: PropertyType) {
        switch type {
        case .int: self = .int
        case .bool: self = .bool
        case .float: self = .float
        case .double: self = .double
        case .string: self = .string
        case .data: self = .data
        case .date: self = .date
        case .objectId: self = .objectId
        case .decimal128: self = .decimal128
        case .UUID: self = .uuid
        case .object: self = .object
        default: return nil
        }
    }
}
