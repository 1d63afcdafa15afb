import Foundation

// Resolving a key path builds closures and its text on every query; a
// lookup loop (`where { $0.name == x }.first`) spent a fifth of its time
// there. The path of one scalar property of the class itself depends only
// on the ClassInfo, so it is resolved once per class and property.

/// A resolved path shared by threads: its closures read only the slot and
/// layout they captured, which never change for a ClassInfo.
final class SharedResolvedPath: @unchecked Sendable {
    let path: ResolvedPath
    init(_ path: ResolvedPath) { self.path = path }
}

/// Per ClassInfo: the resolved path of each scalar property, by column.
/// Paths through links are not kept (their closures hold the target
/// class, and classes link in cycles).
/// @unchecked Sendable: `paths` is only touched with `lock` held (an NSLock
/// over a plain field rather than a Protected: every class registered by an
/// open makes one, and Protected's generic metadata would be built then).
final class DirectPathCache: @unchecked Sendable {
    private let lock = NSLock()
    private let count: Int
    /// Empty until the first path is kept: an open that runs no query
    /// builds no `[SharedResolvedPath?]` (a generic type, built at a
    /// process's first use).
    private var paths: [SharedResolvedPath?] = []

    init(count: Int) { self.count = count }

    /// True once the path of `column` is kept (tests).
    func isCached(_ column: Int) -> Bool { lock.withLock { column < paths.count && paths[column] != nil } }

    /// The path of `column`, resolved by `resolve` the first time.
    func path(_ column: Int, _ resolve: () throws -> ResolvedPath) rethrows -> ResolvedPath {
        if let known = lock.withLock({ column < paths.count ? paths[column] : nil }) { return known.path }
        let path = try resolve()
        guard path.directColumn != nil, path.targetClass == nil, !path.isMulti, !path.isAggregate, !path.typeOf else { return path }
        let shared = SharedResolvedPath(path)
        lock.withLock {
            if paths.isEmpty { paths = Array(repeating: nil, count: count) }
            paths[column] = shared
        }
        return path
    }
}

extension PathResolver {
    /// `resolve(components)` with a one-property path taken from the class's cache.
    func resolveCached(_ components: [String], position: Int) throws -> ResolvedPath {
        guard components.count == 1, let index = root.descriptor.propertyIndex[components[0]] else {
            return try resolve(components, position: position)
        }
        return try root.directPaths.path(index) { try resolve(components, position: position) }
    }
}
