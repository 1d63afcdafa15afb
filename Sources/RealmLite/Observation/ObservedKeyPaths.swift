// Observed key paths: checked against the schema when observation starts,
// so that a misspelt name fails where it is written rather than silently
// filtering out every change.

extension ClassInfo {
    /// Throws ``Realm/Error/Code/invalidValue`` naming the first component of
    /// `paths` that is not a property of the class it is looked up in; only a
    /// link (to-one, collection of links, linking objects) may be followed by
    /// more components.
    func checkObservedKeyPaths(_ paths: [String]?) throws {
        for path in paths ?? [] {
            let names = path.split(separator: ".", omittingEmptySubsequences: false)
            var info: ClassInfo? = self
            for (depth, name) in names.enumerated() {
                guard let current = info else {
                    throw Realm.Error(.invalidValue,
                                      "Cannot observe key path '\(path)': '\(names[depth - 1])' is not a link, so nothing can follow it. Observe '\(names.prefix(depth).joined(separator: "."))' instead.")
                }
                guard let column = current.columns.first(where: { $0.name == name }) else {
                    throw Realm.Error(.invalidValue,
                                      "Cannot observe key path '\(path)': property '\(name)' not found in object of type '\(current.name)'.")
                }
                info = column.type == .object || column.type == .linkingObjects ? column.target : nil
            }
        }
    }
}

/// Checks the `keyPaths` of a collection observer: they name properties of
/// the collection's objects (`elements`), so a collection of values takes none.
func checkCollectionKeyPaths(_ keyPaths: [String]?, elements: ClassInfo?, kind: String) throws {
    guard let keyPaths, !keyPaths.isEmpty else { return }
    guard let elements else {
        throw Realm.Error(.invalidValue,
                          "Cannot observe key paths \(keyPaths) of a \(kind): key paths name properties of a collection's objects, and it holds values. Observe it without keyPaths.")
    }
    try elements.checkObservedKeyPaths(keyPaths)
}
