import Foundation

// A subquery built by `where {}` (`($0.dogs.age > 3 && ...).count`) names
// no collection or variable: its key paths all start with the same to-many
// relationship of objects, which becomes the collection; the rest of each
// path is resolved against its objects, as in SUBQUERY(dogs, $d, $d.age > 3 ...).

extension QueryCompiler {
    func inferredSubquery(_ subquery: QuerySubquery, _ position: Int) throws -> QuerySubquery {
        var paths: [[String]] = []
        collectKeyPaths(subquery.predicate, into: &paths)
        guard let first = paths.first else {
            throw resolver.fail("A subquery count needs a predicate on a to-many relationship, as in ($0.dogs.age > 3).count", position)
        }
        var prefix: [String]?
        for length in 1..<max(first.count, 1) {
            let candidate = Array(first[..<length])
            if let path = try? resolver.resolve(candidate, position: position), path.endsInCollection, path.type == .object {
                prefix = candidate
                break
            }
        }
        guard let prefix else {
            throw resolver.fail("A subquery count needs a predicate on a property of a to-many relationship of objects, but '\(first.joined(separator: "."))' is not one", position)
        }
        for path in paths where !(path.count > prefix.count && Array(path[..<prefix.count]) == prefix) {
            throw resolver.fail("Every key path of a subquery count must go through '\(prefix.joined(separator: "."))', but '\(path.joined(separator: "."))' does not", position)
        }
        let variable = "$element"
        return QuerySubquery(collection: prefix, variable: variable,
                             predicate: replacingPrefix(subquery.predicate, prefix.count, variable))
    }

    private func collectKeyPaths(_ predicate: QueryPredicate, into paths: inout [[String]]) {
        switch predicate {
        case .constant: break
        case .and(let a, let b), .or(let a, let b):
            collectKeyPaths(a, into: &paths)
            collectKeyPaths(b, into: &paths)
        case .not(let a): collectKeyPaths(a, into: &paths)
        case .geoWithin(let g):
            if case .keyPath(let components, _) = g.left { paths.append(components) }
        case .comparison(let c):
            for side in [c.left, c.right] {
                switch side {
                case .keyPath(let components, _): paths.append(components)
                case .subquery(let inner, _): paths.append(inner.collection)
                default: break
                }
            }
        }
    }

    /// The predicate with the first `count` components of each key path
    /// replaced by the variable.
    private func replacingPrefix(_ predicate: QueryPredicate, _ count: Int, _ variable: String) -> QueryPredicate {
        func replace(_ e: QueryExpression) -> QueryExpression {
            switch e {
            case .keyPath(let components, let position): .keyPath([variable] + components.dropFirst(count), position: position)
            case .subquery(let inner, let position):
                .subquery(QuerySubquery(collection: [variable] + inner.collection.dropFirst(count), variable: inner.variable,
                                        predicate: inner.predicate), position: position)
            default: e
            }
        }
        switch predicate {
        case .constant: return predicate
        case .and(let a, let b): return .and(replacingPrefix(a, count, variable), replacingPrefix(b, count, variable))
        case .or(let a, let b): return .or(replacingPrefix(a, count, variable), replacingPrefix(b, count, variable))
        case .not(let a): return .not(replacingPrefix(a, count, variable))
        case .geoWithin(var g):
            g.left = replace(g.left)
            return .geoWithin(g)
        case .comparison(var c):
            c.left = replace(c.left)
            c.right = replace(c.right)
            return .comparison(c)
        }
    }
}
