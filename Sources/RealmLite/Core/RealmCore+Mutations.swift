import CStorage

// add, create and delete as a core performs them (the public entry points
// are in Realm/Realm+Write.swift; the record-level work in
// Storage/RealmCore+ObjectWrites.swift). Non-throwing, as in RealmSwift:
// outside a write they stop, inside one a failure is recorded on the write.

extension RealmCore {

    /// Adds an unmanaged object (and every unmanaged object it links to);
    /// the object becomes managed by this Realm.
    func add(_ object: Object, update: UpdatePolicy = .error) {
        let write = requireWrite("add an object of type '\(type(of: object).className())'")
        write.withUpdatePolicy(update) { insert(object, update: update, in: write) }
    }

    func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Iterator.Element: Object {
        let write = requireWrite("add objects")
        write.withUpdatePolicy(update) { for object in objects { insert(object, update: update, in: write) } }
    }

    /// Creates an object from a dictionary (property name -> value), an array
    /// (values in property order) or another object of the same class.
    /// With update .modified/.all and an existing primary key, only the
    /// properties present in the dictionary are changed.
    @discardableResult
    func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        let write = requireWrite("create an object of type '\(type.className())'")
        let object = T()
        guard let descriptor = recording({ try classInfo(for: type).descriptor }),
              let provided = recording(otherwise: .invalidValue, { try assignProperties(of: object, descriptor, from: value, realm: self) }) else { return object }
        write.withUpdatePolicy(update) { insert(object, update: update, mask: update == .error ? nil : provided, in: write) }
        return object
    }

}

/// Sets the properties of an unmanaged object from a create() value (also
/// nested values for links); returns the properties given.
func assignProperties(of object: ObjectBase, _ descriptor: ClassDescriptor, from value: Any, realm: RealmCore?) throws -> Set<Int> {
    var provided = Set<Int>()
    if let dictionary = value as? [String: Any] {
        for (name, item) in dictionary {
            guard let index = descriptor.propertyIndex[name] else {
                throw Realm.Error(.invalidValue, "Invalid property name '\(name)' for class '\(descriptor.name)'.")
            }
            guard descriptor.properties[index].isStored else { continue }
            try descriptor.properties[index].accessor.setValue(item, on: object, realm: realm)
            provided.insert(index)
        }
    } else if let array = value as? [Any] {
        let stored = descriptor.properties.indices.filter { descriptor.properties[$0].isStored }
        // As RealmSwift: a shorter array leaves the remaining properties
        // their defaults; only extra values are an error.
        guard array.count <= stored.count else {
            throw Realm.Error(.invalidValue, "Invalid array for class '\(descriptor.name)': at most \(stored.count) values (\(stored.map { descriptor.properties[$0].name }.joined(separator: ", "))), got \(array.count); pass a dictionary to set properties by name.")
        }
        for (index, item) in zip(stored, array) {
            try descriptor.properties[index].accessor.setValue(item, on: object, realm: realm)
            provided.insert(index)
        }
    } else if let source = value as? ObjectBase, type(of: source).className() == descriptor.name {
        for (index, property) in descriptor.properties.enumerated() where property.isStored {
            let sourceDescriptor = try source._info?.descriptor ?? SchemaDiscovery.descriptor(for: type(of: source))
            try property.accessor.setValue(sourceDescriptor.properties[index].accessor.value(of: source), on: object, realm: realm)
            provided.insert(index)
        }
    } else {
        throw Realm.Error(.invalidValue, "Invalid value '\(value)' of type '\(type(of: value))' to create a '\(descriptor.name)': pass a [String: Any] dictionary, an array of property values, or a \(descriptor.name).")
    }
    return provided
}

extension RealmCore {
    /// Deletes a managed object: links to it become nil, Lists/Sets drop it,
    /// Map values become nil; embedded objects it owns are deleted too.
    func delete(_ object: ObjectBase) {
        let write = requireWrite("delete an object of type '\(type(of: object).className())'")
        guard object._realm === self, let info = object._info else {
            fail(Realm.Error(object._realm == nil ? .invalidValue : .wrongRealm,
                             "Can only delete an object of type '\(type(of: object).className())' from the Realm that manages it."))
            return
        }
        if object.isInvalidated {
            fail(Realm.Error(.invalidatedObject, "Cannot delete an object of type '\(type(of: object).className())' that was already deleted (or whose Realm was invalidated); check isInvalidated first."))
            return
        }
        deleteRow(info, object._key, in: write)
        object._deleted = true
    }

    func delete<S: Sequence>(_ objects: S) where S.Iterator.Element: ObjectBase {
        requireWrite("delete objects")
        // Every object of a class that links nowhere and that nothing links
        // to: clearing its trees is the same as deleting each object.
        if let (core, info) = (objects as? WholeClassResults)?.wholeClass, core === self,
           info.linkColumns.isEmpty, schemaState.incoming[ObjectIdentifier(info)]?.isEmpty ?? true,
           schemaState.mixedColumns.isEmpty {
            clearClass(info)
            generation &+= 1
            return
        }
        // Collect first: objects may be a live Results that shrinks as we go.
        // Each object once: a List may hold one object twice.
        var seen = Set<ObjectBase>()
        for object in Array(objects) where seen.insert(object).inserted { delete(object) }
    }

    /// Deletes every object of every class.
    func deleteAll() {
        requireWrite("delete all objects")
        for info in schemaState.classes { clearClass(info) }
        generation &+= 1
    }

    /// Empties every tree of a class (objects, primary key, indexes, backlinks).
    private func clearClass(_ info: ClassInfo) {
        let write = requireWrite("delete all objects")
        for tree in info.allTrees where tree != absentTree {
            write.clear(tree, "Deleting all '\(info.name)' objects")
        }
        if info.keyedByPrimaryKey { recordDelete(info, key: nil) }
    }
}
