import CStorage
import Foundation

// Schema migrations (docs/MIGRATIONS.md). At open, when the program's
// classes (Configuration.objectTypes) differ from the stored schema or
// schemaVersion is higher than the file's, RealmCore.migrate runs ONE write
// transaction that:
//   1. rewrites the records of every changed class into the new layout
//      (values of unchanged properties copied byte for byte, added ones get
//      the class's defaults), rebuilds its index trees and clears the
//      backlink trees of link properties that went away (object keys do not
//      change, so links from other classes stay valid);
//   2. publishes the new ClassInfos (forgotten again if the write cancels);
//   3. runs the migration block, whose `old` objects read the snapshot from
//      before the migration (a read transaction kept open for it) and whose
//      `new` objects are ordinary accessors in the write;
//   4. rebuilds the primary-key trees (the block may have set keys), stores
//      the new schema and version, and commits.
// Any failure cancels the write: the file stays at its old version.

/// An object seen by a migration block: the old one reads the file as it was
/// before the migration (read-only), the new one is the object as it will be
/// stored (RealmSwift's MigrationObject, a DynamicObject).
@dynamicMemberLookup
public final class MigrationObject: CustomStringConvertible {
    enum Backing {
        /// A record of the old snapshot (copied), its stored class and key.
        case old(record: [UInt8], layout: StoredLayout, key: UInt64)
        /// A managed accessor in the migration's write.
        case new(ObjectBase)
    }
    var backing: Backing
    unowned let migration: Migration

    fileprivate init(_ backing: Backing, _ migration: Migration) {
        self.backing = backing
        self.migration = migration
    }

    /// The property's value (links give the linked MigrationObject).
    /// Setting is allowed on new objects only.
    public subscript(key: String) -> Any? {
        get {
            switch backing {
            case let .old(record, layout, objectKey):
                return migration.oldValue(record, layout, objectKey, key)
            case let .new(object):
                return migration.newValue(object, key)
            }
        }
        set {
            guard case let .new(object) = backing else {
                migration.core.fail(Realm.Error(.invalidValue, "Cannot set '\(key)' on an old object in a migration: old objects are read-only; set it on the new object."))
                return
            }
            migration.setNewValue(object, key, newValue)
        }
    }

    /// The schema of the object's class: the old one for old objects.
    public var objectSchema: ObjectSchema {
        switch backing {
        case let .old(_, layout, _): return layout.stored.publicSchema
        case let .new(object): return object.objectSchema
        }
    }

    public var description: String {
        switch backing {
        case let .old(_, layout, _):
            return "\(layout.stored.name) (old) {" + layout.stored.properties.map { " \($0.name) = \(self[$0.name].map(describeValue) ?? "nil");" }.joined() + " }"
        case let .new(object):
            return object.description
        }
    }
}

/// The closure ``Migration/enumerateObjects(ofType:_:)`` calls per object:
/// `oldObject` reads it as it was before the migration (read-only), `newObject`
/// is the same object in the new schema (set its properties here; nil if the
/// class is no longer in the schema).
public typealias MigrationObjectEnumerateBlock = (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void

/// Passed to a MigrationBlock: enumerate, create, delete and rename, all in
/// the migration's single write transaction.
public final class Migration {
    /// The schema of the file before the migration.
    public let oldSchema: Schema
    /// The schema after the migration (the program's classes).
    public let newSchema: Schema

    let core: RealmCore
    /// A read transaction on the snapshot from before the migration.
    fileprivate let oldTxn: EngineTxn
    fileprivate let oldStored: StoredSchema
    fileprivate var layouts: [String: StoredLayout] = [:]
    /// Class names whose data deleteData(forType:) removed.
    fileprivate(set) var deletedClasses: Set<String> = []
    /// Classes whose primary keys the block may have set (rebuilt after it).
    fileprivate(set) var primaryKeysTouched: Set<String> = []
    /// Renames a property of a class whose records the migration kept, by
    /// renaming its column (RealmCore.migrate); false when it cannot.
    var renameWithoutRewrite: ((_ typeName: String, _ from: String, _ to: String) throws -> Bool)?
    /// The block has made or read objects: a rename must move values, since
    /// accessors of the class's current layout may exist.
    fileprivate var touchedObjects = false

    init(core: RealmCore, oldTxn: EngineTxn, oldStored: StoredSchema, newSchema: Schema) {
        self.core = core
        self.oldTxn = oldTxn
        self.oldStored = oldStored
        self.newSchema = newSchema
        oldSchema = Schema(objectSchema: oldStored.classes.map(\.publicSchema).sorted { $0.className < $1.className })
    }

    fileprivate func layout(_ name: String) -> StoredLayout? {
        if let layout = layouts[name] { return layout }
        guard let stored = oldStored.class(named: name) else { return nil }
        let layout = StoredLayout(stored)
        layouts[name] = layout
        return layout
    }

    /// Calls `block` for every object of `typeName` in the old file: old is
    /// the object as it was, new the object as it is now (nil if the class
    /// is no longer in the schema). Objects deleted earlier in the migration
    /// and objects created during it are not enumerated. One object at a
    /// time: memory does not grow with the number of objects.
    public func enumerateObjects(ofType typeName: String, _ block: MigrationObjectEnumerateBlock) {
        // A class in neither schema has no objects to enumerate (as in Realm).
        guard let layout = layout(typeName), !deletedClasses.contains(typeName) else { return }
        touchedObjects = true
        let info = core.schemaState.byName[typeName]
        guard let tree = try? oldTxn.openTree(TreeName.objects(typeName), create: false), tree != absentTree,
              let cursor = oldTxn.openCursor(tree) else { return }
        defer { cursor.close() }
        var progress = core.migrationProgress(typeName, .enumeratingObjects, total: oldTxn.count(tree, "Counting '\(typeName)' objects"))
        defer { progress.finish() }
        // The two MigrationObjects and the accessor are reused for the next
        // object when the block kept no reference to them.
        var old: MigrationObject?, new: MigrationObject?
        var entry = cursor.first()
        while let (key, value) = entry.map({ ($0.key, $0.value) }) {
            progress.advance()
            let objectKey = keyValue(key)
            // The old record's buffer too, when the block kept nothing.
            var record: [UInt8] = []
            let reusable = isKnownUniquelyReferenced(&old)
            if reusable, case let .old(previous, _, _)? = old?.backing {
                old!.backing = .old(record: [], layout: layout, key: 0) // drops its reference: the buffer is unique
                record = previous
            }
            guard core.recording({ try layout.current(bytes(of: value), into: &record) }) != nil else { return }
            let backing = MigrationObject.Backing.old(record: record, layout: layout, key: objectKey)
            if reusable { old!.backing = backing } else { old = MigrationObject(backing, self) }
            if let info {
                // An object deleted earlier in the migration is skipped, as in Realm.
                if let current = core.txn.get(info.objectsTree, key: objectKey, "Reading a '\(typeName)' object") {
                    if isKnownUniquelyReferenced(&new), case let .new(object)? = new?.backing {
                        core.reuse(object, info, key: objectKey, record: current)
                    } else {
                        new = MigrationObject(.new(core.materialize(info, key: objectKey, record: current)), self)
                    }
                    block(old, new)
                }
            } else {
                block(old, nil)
            }
            entry = cursor.next()
        }
    }

    /// Creates an object of `typeName` (in the new schema) from a dictionary,
    /// an array in property order, or an object, as Realm.create does.
    @discardableResult
    public func create(_ typeName: String, value: Any = [String: Any]()) -> MigrationObject {
        touchedObjects = true
        guard let write = core.write, let info = core.schemaState.byName[typeName] else {
            core.fail(Realm.Error(.objectTypeNotInSchema, "Cannot create an object of type '\(typeName)' in a migration: it is not in the new schema (Realm.Configuration.objectTypes)."))
            return MigrationObject(.new(ObjectBase()), self)
        }
        let object = info.type.init()
        if core.recording(otherwise: .invalidValue, { try assignProperties(of: object, info.descriptor, from: unwrapMigrationObjects(value), realm: core) }) != nil {
            core.insert(object, update: .error, in: write)
        }
        return MigrationObject(.new(object), self)
    }

    /// Deletes a new object (an old one cannot be deleted: pass the new one).
    public func delete(_ object: MigrationObject) {
        guard case let .new(managed) = object.backing else {
            core.fail(Realm.Error(.invalidValue, "Cannot delete an old object in a migration: delete the new object given with it."))
            return
        }
        core.delete(managed)
    }

    /// Deletes every object of `typeName` (also those created in the
    /// migration) and, if the class is not in the new schema, the class
    /// itself. Returns whether the old or the new schema has the class.
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        touchedObjects = true
        guard let write = core.write else { return false }
        let info = core.schemaState.byName[typeName]
        guard let stored = oldStored.class(named: typeName) ?? info.map({ StoredClass($0.descriptor) }) else { return false }
        deletedClasses.insert(typeName)
        if let info {
            for tree in info.allTrees + [info.deletedTree] where tree != absentTree {
                write.clear(tree, "Deleting the objects of '\(typeName)'")
            }
        } else {
            for name in treeNames(of: stored) {
                if let tree = core.recording({ try write.txn.openTree(name, create: false) }), tree != absentTree {
                    write.clear(tree, "Deleting the objects of '\(typeName)'")
                }
            }
        }
        return true
    }

    /// Moves the values of `oldName` into `newName` (which must have the same
    /// type) on every object of `typeName`: the old schema has `oldName`,
    /// the new one `newName`.
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        guard let layout = layout(typeName), let (oldSlot, oldProperty) = layout.slots[oldName] else {
            core.fail(Realm.Error(.invalidSchema, "Cannot rename property '\(typeName).\(oldName)': it is not in the old schema."))
            return
        }
        guard let info = core.schemaState.byName[typeName], let c = info.descriptor.propertyIndex[newName] else {
            core.fail(Realm.Error(.invalidSchema, "Cannot rename property '\(typeName).\(oldName)' to '\(newName)': '\(typeName).\(newName)' is not in the new schema."))
            return
        }
        let newProperty = StoredProperty(info.columns[c].property)
        guard storageCompatible(oldProperty, newProperty) else {
            core.fail(Realm.Error(.invalidSchema, "Cannot rename property '\(typeName).\(oldName)' to '\(newName)': the types differ ('\(oldProperty.typeDescription)' and '\(newProperty.typeDescription)')."))
            return
        }
        if !touchedObjects, let rename = renameWithoutRewrite {
            switch core.recording({ try rename(typeName, oldName, newName) }) {
            case true?: return
            case nil: return // failed: recorded, the migration throws it
            case false?: break
            }
        }
        enumerateObjects(ofType: typeName) { old, new in
            guard case let .old(record, _, key)? = old?.backing, case let .new(object)? = new?.backing else { return }
            record.withUnsafeBytes { raw in
                let view = RecordView(base: raw.baseAddress!, size: raw.count)
                if oldSlot.width == ColumnSlot.objectKey {
                    withPrimaryKeyBytes(objectKey: key) { setRaw(object, c, isNull: false, $0) }
                } else {
                    setRaw(object, c, isNull: view.isNull(oldSlot), view.field(oldSlot, layout.layout))
                }
            }
        }
    }

    // MARK: - Values

    fileprivate func oldValue(_ record: [UInt8], _ layout: StoredLayout, _ key: UInt64, _ name: String) -> Any? {
        guard let (slot, property) = layout.slot(named: name) else {
            core.fail(Realm.Error(.invalidValue, "'\(layout.stored.name)' had no property named '\(name)' in the old schema."))
            return nil
        }
        if slot.width == ColumnSlot.objectKey { return Int(primaryKey(objectKey: key)) }
        return record.withUnsafeBytes { raw -> Any? in
            let view = RecordView(base: raw.baseAddress!, size: raw.count)
            if view.isNull(slot) { return nil }
            let field = view.field(slot, layout.layout)
            switch property.collection {
            case .none:
                return decodeElement(property, field, tagged: false)
            case .list, .set:
                let view = core.elementArray(field, type: TreeElementEncoding(property))
                return (0..<view.count).map { decodeElement(property, view.element($0), tagged: property.optional) as Any }
            case .map:
                let view = core.elementArray(field, type: TreeElementEncoding(property))
                var map: [String: Any] = [:]
                for i in 0..<view.count {
                    let (key, value) = MapEntry.split(view.element(i))
                    map[String(decoding: key, as: UTF8.self)] = decodeElement(property, value, tagged: property.optional || property.type == .object) as Any
                }
                return map
            }
        }
    }

    /// One stored value (a field, or an element of a collection field;
    /// elements of optional type start with a tag byte, 0 for nil).
    private func decodeElement(_ property: StoredProperty, _ stored: UnsafeRawBufferPointer, tagged: Bool) -> Any? {
        var element = stored
        if tagged {
            guard element.first == 1 else { return nil }
            element = UnsafeRawBufferPointer(rebasing: element[1...])
        }
        // Old mixed values: their links are not followed (they read as .none).
        if property.type == .any { return decodeMixed(element, nil) }
        guard property.type == .object else { return decodeScalar(property.type, element) }
        guard let target = property.objectClass, let targetLayout = layout(target) else { return nil }
        let targetKey = UInt64(littleEndian: element.loadUnaligned(as: UInt64.self))
        guard let tree = try? oldTxn.openTree(TreeName.objects(target), create: false), tree != absentTree,
              let value = oldTxn.get(tree, key: targetKey, "Reading an old '\(target)' object") else { return nil }
        guard let record = core.recording({ try targetLayout.current(bytes(of: value)) }) else { return nil }
        return MigrationObject(.old(record: record, layout: targetLayout, key: targetKey), self)
    }

    fileprivate func newValue(_ object: ObjectBase, _ name: String) -> Any? {
        guard let info = object._info, let c = info.descriptor.propertyIndex[name] else {
            core.fail(Realm.Error(.invalidValue, "'\(type(of: object).className())' has no property named '\(name)' in the new schema."))
            return nil
        }
        let value = info.accessors[c].value(of: object)
        if let linked = value as? ObjectBase { return MigrationObject(.new(linked), self) }
        if case Optional<Any>.none = value { return nil }
        return value
    }

    /// The column setNewValue found last: a block sets the same few
    /// properties of every object, and comparing a name is cheaper than
    /// hashing it.
    private var lastSet: (info: ClassInfo, name: String, column: Int)?

    fileprivate func setNewValue(_ object: ObjectBase, _ name: String, _ value: Any?) {
        let c: Int
        if let last = lastSet, last.info === object._info, last.name == name {
            c = last.column
        } else if let info = object._info, let found = info.descriptor.propertyIndex[name] {
            c = found
            lastSet = (info, name, found)
        } else {
            core.fail(Realm.Error(.invalidValue, "'\(type(of: object).className())' has no property named '\(name)' in the new schema."))
            return
        }
        guard let info = object._info else { return }
        let value: Any = value.map(unwrapMigrationObjects) ?? (value as Any)
        if info.columns[c].isPrimary {
            guard !info.keyedByPrimaryKey else {
                core.fail(Realm.Error(.invalidValue, "Cannot change primary key '\(info.name).\(name)' in a migration: its values are the objects' keys."))
                return
            }
            // Written to the record directly; the pk: tree is rebuilt (and
            // checked for duplicates) after the block.
            let scratch = info.type.init()
            guard core.recording(otherwise: .invalidValue, { try info.accessors[c].setValue(value, on: scratch, realm: core) }) != nil else { return }
            var writer = _RecordWriter(info: info, realm: core)
            let encoded: Void? = core.recording(otherwise: .invalidValue) {
                for column in info.storageOrder { try info.accessors[column].encodeUnmanaged(scratch, column: column, into: &writer) }
            }
            guard encoded != nil else { return }
            let slot = info.slots[c]
            writer.bytes.withUnsafeBytes { raw in
                let view = RecordView(base: raw.baseAddress!, size: raw.count)
                setRaw(object, c, isNull: view.isNull(slot), view.field(slot, info.layout))
            }
            return
        }
        _ = core.recording(otherwise: .invalidValue) { try info.accessors[c].setValue(value, on: object, realm: core) }
    }

    /// Replaces a column's stored bytes, keeping index and backlink trees in
    /// step (updateColumn), except the primary key: rebuilt after the block.
    fileprivate func setRaw(_ object: ObjectBase, _ c: Int, isNull: Bool, _ raw: UnsafeRawBufferPointer) {
        guard let info = object._info, let write = core.write else { return }
        if info.columns[c].isPrimary {
            let record = object._currentRecord()
            let updated = replacingColumn(record, info.slots[c], info.layout, isNull: isNull, raw)
            core.putRecord(info, object._key, updated, in: write)
            core.generation &+= 1
            primaryKeysTouched.insert(info.name)
        } else {
            core.updateColumn(object, c, isNull: isNull, raw)
        }
    }

    private func unwrapMigrationObjects(_ value: Any) -> Any {
        // Scalars are told by their type alone: a cast of each to a protocol
        // (or a bridging cast to [Any]) costs more than the write it precedes.
        if scalarTypes.contains(ObjectIdentifier(type(of: value))) { return value }
        return (value as? MigrationValueContainer)?.unwrappingMigrationObjects() ?? value
    }
}

/// Types of values that hold no MigrationObject.
private let scalarTypes: Set<ObjectIdentifier> = [
    ObjectIdentifier(Int.self), ObjectIdentifier(Int64.self), ObjectIdentifier(Int32.self), ObjectIdentifier(Int16.self),
    ObjectIdentifier(Int8.self), ObjectIdentifier(Bool.self), ObjectIdentifier(Double.self), ObjectIdentifier(Float.self),
    ObjectIdentifier(String.self), ObjectIdentifier(Data.self), ObjectIdentifier(Date.self), ObjectIdentifier(UUID.self),
    ObjectIdentifier(ObjectId.self), ObjectIdentifier(Decimal128.self),
]

/// Values that may hold MigrationObjects: a new one stands for its object.
private protocol MigrationValueContainer {
    func unwrappingMigrationObjects() -> Any
}

extension MigrationObject: MigrationValueContainer {
    fileprivate func unwrappingMigrationObjects() -> Any {
        if case let .new(managed) = backing { return managed }
        return self
    }
}

extension Array: MigrationValueContainer {
    fileprivate func unwrappingMigrationObjects() -> Any {
        map { ($0 as? MigrationValueContainer)?.unwrappingMigrationObjects() ?? $0 }
    }
}

extension Dictionary: MigrationValueContainer where Key == String {
    fileprivate func unwrappingMigrationObjects() -> Any {
        mapValues { ($0 as? MigrationValueContainer)?.unwrappingMigrationObjects() ?? $0 }
    }
}

/// Decodes a stored scalar field (not a link, not a collection).
private func decodeScalar(_ type: PropertyType, _ field: UnsafeRawBufferPointer) -> Any? {
    switch type {
    case .int: return Int._rlmLoad(field)
    case .bool: return Bool._rlmLoad(field)
    case .float: return Float._rlmLoad(field)
    case .double: return Double._rlmLoad(field)
    case .string: return String._rlmLoad(field)
    case .data: return Data._rlmLoad(field)
    case .date: return Date._rlmLoad(field)
    case .objectId: return ObjectId._rlmLoad(field)
    case .decimal128: return Decimal128._rlmLoad(field)
    case .UUID: return UUID._rlmLoad(field)
    case .any, .object, .linkingObjects: return nil
    }
}

/// The record layout of a stored class (as ClassInfo computes it, from the
/// stored schema alone), to read records written with an older schema. A
/// class: every old MigrationObject holds one.
final class StoredLayout {
    let stored: StoredClass
    let layout: RecordLayout
    let slots: [String: (ColumnSlot, StoredProperty)]
    let generations: RecordGenerations?

    init(_ stored: StoredClass) {
        self.stored = stored
        let storage = stored.storageProperties
        let positional = PositionalLayout(storage, of: stored)
        var slots: [String: (ColumnSlot, StoredProperty)] = [:]
        for (position, property) in storage.enumerated() where property.retired != true {
            slots[property.name] = (positional.slots[position], property)
        }
        if stored.keyedByPrimaryKey == true, let key = stored.properties.first(where: \.primaryKey) {
            slots[key.name] = (ColumnSlot(offset: 0, nullBit: 0, width: ColumnSlot.objectKey), key)
        }
        self.slots = slots
        layout = positional.layout
        generations = RecordGenerations(stored)
    }

    /// The last name looked up: a block reads the same few properties of
    /// every object, and comparing a name is cheaper than hashing it.
    private var lastLookup: (name: String, slot: (ColumnSlot, StoredProperty))?

    func slot(named name: String) -> (ColumnSlot, StoredProperty)? {
        if let last = lastLookup, last.name == name { return last.slot }
        guard let found = slots[name] else { return nil }
        lastLookup = (name, found)
        return found
    }

    /// A stored record of this class in this layout (an older generation's
    /// upgraded: RecordGenerations.swift, G3).
    func current(_ record: UnsafeRawBufferPointer) throws -> [UInt8] {
        try generations?.upgrade(record) ?? [UInt8](record)
    }

    /// `current(record)` into `buffer` (its capacity reused).
    func current(_ record: UnsafeRawBufferPointer, into buffer: inout [UInt8]) throws {
        buffer.removeAll(keepingCapacity: true)
        if let generations {
            let upgraded = try generations.upgrade(record) { size in
                buffer.append(contentsOf: repeatElement(0, count: size))
                _ = buffer.withUnsafeMutableBytes { generations.write(record, into: $0) }
                return true
            }
            if upgraded { return }
        }
        buffer.append(contentsOf: record)
    }

    /// Calls body with `record` as this layout reads it (copied only when
    /// it is of an older generation).
    func withCurrent<R>(_ record: UnsafeRawBufferPointer, _ body: (RecordView) throws -> R) throws -> R {
        if let upgraded = try generations?.upgrade(record) {
            return try upgraded.withUnsafeBytes { try body(RecordView(base: $0.baseAddress!, size: $0.count)) }
        }
        return try body(RecordView(base: record.baseAddress!, size: record.count))
    }
}

/// Stored bytes of `old` are valid bytes of `new`: same type, class and
/// collection kind; optionality may change on plain values (a nil becomes
/// the default when the new property is required).
func storageCompatible(_ old: StoredProperty, _ new: StoredProperty) -> Bool {
    old.type == new.type && old.objectClass == new.objectClass && old.collection == new.collection
        && (old.optional == new.optional || old.collection == .none)
}

/// Every tree a stored class may own.
func treeNames(of stored: StoredClass) -> [String] {
    var names = [TreeName.objects(stored.name), TreeName.primaryKey(stored.name), TreeName.deleted(stored.name)]
    for property in stored.properties {
        if property.indexed { names.append(TreeName.index(stored.name, property.name)) }
        if property.fullText == true { names.append(TreeName.fullText(stored.name, property.name)) }
        if property.hasBacklinkTree { names.append(TreeName.backlinks(stored.name, property.name)) }
    }
    return names
}

extension StoredClass {
    var publicSchema: ObjectSchema {
        ObjectSchema(className: name, properties: properties.map {
            Property(name: $0.name, type: $0.type, isOptional: $0.optional, isPrimary: $0.primaryKey, isIndexed: $0.indexed,
                     isArray: $0.collection == .list, isSet: $0.collection == .set, isMap: $0.collection == .map,
                     objectClassName: $0.objectClass, linkOriginPropertyName: $0.originProperty)
        }, isEmbedded: embedded)
    }
}

// MARK: - Running a migration

/// Test seam: migrations skip the check that no other process has the file
/// open, to stand for one that opened it between that check and the commit
/// (the other process must then fail cleanly: RealmCore.checkStoredSchema).
nonisolated(unsafe) var migrationsIgnoreOtherProcessesForTesting = false

extension RealmCore {
    /// A migration rewrites records in place: a process still reading them
    /// with the old schema would misread them, so none may have the file open.
    func refuseWhileOpenElsewhere(_ what: @autoclosure () -> String) throws {
        guard !migrationsIgnoreOtherProcessesForTesting, try env.isOpenElsewhere() else { return }
        throw Realm.Error(.schemaMismatch,
                          "Cannot \(what()): another process (or a read-only Realm of this process) has the file open, and it would misread records written with the new schema. Close the file there, then open it again here.")
    }

    /// Migrates the file from `stored` to the classes of `descriptors` in one
    /// write transaction (see the top of this file).
    func migrate(from stored: StoredSchema, to descriptors: [ClassDescriptor]) throws {
        if !env.schema.withLock({ $0.classes.isEmpty }) {
            throw Realm.Error(.schemaMismatch,
                              "Cannot migrate '\(env.path)' to schema version \(configuration.schemaVersion): it is open in this process with schema version \(stored.version). Close every Realm instance of the file first.")
        }
        try refuseWhileOpenElsewhere("migrate '\(env.path)' from schema version \(stored.version) to \(configuration.schemaVersion)")
        let oldTxn = try env.beginRead()
        defer { oldTxn.abort() }
        try beginWriteTransaction()
        do {
            guard let write else { return }
            var updated = stored
            updated.version = configuration.schemaVersion
            var infos: [ClassInfo] = []
            var changed: [(ClassInfo, StoredClass)] = []
            /// Classes changed without rewriting records: their old stored class.
            var keptRecords: [String: (StoredClass, ClassDescriptor)] = [:]
            for descriptor in descriptors {
                var code = descriptor.stored
                let old = stored.class(named: descriptor.name)
                if let old {
                    let oldKey = old.properties.first(where: \.primaryKey)
                    let newKey = code.properties.first(where: \.primaryKey)
                    let stillKeyed = old.keyedByPrimaryKey == true && code.keyedByPrimaryKey == true
                        && oldKey != nil && oldKey?.name == newKey?.name && storageCompatible(oldKey!, newKey!)
                    code.keyedByPrimaryKey = stillKeyed ? true : (old.keyedByPrimaryKey == nil ? nil : false)
                }
                let unchanged = old.map { schemaDifferences(stored: $0, code: code).isEmpty } ?? false
                var storedClass = unchanged ? old! : code
                var info: ClassInfo
                if !unchanged, let old, let (appended, appendedInfo) = try withoutRewrite(old, code, descriptor, in: write) {
                    (storedClass, info) = (appended, appendedInfo)
                    keptRecords[descriptor.name] = (old, descriptor)
                    try dropRetiredTrees(of: old, now: storedClass, in: write)
                } else {
                    info = try ClassInfo(descriptor: descriptor, stored: storedClass) { try write.txn.openTree($0, create: true) }
                    if let old, !unchanged { changed.append((info, old)) }
                }
                if let index = updated.classes.firstIndex(where: { $0.name == descriptor.name }) {
                    updated.classes[index] = storedClass
                } else {
                    updated.classes.append(storedClass)
                }
                infos.append(info)
            }
            write.registeredClasses += infos.map(\.name)
            let state = SchemaState(classes: infos, stored: updated)
            env.schema.withLock { $0 = state }
            schemaState = state
            generation &+= 1
            for (info, old) in changed { try rewriteRecords(info, from: old, oldTxn: oldTxn, in: write) }
            write.becomingEmbedded = Set(changed.filter { $0.0.isEmbedded && !$0.1.embedded }.map { ObjectIdentifier($0.0) })
            if let block = configuration.migrationBlock {
                let migration = Migration(core: self, oldTxn: oldTxn, oldStored: stored, newSchema: state.publicSchema)
                migration.renameWithoutRewrite = { typeName, from, to in
                    // The class's records stay as they are: the renamed
                    // property keeps its column (only its name changes).
                    guard let (old, descriptor) = keptRecords[typeName],
                          let renamed = renamingStorage(of: old, from: from, to: to, code: descriptor.stored),
                          let (next, info) = try self.withoutRewrite(renamed, descriptor.stored, descriptor, in: write) else {
                        return false
                    }
                    guard let index = infos.firstIndex(where: { $0.name == typeName }),
                          let storedIndex = updated.classes.firstIndex(where: { $0.name == typeName }) else { return false }
                    let replaced = infos[index]
                    infos[index] = info
                    updated.classes[storedIndex] = next
                    let state = SchemaState(classes: infos, stored: updated)
                    self.env.withRetiredClasses { $0.append(replaced) }
                    self.env.schema.withLock { $0 = state }
                    self.schemaState = state
                    self.generation &+= 1
                    // A second rename in the class starts from this one.
                    keptRecords[typeName] = (next, descriptor)
                    return true
                }
                block(migration, stored.version)
                for name in migration.deletedClasses where state.byName[name] == nil {
                    updated.classes.removeAll { $0.name == name }
                }
                for name in migration.primaryKeysTouched {
                    if let info = schemaState.byName[name], !changed.contains(where: { $0.0 === info }) { changed.append((info, StoredClass(info.descriptor))) }
                }
            }
            if let error = write.error { throw error }
            for (info, _) in changed { try rebuildPrimaryKeys(info, in: write) }
            for (info, old) in changed where info.isEmbedded && !old.embedded { try checkNowEmbedded(info, in: write) }
            let meta = try write.txn.openTree(TreeName.meta, create: true)
            metaTree = absentTree
            updated.format = updated.neededFormat // the classes as migrated
            try updated.encoded().withUnsafeBytes { try write.txn.store(meta, Array(MetaKey.schema.utf8), $0, "Storing the schema") }
            // Again just before the commit: a process may have opened the file while the block ran.
            try refuseWhileOpenElsewhere("migrate '\(env.path)' from schema version \(stored.version) to \(configuration.schemaVersion)")
            try commitWriteTransaction()
        } catch {
            if isInWriteTransaction { cancelWriteTransaction() }
            throw error
        }
    }

    /// Rewrites every record of `info`'s class from the layout of `old`,
    /// rebuilding its index trees and clearing backlinks of links that went.
    private func rewriteRecords(_ info: ClassInfo, from old: StoredClass, oldTxn: EngineTxn, in write: WriteTransaction) throws {
        let layout = StoredLayout(old)
        let defaultRecord = try defaultRecord(info)
        // Which new columns copy old bytes.
        var sources: [Int: (ColumnSlot, Bool)] = [:] // column -> (old slot, nil allowed)
        for c in info.storageOrder {
            let property = StoredProperty(info.columns[c].property)
            if let (slot, oldProperty) = layout.slots[property.name], storageCompatible(oldProperty, property) {
                sources[c] = (slot, property.optional)
            }
        }
        for column in info.columns where (column.isLink || column.isMixed) && sources[column.index] == nil {
            write.clear(column.backlinkTree, "Clearing the backlinks of '\(info.name).\(column.name)'")
        }
        for property in old.properties where property.hasBacklinkTree && info.descriptor.propertyIndex[property.name] == nil {
            let tree = try write.txn.openTree(TreeName.backlinks(info.name, property.name), create: false)
            if tree != absentTree { write.clear(tree, "Dropping the backlinks of '\(info.name).\(property.name)'") }
        }
        for c in info.indexedColumns { write.clear(info.columns[c].indexTree, "Rebuilding the index of '\(info.name).\(info.columns[c].name)'") }
        for c in info.fullTextColumns { write.clear(info.columns[c].fullTextTree, "Rebuilding the full-text index of '\(info.name).\(info.columns[c].name)'") }
        // Trees the new class no longer uses: indexes of properties removed
        // or no longer indexed, the pk: tree of a removed primary key, the
        // del: tree of a class no longer keyed by its primary key.
        var unused: [String] = old.properties.filter { property in
            property.indexed && info.descriptor.propertyIndex[property.name].map { !info.columns[$0].isIndexed } ?? true
        }.map { TreeName.index(info.name, $0.name) }
        unused += old.properties.filter { property in
            property.fullText == true && info.descriptor.propertyIndex[property.name].map { !info.columns[$0].isFullText } ?? true
        }.map { TreeName.fullText(info.name, $0.name) }
        if info.primaryKeyTree == absentTree { unused.append(TreeName.primaryKey(info.name)) }
        if !info.keyedByPrimaryKey { unused.append(TreeName.deleted(info.name)) }
        for name in unused {
            let tree = try write.txn.openTree(name, create: false)
            if tree != absentTree { write.clear(tree, "Dropping '\(name)'") }
        }
        let tree = try oldTxn.openTree(TreeName.objects(info.name), create: false)
        guard tree != absentTree, let cursor = oldTxn.openCursor(tree) else { return }
        defer { cursor.close() }
        var progress = migrationProgress(info.name, .rewritingRecords, total: oldTxn.count(tree, "Counting '\(info.name)' objects"))
        defer { progress.finish() }
        var entry = cursor.first()
        var writer = _RecordWriter(info: info, realm: self)
        while let (k, value) = entry.map({ ($0.key, $0.value) }) {
            progress.advance()
            let key = keyValue(k)
            try layout.withCurrent(bytes(of: value)) { record in defaultRecord.withUnsafeBytes { raw in
                let defaultView = RecordView(base: raw.baseAddress!, size: raw.count)
                writer = _RecordWriter(info: info, realm: self, buffer: writer.bytes)
                for c in info.storageOrder {
                    let slot = info.slots[c]
                    if let (oldSlot, nilAllowed) = sources[c] {
                        if oldSlot.width == ColumnSlot.objectKey {
                            withPrimaryKeyBytes(objectKey: key) { writer.write(c, isNull: false, $0) }
                            continue
                        }
                        let isNull = record.isNull(oldSlot)
                        if !isNull || nilAllowed {
                            writer.write(c, isNull: isNull, record.field(oldSlot, layout.layout))
                            continue
                        }
                    }
                    writer.write(c, isNull: defaultView.isNull(slot), defaultView.field(slot, info.layout))
                }
            } }
            putRecord(info, key, writer.bytes, in: write)
            writer.bytes.withUnsafeBytes { raw in
                let view = RecordView(base: raw.baseAddress!, size: raw.count)
                for c in info.indexedColumns {
                    let column = info.columns[c]
                    write.put(column.indexTree, indexEntry(column, view.isNull(info.slots[c]), view.field(info.slots[c], info.layout), key), [],
                              "Indexing '\(info.name).\(column.name)'")
                }
                indexFullText(info, key, old: nil, new: view, in: write)
            }
            if let error = write.error { throw error }
            entry = cursor.next()
        }
        generation &+= 1
    }

    /// A class that became embedded (as Realm does it): an object no link
    /// points to is deleted, one linked more than once is an error.
    private func checkNowEmbedded(_ info: ClassInfo, in write: WriteTransaction) throws {
        let incoming = schemaState.incoming[ObjectIdentifier(info)] ?? []
        var keys: [UInt64] = []
        if let cursor = write.txn.openCursor(info.objectsTree) {
            var key = cursor.firstKey()
            while let k = key { keys.append(keyValue(k)); key = cursor.nextKey() }
            cursor.close()
        }
        for key in keys {
            var links: UInt32 = 0
            for (origin, c) in incoming {
                let column = origin.columns[c]
                for source in backlinkSources(column, target: key) { links += backlinkCount(column, target: key, source: source) }
            }
            if links == 0 {
                deleteRow(info, key, in: write)
            } else if links > 1 {
                throw Realm.Error(.schemaMismatch,
                                  "Cannot migrate '\(info.name)' to an embedded class: one of its objects is linked \(links) times, and an embedded object has exactly one parent. In the migration block, remove the extra links (or give each parent its own copy).")
            }
            if let error = write.error { throw error }
        }
    }

    /// Rebuilds the pk: tree of a (not keyed) class from its records; a
    /// duplicate is an error naming the value.
    private func rebuildPrimaryKeys(_ info: ClassInfo, in write: WriteTransaction) throws {
        guard let pk = info.primaryKeyColumn, info.primaryKeyTree != absentTree else { return }
        let column = info.columns[pk]
        let slot = info.slots[pk]
        write.clear(info.primaryKeyTree, "Rebuilding the primary keys of '\(info.name)'")
        var keys: [UInt64] = []
        keys.reserveCapacity(write.txn.count(info.objectsTree, "Counting '\(info.name)' objects"))
        if let cursor = write.txn.openCursor(info.objectsTree) {
            var key = cursor.firstKey()
            while let k = key { keys.append(keyValue(k)); key = cursor.nextKey() }
            cursor.close()
        }
        for key in keys {
            guard let value = loadRecord(info, key) else { continue }
            let record = RecordView(base: UnsafeRawPointer(value.data)!, size: value.size)
            let isNull = record.isNull(slot)
            let field = record.field(slot, info.layout)
            let claim = withKey(key) { objectKey in
                withBytesKey(indexKey(column.type, isNull: isNull, field)) { write.claim(info.primaryKeyTree, $0, objectKey, "Indexing the primary key of '\(info.name)'") }
            }
            if claim == .exists {
                let shown = isNull ? "nil" : decodeScalar(column.type, field).map(describeValue) ?? "?"
                throw Realm.Error(.schemaMismatch,
                                  "Primary key property '\(info.name).\(column.name)' has duplicate values after migration (\(shown)): give every object a distinct value in the migration block.")
            }
            if let error = write.error { throw error }
        }
    }
}
