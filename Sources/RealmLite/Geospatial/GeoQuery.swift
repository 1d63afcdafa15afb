import Foundation

// geoWithin in queries: the predicate node, the shape literals of the query
// language (geoBox / geoPolygon / geoCircle), the row filter, and the
// `where {}` form. A point is an embedded object with a string `type`
// ("Point", any case) and a `List<Double>` `coordinates` holding longitude
// then latitude, as realm-core reads GeoJSON points.

/// `[ANY|ALL|NONE] left GEOWITHIN shape`.
struct QueryGeoWithin {
    var quantifier: QueryQuantifier
    var left: QueryExpression
    var shape: GeoShape
    var position: Int
}

/// Reads a shape after GEOWITHIN: an argument holding a GeoBox, GeoPolygon
/// or GeoCircle, or a literal:
///
///     geoBox([lng, lat], [lng, lat])
///     geoPolygon({[lng, lat], ...}, {hole...}, ...)
///     geoCircle([lng, lat], radians)
///
/// where a coordinate is a number or a numeric argument (`%@`, `$0`).
struct GeoLiteralReader {
    let tokens: [QueryToken]
    var index: Int
    let lexer: QueryLexer

    typealias ArgumentReader = (QueryToken) throws -> Any

    mutating func shape(_ argument: ArgumentReader) throws -> GeoShape {
        let token = tokens[index]
        switch token.kind {
        case .argument("@"), .positional:
            index += 1
            let value = try argument(token)
            guard let shape = GeoShape(argument: value) else {
                throw lexer.error("The right hand side of 'geoWithin' must be a geospatial constant value (a GeoBox, GeoPolygon or GeoCircle). But the provided type is '\(type(of: unwrapOptional(value)))'", at: token.position)
            }
            return shape
        case .identifier(let word) where ["geobox", "geocircle", "geopolygon"].contains(word.lowercased()):
            index += 1
            try expect("(", "after \(word)")
            let shape: GeoShape
            switch word.lowercased() {
            case "geobox":
                let low = try point(argument)
                try expect(",", "between the corners of \(word)")
                shape = .box(low: low, high: try point(argument))
            case "geocircle":
                let center = try point(argument)
                try expect(",", "between the centre and the radius of \(word)")
                shape = .circle(center: center, radians: try coordinate(argument))
            default:
                var rings = [try ring(argument)]
                while isSymbol(",") {
                    index += 1
                    rings.append(try ring(argument))
                }
                shape = .polygon(rings)
            }
            try expect(")", "to close \(word)(")
            return shape
        default:
            throw lexer.error("expected a shape after GEOWITHIN: geoBox([lng, lat], [lng, lat]), geoPolygon({[lng, lat], ...}), geoCircle([lng, lat], radians) or an argument", at: token.position)
        }
    }

    private func isSymbol(_ s: String) -> Bool { tokens[index].kind == .symbol(s) }

    private mutating func expect(_ s: String, _ context: String) throws {
        guard isSymbol(s) else { throw lexer.error("expected '\(s)' \(context)", at: tokens[index].position) }
        index += 1
    }

    /// `{[lng, lat], ...}`
    private mutating func ring(_ argument: ArgumentReader) throws -> [GeoCoordinate] {
        try expect("{", "to open a ring of geoPolygon")
        var points = [try point(argument)]
        while isSymbol(",") {
            index += 1
            points.append(try point(argument))
        }
        try expect("}", "to close a ring of geoPolygon")
        return points
    }

    /// `[lng, lat]` or `[lng, lat, altitude]`
    private mutating func point(_ argument: ArgumentReader) throws -> GeoCoordinate {
        try expect("[", "to open a point [longitude, latitude]")
        let longitude = try coordinate(argument)
        try expect(",", "between longitude and latitude")
        var point = GeoCoordinate(longitude: longitude, latitude: try coordinate(argument))
        if isSymbol(",") {
            index += 1
            point.altitude = try coordinate(argument)
        }
        try expect("]", "to close a point [longitude, latitude]")
        return point
    }

    private mutating func coordinate(_ argument: ArgumentReader) throws -> Double {
        let token = tokens[index]
        index += 1
        switch token.kind {
        case .number(let text):
            if let value = Double(text) { return value }
            if text.lowercased().hasPrefix("0x"), let value = Int64(text.dropFirst(2), radix: 16) { return Double(value) }
        case .argument, .positional:
            let value = try argument(token)
            switch QueryValue.from(value) {
            case .int(let v): return Double(v)
            case .double(let v): return v
            default:
                throw lexer.error("a coordinate must be a number, but the argument is \(type(of: unwrapOptional(value)))", at: token.position)
            }
        default: break
        }
        throw lexer.error("expected a number (a coordinate or radius)", at: token.position)
    }
}

extension QueryCompiler {
    /// The row filter of `path GEOWITHIN shape`, checked in realm-core's
    /// order: the left side is a link, the shape is a valid region, the
    /// linked class has a point's shape and is embedded.
    func geoWithinFilter(_ g: QueryGeoWithin) throws -> RowFilter {
        guard case .keyPath(let components, let position) = g.left else {
            throw resolver.fail("The left hand side of 'geoWithin' must be a link to geoJSON formatted data (an embedded object with 'type' and 'coordinates')", g.position)
        }
        let path = try resolver.resolve(components, position: position)
        guard path.type == .object, !path.isAggregate, let target = path.targetClass else {
            throw resolver.fail("The left hand side of 'geoWithin' must be a link to geoJSON formatted data. But the provided type is '\(path.type)'", g.position)
        }
        if g.quantifier != .implicit && !path.isMulti {
            throw resolver.fail("ANY/ALL/NONE need a to-many key path, but '\(path.text)' has one value per object", g.position)
        }
        let region: GeoRegion
        switch GeoRegion.make(g.shape) {
        case .success(let made): region = made
        case .failure(let error):
            throw resolver.fail("Invalid region in GEOWITHIN query for parameter '\(g.shape)': '\(error.reason)'", g.position)
        }
        let type = target.columns.first { $0.name == "type" }, coordinates = target.columns.first { $0.name == "coordinates" }
        guard let type, type.type == .string, type.collection == .none,
              let coordinates, coordinates.type == .double, coordinates.collection == .list else {
            throw resolver.fail("Query '\(path.text) GEOWITHIN \(g.shape)' links to data in the wrong format for a geoWithin query: '\(target.name)' needs `@Persisted var type: String = \"Point\"` and `@Persisted var coordinates: List<Double>`", g.position)
        }
        guard target.isEmbedded else {
            throw resolver.fail("A GEOWITHIN query can only operate on a link to an embedded class but '\(target.name)' is at the top level", g.position)
        }
        let inTarget = PathResolver(root: target, format: format)
        let typeSource = try inTarget.resolve(["type"], position: position).source
        let coordinatesSource = try inTarget.resolve(["coordinates"], position: position).source
        // Is the linked object a point inside the region?
        let inside: (RealmCore, QueryOperand) -> Bool = { realm, operand in
            guard let key = operand.linkedKey, let record = realm.linkedRecord(target, key) else { return false }
            var isPoint = false
            _ = typeSource(realm, record, key) { value in
                if case .raw(let bytes) = value { isPoint = isPointTypeName(bytes) }
                return false
            }
            guard isPoint else { return false }
            var count = 0, longitude = 0.0, latitude = 0.0
            _ = coordinatesSource(realm, record, key) { value in
                let number = operandDouble(value, .double) ?? .nan
                if count == 0 { longitude = number } else { latitude = number }
                count += 1
                return count < 2
            }
            return count == 2 && region.contains(latitude: latitude, longitude: longitude)
        }
        let source = path.source
        if !path.isMulti {
            return { realm, record, key in
                var result = false
                _ = source(realm, record, key) { result = inside(realm, $0); return false }
                return result
            }
        }
        switch g.quantifier {
        case .all:
            // As realm-core: an empty collection is not all inside.
            return { realm, record, key in
                var any = false
                return source(realm, record, key) { any = true; return inside(realm, $0) } && any
            }
        case .none:
            return { realm, record, key in source(realm, record, key) { !inside(realm, $0) } }
        case .any, .implicit:
            return { realm, record, key in !source(realm, record, key) { !inside(realm, $0) } }
        }
    }
}

/// "Point" in any case, the only GeoJSON type realm-core queries.
private func isPointTypeName(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard bytes.count == 5 else { return false }
    for (byte, letter) in zip(bytes, "point".utf8) where byte | 0x20 != letter { return false }
    return true
}

extension Query where T: _QueryOptionalObject, T._QueryWrapped: EmbeddedObject {
    /// The linked embedded object is a GeoJSON point inside `shape` (a
    /// ``GeoBox``, ``GeoPolygon`` or ``GeoCircle``): the same as
    /// `filter("location GEOWITHIN %@", shape)`. An object whose point is nil,
    /// not of type "Point", or has fewer than two coordinates never matches.
    public func geoWithin<U: RLMGeospatial>(_ shape: U) -> Query<Bool> {
        guard let path = node.path else { return Query<Bool>(node.asFailure("geoWithin must follow a property")) }
        guard let shape = GeoShape(argument: shape) else {
            return Query<Bool>(.failed(.query("Unsupported shape of type \(U.self) in geoWithin; use GeoBox, GeoPolygon or GeoCircle")))
        }
        return Query<Bool>(.predicate(.geoWithin(QueryGeoWithin(quantifier: .implicit, left: .keyPath(path, position: -1),
                                                                 shape: shape, position: -1))))
    }
}
