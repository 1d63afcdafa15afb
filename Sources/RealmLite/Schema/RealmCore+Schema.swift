import CStorage
import Dispatch

// Making classes part of a file's schema: at open, migrate when the classes
// or the schemaVersion changed (Migration.swift); then compare with the
// stored schema (a difference is a schemaMismatch listing every difference),
// create the trees of new classes, store the schema, publish a new
// SchemaState.

extension RealmCore {
    /// The ClassInfo of a model class, registering it on first use when the
    /// configuration has no objectTypes list.
    @inline(__always)
    func classInfo(for type: ObjectBase.Type) throws -> ClassInfo {
        // First, with no metadata requests: the class found last (never one
        // of the types refused below, which are not cached).
        if let last = lastClass, last.type == ObjectIdentifier(type), last.state === schemaState { return last.info }
        return try classInfoSlow(for: type)
    }

    @inline(never)
    private func classInfoSlow(for type: ObjectBase.Type) throws -> ClassInfo {
        if type == DynamicObject.self {
            throw Realm.Error(.objectTypeNotInSchema, "DynamicObject is not a class of the schema: read and create objects by class name with realm.dynamicObjects(_:) and realm.dynamicCreate(_:value:update:).")
        }
        if type == Object.self || type == EmbeddedObject.self || type == ObjectBase.self {
            throw Realm.Error(.objectTypeNotInSchema, "'\(type)' is the base class of models, not a model: name a subclass, e.g. realm.objects(Dog.self).")
        }
        if let info = schemaState.byType[ObjectIdentifier(type)] {
            // Frozen cores are shared by threads: no cache there.
            if !isFrozen { lastClass = (ObjectIdentifier(type), schemaState, info) }
            return info
        }
        let latest = env.schema.withLock { $0 }
        // A frozen core is shared by threads: it never replaces its state
        // (classes added later simply have no trees in its snapshot).
        if isFrozen { if let info = latest.byType[ObjectIdentifier(type)] { return info } } else { schemaState = latest }
        if let info = schemaState.byType[ObjectIdentifier(type)] { return info }
        if isFrozen {
            throw Realm.Error(.objectTypeNotInSchema, "Object type '\(type.className())' is not in this frozen Realm's schema.")
        }
        if configuration.objectTypes != nil {
            throw Realm.Error(.objectTypeNotInSchema,
                              "Object type '\(type.className())' is not managed by this Realm: add \(type.className()).self to Realm.Configuration.objectTypes.")
        }
        try register([type])
        guard let info = schemaState.byType[ObjectIdentifier(type)] else {
            throw Realm.Error(.objectTypeNotInSchema, "Object type '\(type.className())' could not be added to the Realm's schema.")
        }
        return info
    }

    func classInfoOrStop(_ type: ObjectBase.Type) -> ClassInfo {
        orStop { try classInfo(for: type) }
    }

    /// At open: check the stored schema version, migrate (or reset the file
    /// with deleteRealmIfMigrationNeeded) when the classes or the version
    /// changed, and register objectTypes. Migration.swift has the migration.
    func openSchema() throws {
        // objectTypes' descriptors do not depend on the file: worked out
        // first, while the page the engine's open asked for (the catalog's
        // root) comes from the disk on a cold open; an error is thrown
        // where the descriptors are needed, as before. (No Result: a generic
        // type's first use costs more than the wait it saves.)
        var listed: [ClassDescriptor]?, listedError: (any Swift.Error)?
        if let types = configuration.objectTypes {
            do { listed = try SchemaDiscovery.closure(of: types) } catch { listedError = error }
        }
        let stored = try readStoredSchema()
        var current = stored // the stored schema once a reset or migration is done
        let resets = configuration.deleteRealmIfMigrationNeeded && !env.isReadOnly
        if let stored, configuration.schemaVersion < stored.version, !resets {
            throw Realm.Error(.schemaMismatch,
                              "Provided schema version \(configuration.schemaVersion) is less than last set version \(stored.version) of '\(env.path)'; set Realm.Configuration.schemaVersion to at least \(stored.version).")
        }
        if let stored, env.isReadOnly, configuration.schemaVersion > stored.version {
            throw Realm.Error(.schemaMismatch,
                              "'\(env.path)' is at schema version \(stored.version) and a read-only Realm cannot be migrated to version \(configuration.schemaVersion): open it once without readOnly to migrate, or set Realm.Configuration.schemaVersion to \(stored.version).")
        }
        if let stored, !env.isReadOnly {
            if let listedError { throw listedError }
            let descriptors = try listed ?? SchemaDiscovery.closure(of: storedProgramClasses(stored))
            try validateLinkingObjects(descriptors)
            // Made with its capacity: a dictionary's first growth looks its
            // storage type up by mangled name (work a process's first open
            // would do), making it with room does not.
            var names = [String: ObjectBase.Type](minimumCapacity: descriptors.count)
            for descriptor in descriptors {
                if let other = names.updateValue(descriptor.type, forKey: descriptor.name), other != descriptor.type {
                    throw Realm.Error(.invalidSchema,
                                      "Two different Swift classes are named '\(descriptor.name)' in objectTypes and the classes they link to ('\(other)' and '\(descriptor.type)'); give one of them another name (override class func className()).")
                }
            }
            var differences: [String] = []
            for descriptor in descriptors {
                if let old = stored.class(named: descriptor.name) { differences += schemaDifferences(stored: old, code: descriptor.storedSchema) }
            }
            // As RealmSwift: a migration is "needed" when the classes or the
            // version (up or down) differ; then the file is emptied instead.
            if resets && (!differences.isEmpty || configuration.schemaVersion != stored.version) {
                realmLog(.detail, Category.sdk, "deleteRealmIfMigrationNeeded: emptying '\(env.path)' (schema version \(stored.version) -> \(configuration.schemaVersion), \(differences.count) differences)")
                try resetFile(stored)
                current = try readStoredSchema()
            } else if !differences.isEmpty && configuration.schemaVersion == stored.version {
                throw migrationRequired(differences)
            } else if configuration.schemaVersion > stored.version {
                let started = DispatchTime.now().uptimeNanoseconds
                realmLog(.detail, Category.sdk, "Migrating '\(env.path)' from schema version \(stored.version) to \(configuration.schemaVersion) (\(descriptors.count) classes)")
                try migrate(from: stored, to: descriptors)
                current = try readStoredSchema()
                realmLog(.detail, Category.sdk, "Migrated '\(env.path)' to schema version \(configuration.schemaVersion) in \(elapsedMilliseconds(since: started)) ms")
            }
        }
        try register(configuration.objectTypes ?? defaultSchemaClasses(current))
    }

    /// objectTypes nil: every model class of the program (ProgramClasses),
    /// as RealmSwift's default schema, once per file per process; later
    /// opens find them registered. Left to first use (registered then, or
    /// refused there with their error, as before) are the classes that could
    /// not join without failing the open: `_realmIgnoreClass()`, a class
    /// name two Swift classes share (two versions of a model), a class that
    /// cannot be stored, and one that differs from its stored class.
    private func defaultSchemaClasses(_ stored: StoredSchema?) -> [ObjectBase.Type] {
        guard !env.programClassesRegistered.load(ordering: .acquiring) else { return [] }
        defer { env.programClassesRegistered.store(true, ordering: .releasing) }
        let started = DispatchTime.now().uptimeNanoseconds
        let program = ProgramClasses.all().filter { $0.shouldIncludeInDefaultSchema() }
        var sharing: [String: Int] = [:]
        for type in program { sharing[type.className(), default: 0] += 1 }
        let storedClasses = Dictionary(stored?.classes.map { ($0.name, $0) } ?? [], uniquingKeysWith: { a, _ in a })
        var agrees = IdentityTable<Bool>() // a class is compared once, whichever closures it is in
        var taken = env.schema.withLock { state in state.byName.mapValues { ObjectIdentifier($0.descriptor.type) } }
        var accepted: [ObjectBase.Type] = []
        for type in program where sharing[type.className()] == 1 {
            guard let closure = try? SchemaDiscovery.closure(of: [type]), (try? validateLinkingObjects(closure)) != nil else {
                realmLog(.debug, Category.sdk, "Default schema: '\(type.className())' cannot be stored; it is left to first use")
                continue
            }
            var names = taken
            let fits = closure.allSatisfy { descriptor in
                if let other = names.updateValue(ObjectIdentifier(descriptor.type), forKey: descriptor.name) {
                    return other == ObjectIdentifier(descriptor.type)
                }
                guard let old = storedClasses[descriptor.name] else { return true }
                if let known = agrees[ObjectIdentifier(descriptor.type)] { return known }
                let agreeing = schemaDifferences(stored: old, code: descriptor.storedSchema).isEmpty
                agrees[ObjectIdentifier(descriptor.type)] = agreeing
                return agreeing
            }
            if fits {
                taken = names
                accepted.append(type)
            }
        }
        realmLog(.debug, Category.sdk, "Default schema of '\(env.path)': \(accepted.count) of \(program.count) model classes chosen in \(elapsedMilliseconds(since: started)) ms")
        return accepted
    }

    /// Without objectTypes: the program's classes that stored the file's
    /// classes (StoredClass.swiftType), so that a contradiction is an error
    /// at open, not a stop at first use, and a version bump migrates them.
    private func storedProgramClasses(_ stored: StoredSchema) -> [ObjectBase.Type] {
        stored.classes.compactMap { storedClass in
            guard let name = storedClass.swiftType, let type = _typeByName(name) as? ObjectBase.Type,
                  type.className() == storedClass.name else { return nil }
            return type
        }
    }

    /// The error for a changed schema that is not migrated.
    func migrationRequired(_ differences: [String]) -> Realm.Error {
        let remedy = configuration.objectTypes == nil
            ? "To migrate, list the model classes in Realm.Configuration.objectTypes and increase Realm.Configuration.schemaVersion (now \(configuration.schemaVersion))"
            : "Increase Realm.Configuration.schemaVersion (now \(configuration.schemaVersion)) to migrate, with a migrationBlock if values must be moved"
        return Realm.Error(.schemaMismatch,
                           "Migration is required due to the following errors:\n" + differences.map { "- " + $0 }.joined(separator: "\n")
                           + "\n\(remedy), or set deleteRealmIfMigrationNeeded to start from an empty file.")
    }

    /// deleteRealmIfMigrationNeeded: empties the file (every class's trees
    /// and the meta tree) in one write, as if it had been deleted.
    private func resetFile(_ stored: StoredSchema) throws {
        if !env.schema.withLock({ $0.classes.isEmpty }) {
            throw Realm.Error(.schemaMismatch,
                              "Cannot delete the data of '\(env.path)' (deleteRealmIfMigrationNeeded): it is open in this process with another schema. Close every Realm instance of the file first.")
        }
        try refuseWhileOpenElsewhere("delete the data of '\(env.path)' (deleteRealmIfMigrationNeeded)")
        try withSchemaWrite { txn in
            for storedClass in stored.classes {
                for name in treeNames(of: storedClass) {
                    let tree = try txn.openTree(name, create: false)
                    if tree != absentTree { try txn.clearThrowing(tree, "Deleting the objects of '\(storedClass.name)'") }
                }
            }
            let meta = try txn.openTree(TreeName.meta, create: false)
            if meta != absentTree { try txn.clearThrowing(meta, "Deleting the stored schema") }
        }
        metaTree = absentTree
    }

    /// Registers `types` and every class they link to.
    func register(_ types: [ObjectBase.Type]) throws {
        let descriptors = try SchemaDiscovery.closure(of: types)
        try validateLinkingObjects(descriptors)
        var registered: (names: [String], stored: Bool)?
        let newState: SchemaState = try env.schema.withLock { state in
            let missing = descriptors.filter { state.byType[ObjectIdentifier($0.type)] == nil }
            for descriptor in missing where state.byName[descriptor.name] != nil {
                throw Realm.Error(.invalidSchema,
                                  "Two different Swift classes are named '\(descriptor.name)'; give one of them another name (override class func className()).")
            }
            let stored = try readStoredSchema()
            var updated = stored ?? StoredSchema(version: configuration.schemaVersion, classes: [])
            // A file of an older format is marked as the current one before
            // this version writes what older ones would misread (Lists in
            // the lists tree); its records are read as they are.
            var needsWrite = stored == nil || (stored?.format ?? 1) < StoredSchema.currentFormat
            var differences: [String] = []
            var storedClasses: [StoredClass] = []
            for descriptor in missing {
                if let old = stored?.class(named: descriptor.name) {
                    differences += schemaDifferences(stored: old, code: descriptor.storedSchema)
                    storedClasses.append(old)
                } else {
                    let code = descriptor.stored
                    updated.classes.append(code)
                    storedClasses.append(code)
                    needsWrite = true
                }
            }
            if !differences.isEmpty { throw migrationRequired(differences) }
            if configuration.objectTypes != nil, updated.version < configuration.schemaVersion {
                updated.version = configuration.schemaVersion
                needsWrite = true
            }
            if missing.isEmpty && !needsWrite { return state }
            var infos: [ClassInfo] = []
            if needsWrite && !env.isReadOnly {
                updated.format = updated.neededFormat // what this version may have added
                try withSchemaWrite { txn in
                    let meta = try txn.openTree(TreeName.meta, create: true)
                    try updated.encoded().withUnsafeBytes {
                        try txn.store(meta, Array(MetaKey.schema.utf8), $0, "Storing the schema")
                    }
                    for (descriptor, storedClass) in zip(missing, storedClasses) {
                        infos.append(try ClassInfo(descriptor: descriptor, stored: storedClass) { try txn.openTree($0, create: true) })
                    }
                }
            } else {
                let txn = self.txn
                for (descriptor, storedClass) in zip(missing, storedClasses) {
                    infos.append(try ClassInfo(descriptor: descriptor, stored: storedClass) { try txn.openTree($0, create: false) })
                }
            }
            write?.registeredClasses += infos.map(\.name)
            registered = (infos.map(\.name), needsWrite && !env.isReadOnly)
            state = SchemaState(classes: state.classes + infos, stored: updated)
            return state
        }
        schemaState = newState
        if let registered { // logged outside the schema lock
            realmLog(.detail, Category.sdk, "Registered \(registered.names.count) classes in '\(env.path)'\(registered.stored ? " (schema stored)" : ""): \(registered.names.joined(separator: ", "))")
        }
    }

    /// `@Persisted(originProperty:)` must name a link to this class.
    private func validateLinkingObjects(_ descriptors: [ClassDescriptor]) throws {
        for descriptor in descriptors {
            for property in descriptor.properties where property.shape.type == .linkingObjects {
                guard let originType = property.shape.objectType, let originName = property.originProperty else { continue }
                let origin = try SchemaDiscovery.descriptor(for: originType)
                guard let index = origin.propertyIndex[originName],
                      origin.properties[index].shape.type == .object,
                      origin.properties[index].shape.objectType?.className() == descriptor.name else {
                    throw Realm.Error(.invalidSchema,
                                      "Property '\(descriptor.name).\(property.name)' declares origin property '\(origin.name).\(originName)', which is not a link to '\(descriptor.name)'.")
                }
            }
        }
    }

    /// Runs body in the current write transaction, or in a short one of its
    /// own (then moves this Realm's snapshot forward to see the result).
    private func withSchemaWrite(_ body: (EngineTxn) throws -> Void) throws {
        if let write {
            try body(write.txn)
            generation &+= 1
            return
        }
        guard let txn = try env.beginWrite(wait: true) else { return }
        do {
            try body(txn)
        } catch {
            txn.abort()
            throw error
        }
        try txn.commit(deferFlush: false)
        closeReadCursors()
        readTxn.reset()
        renewReadTransaction()
    }

    func metaTreeHandle() throws -> cs_tree {
        if metaTree != absentTree { return metaTree }
        let tree = try txn.openTree(TreeName.meta, create: write != nil)
        if tree != absentTree { metaTree = tree }
        return tree
    }

    /// After the snapshot moved: the stored schema must still describe
    /// the records of the classes this process registered. It changes under
    /// them only if another process migrated the file in the moment between
    /// a migration's last check that no one else has it open and its commit
    /// (docs/MIGRATIONS.md); reading on would misread records, so this
    /// throws instead. One lookup and one comparison when nothing changed;
    /// classes added by others are no change.
    func checkStoredSchema(in txn: EngineTxn) throws {
        let state = schemaState
        guard !state.classes.isEmpty, let registered = state.stored else { return }
        let meta = metaTree != absentTree ? metaTree : try txn.openTree(TreeName.meta, create: false)
        guard meta != absentTree,
              let value = try withBytesKey(Array(MetaKey.schema.utf8), { try txn.lookup(meta, $0, "Reading the stored schema") }) else { return }
        let now = bytes(of: value)
        if env.isCheckedSchema(now) { return }
        let stored = try StoredSchema.decode(now)
        for info in state.classes {
            guard let mine = registered.class(named: info.name), let theirs = stored.class(named: info.name),
                  mine.sameRecords(as: theirs) else {
                throw Realm.Error(.schemaMismatch,
                                  "Another process migrated '\(env.path)' to schema version \(stored.version) while this process had it open with version \(registered.version), changing class '\(info.name)': its objects can no longer be read with this program's classes. Close every Realm of the file and open it again with the new schema.")
            }
        }
        env.noteCheckedSchema(now)
    }

    func readStoredSchema() throws -> StoredSchema? {
        guard let value = try readMeta(MetaKey.schema) else { return nil }
        let stored = bytes(of: value)
        if let cached = env.decodedSchema(of: stored) { return cached }
        let schema = try StoredSchema.decode(stored)
        env.noteDecodedSchema(schema, of: stored)
        return schema
    }

    func readMeta(_ key: String) throws -> cs_val? {
        let tree = try metaTreeHandle()
        return try withBytesKey(Array(key.utf8)) { try txn.lookup(tree, $0, "Reading '\(key)' from the meta tree") }
    }

    /// A write that did not commit takes the classes it registered with it.
    func forgetClasses(registeredBy transaction: WriteTransaction) {
        guard !transaction.registeredClasses.isEmpty else { return }
        let forgotten = Set(transaction.registeredClasses)
        transaction.registeredClasses = []
        let retired = env.schema.withLock { state in
            let (kept, retired) = (state.classes.filter { !forgotten.contains($0.name) },
                                   state.classes.filter { forgotten.contains($0.name) })
            state = SchemaState(classes: kept, stored: state.stored)
            return retired
        }
        env.withRetiredClasses { $0 += retired }
        schemaState = env.schema.withLock { $0 }
    }

    // MARK: - Object keys

    /// A new object key: never reused, even after deletes (kept in the meta
    /// tree, saved at commit).
    func newObjectKey(_ info: ClassInfo, in write: WriteTransaction) throws -> UInt64 {
        // By name too: a class's dynamic ClassInfo (DynamicSchema.swift) shares its keys.
        for counter in write.nextKeys where counter.info === info || counter.info.name == info.name {
            counter.next += 1
            return counter.next - 1
        }
        var next: UInt64 = env.withCancelledKeyFloor { $0[info.name] } ?? 1
        if let stored = try readMeta(MetaKey.nextObjectKey(info.name)), stored.size == 8 {
            next = max(next, keyValue(stored))
        }
        if let key = cursor(info.objectsTree)?.lastKey(), key.size == 8 {
            next = max(next, keyValue(key) + 1)
        }
        write.nextKeys.append(ObjectKeyCounter(info: info, next: next + 1))
        return next
    }

    func saveNextKeys(_ write: WriteTransaction) throws {
        guard !write.nextKeys.isEmpty else { return }
        let meta = try metaTreeHandle()
        for counter in write.nextKeys {
            try withUnsafeBytes(of: counter.next.bigEndian) {
                try write.txn.store(meta, Array(MetaKey.nextObjectKey(counter.info.name).utf8), $0,
                                    "Saving the next object key of '\(counter.info.name)'")
            }
        }
    }
}
