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
        requireWrite("create an object of type '\(type.className())'")
        let object = T()
        guard let info = recording({ try classInfo(for: type) }) else { return object }
        create(object, info, value: value, update: update)
        return object
    }

    /// create() into a new unmanaged `object` of `info` (typed, or a
    /// DynamicObject for dynamicCreate).
    func create(_ object: ObjectBase, _ info: ClassInfo, value: Any, update: UpdatePolicy) {
        let write = requireWrite("create an object of type '\(info.name)'")
        defer { write.copies = [:] }
        guard let provided = recording(otherwise: .invalidValue, { try assignProperties(of: object, info.descriptor, from: value, realm: self) }) else { return }
        write.withUpdatePolicy(update) { insert(object, update: update, mask: update == .error ? nil : provided, in: write) }
    }

}

/// Sets the properties of an unmanaged object from a create() value (also
/// nested values for links); returns the properties given. With `realm`
/// (create), managed objects it must not link to are copied
/// (CreateValueCopies.swift).
func assignProperties(of object: ObjectBase, _ descriptor: ClassDescriptor, from value: Any, realm: RealmCore?) throws -> Set<Int> {
    var provided = Set<Int>()
    func set(_ index: Int, _ item: Any) throws {
        let item = try realm.map { try copyingManagedObjects(item, into: $0) } ?? item
        try descriptor.properties[index].accessor.setValue(item, on: object, realm: realm)
        provided.insert(index)
    }
    if let dictionary = value as? [String: Any] {
        for (name, item) in dictionary {
            guard let index = descriptor.propertyIndex[name] else {
                throw Realm.Error(.invalidValue, "Invalid property name '\(name)' for class '\(descriptor.name)'.")
            }
            guard descriptor.properties[index].isStored else { continue }
            try set(index, item)
        }
    } else if let array = value as? [Any] {
        let stored = descriptor.properties.indices.filter { descriptor.properties[$0].isStored }
        // As RealmSwift: a shorter array leaves the remaining properties
        // their defaults; only extra values are an error.
        guard array.count <= stored.count else {
            throw Realm.Error(.invalidValue, "Invalid array for class '\(descriptor.name)': at most \(stored.count) values (\(stored.map { descriptor.properties[$0].name }.joined(separator: ", "))), got \(array.count); pass a dictionary to set properties by name.")
        }
        for (index, item) in zip(stored, array) { try set(index, item) }
    } else if let source = value as? ObjectBase, source._className == descriptor.name {
        if source.isInvalidated { throw Realm.Error.invalidated(descriptor.name) }
        if let realm { noteCopy(object, of: source, into: realm) }
        // By name: a DynamicObject's properties are in the stored order.
        let sourceDescriptor = try (source as? DynamicObject)?.dynamicClassInfo?.descriptor ?? source._info?.descriptor
            ?? SchemaDiscovery.descriptor(for: type(of: source))
        for (index, property) in descriptor.properties.enumerated() where property.isStored {
            guard let sourceIndex = sourceDescriptor.propertyIndex[property.name] else { continue }
            try set(index, sourceDescriptor.properties[sourceIndex].accessor.value(of: source))
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
           info.linkColumns.isEmpty, incomingLinks(info).isEmpty,
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
        dropTreeLists(of: info, in: write)
        for tree in info.allTrees where tree != absentTree {
            write.clear(tree, "Deleting all '\(info.name)' objects")
        }
        if info.keyedByPrimaryKey { recordDelete(info, key: nil) }
    }
}
