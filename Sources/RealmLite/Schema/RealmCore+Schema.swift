import CStorage

// Making classes part of a file's schema: compare with the stored schema
// (a difference is a schemaMismatch listing every difference), create the
// trees of new classes, store the schema, publish a new SchemaState.

extension RealmCore {
    /// At open: check the stored schema version and register objectTypes.
    func openSchema() throws {
        let stored = try readStoredSchema()
        if let stored, configuration.schemaVersion < stored.version {
            throw Realm.Error(.schemaMismatch,
                              "Provided schema version \(configuration.schemaVersion) is less than last set version \(stored.version) of '\(env.path)'; set Realm.Configuration.schemaVersion to at least \(stored.version).")
        }
        try register(configuration.objectTypes ?? [])
    }

    /// Registers `types` and every class they link to.
    func register(_ types: [ObjectBase.Type]) throws {
        let descriptors = try SchemaDiscovery.closure(of: types)
        try validateLinkingObjects(descriptors)
        let newState: SchemaState = try env.schema.withLock { state in
            let missing = descriptors.filter { state.byType[ObjectIdentifier($0.type)] == nil }
            for descriptor in missing where state.byName[descriptor.name] != nil {
                throw Realm.Error(.invalidSchema,
                                  "Two different Swift classes are named '\(descriptor.name)'; give one of them another name (override class func className()).")
            }
            let stored = try readStoredSchema()
            var updated = stored ?? StoredSchema(version: configuration.schemaVersion, classes: [])
            var needsWrite = stored == nil
            var differences: [String] = []
            var storedClasses: [StoredClass] = []
            for descriptor in missing {
                let code = StoredClass(descriptor)
                if let old = stored?.class(named: descriptor.name) {
                    differences += schemaDifferences(stored: old, code: code)
                    storedClasses.append(old)
                } else {
                    updated.classes.append(code)
                    storedClasses.append(code)
                    needsWrite = true
                }
            }
            if !differences.isEmpty {
                throw Realm.Error(.schemaMismatch,
                                  "Migration is required due to the following errors (migrations arrive in a later release; for now delete the file or restore the old class definitions):\n"
                                  + differences.map { "- " + $0 }.joined(separator: "\n"))
            }
            if configuration.objectTypes != nil, updated.version < configuration.schemaVersion {
                updated.version = configuration.schemaVersion
                needsWrite = true
            }
            if missing.isEmpty && !needsWrite { return state }
            var infos: [ClassInfo] = []
            if needsWrite && !env.isReadOnly {
                updated.format = StoredSchema.currentFormat // what this version may have added
                try withSchemaWrite { txn in
                    let json = updated.encoded()
                    let meta = try openTree(txn, TreeName.meta, create: true)
                    let rc = withBytesKey(Array(MetaKey.schema.utf8)) { key in
                        json.withUnsafeBytes { cs_put(txn, meta, key, cs_val(data: $0.baseAddress, size: $0.count), 0) }
                    }
                    try check(rc, "Storing the schema")
                    for (descriptor, storedClass) in zip(missing, storedClasses) {
                        infos.append(try ClassInfo(descriptor: descriptor, stored: storedClass) { try openTree(txn, $0, create: true) })
                    }
                }
            } else {
                for (descriptor, storedClass) in zip(missing, storedClasses) {
                    infos.append(try ClassInfo(descriptor: descriptor, stored: storedClass) { try openTree(txn, $0, create: false) })
                }
            }
            if writeTxn != nil { registeredInWrite += infos.map(\.name) }
            state = SchemaState(classes: state.classes + infos, stored: updated)
            return state
        }
        schemaState = newState
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
    private func withSchemaWrite(_ body: (OpaquePointer) throws -> Void) throws {
        if let writeTxn {
            try body(writeTxn)
            generation &+= 1
            return
        }
        var handle: OpaquePointer?
        try check(cs_txn_begin(env.handle, 0, &handle), "Beginning the schema write transaction")
        guard let handle else { return }
        do {
            try body(handle)
        } catch {
            cs_txn_abort(handle)
            throw error
        }
        try check(cs_txn_commit(handle), "Committing the schema")
        closeReadCursors()
        cs_txn_reset(readTxn)
        renewReadTransaction()
    }

    func openTree(_ txn: OpaquePointer, _ name: String, create: Bool) throws -> cs_tree {
        var tree: cs_tree = 0
        let rc = cs_tree_open(txn, name, create ? UInt32(CS_CREATE) : 0, &tree)
        if rc == csNotFound && !create { return absentTree }
        try check(rc, "Opening tree '\(name)'")
        return tree
    }

    func metaTreeHandle() throws -> cs_tree {
        if metaTree != absentTree { return metaTree }
        let tree = try openTree(txn, TreeName.meta, create: writeTxn != nil)
        if tree != absentTree { metaTree = tree }
        return tree
    }

    func readStoredSchema() throws -> StoredSchema? {
        guard let value = try readMeta(MetaKey.schema) else { return nil }
        return try StoredSchema.decode(bytes(of: value))
    }

    func readMeta(_ key: String) throws -> cs_val? {
        let tree = try metaTreeHandle()
        guard tree != absentTree else { return nil }
        var value = cs_val()
        let rc = withBytesKey(Array(key.utf8)) { cs_get(txn, tree, $0, &value) }
        if rc == csNotFound { return nil }
        try check(rc, "Reading '\(key)' from the meta tree")
        return value
    }

    /// A cancelled write takes the classes it registered with it.
    func forgetClassesRegisteredInWrite() {
        guard !registeredInWrite.isEmpty else { return }
        let forgotten = Set(registeredInWrite)
        registeredInWrite = []
        let retired = env.schema.withLock { state in
            let (kept, retired) = (state.classes.filter { !forgotten.contains($0.name) },
                                   state.classes.filter { forgotten.contains($0.name) })
            state = SchemaState(classes: kept, stored: state.stored)
            return retired
        }
        env.retiredClasses.withLock { $0 += retired }
        schemaState = env.schema.withLock { $0 }
    }

    // MARK: - Object keys

    /// A new object key: never reused, even after deletes (kept in the meta
    /// tree, saved at commit).
    func newObjectKey(_ info: ClassInfo) throws -> UInt64 {
        for counter in nextKeys where counter.info === info {
            counter.next += 1
            return counter.next - 1
        }
        var next: UInt64 = env.cancelledKeyFloor.withLock { $0[info.name] } ?? 1
        if let stored = try readMeta(MetaKey.nextObjectKey(info.name)), stored.size == 8 {
            next = max(next, keyValue(stored))
        }
        if let cursor = cursor(info.objectsTree) {
            var key = cs_val()
            if cs_cursor_get(cursor, &key, nil, CS_LAST) == csOK, key.size == 8 {
                next = max(next, keyValue(key) + 1)
            }
        }
        nextKeys.append(ObjectKeyCounter(info: info, next: next + 1))
        return next
    }

    func saveNextKeys() throws {
        guard let txn = writeTxn, !nextKeys.isEmpty else { return }
        let meta = try metaTreeHandle()
        for counter in nextKeys {
            let rc = withBytesKey(Array(MetaKey.nextObjectKey(counter.info.name).utf8)) { key in
                withKey(counter.next) { cs_put(txn, meta, key, $0, 0) }
            }
            try check(rc, "Saving the next object key of '\(counter.info.name)'")
        }
    }
}
