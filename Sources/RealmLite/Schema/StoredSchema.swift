import Foundation

// The schema as stored in the file (meta tree, key "schema", JSON), written
// when the file is created and whenever classes are added. Property order
// here is the record's column order, so code may reorder properties freely.
// A migration (Migration.swift) rewrites this, and the records only when it
// must: adding or removing a property appends a record *generation*
// (StoredClass.generations) instead, and records written before it are read
// through it (RecordGenerations.swift).

struct StoredSchema: Codable, Equatable {
    var version: UInt64
    var classes: [StoredClass]
    /// How objects are stored: 1 (absent) before keyed classes, 2 since,
    /// 3 since records of a class may carry a generation byte (StoredClass.generations),
    /// 4 when a property has a full-text index (a reader that knew nothing of
    /// it would change texts without changing their index), 5 since a
    /// List's field may be a marker naming its elements in the lists tree
    /// (Storage/ListTree.swift), 6 since a MutableSet's or Map's field may
    /// be such a marker too (Storage/SetMapTree.swift), 7 since a class's
    /// records may have var end offsets as wide as their size needs
    /// (StoredClass.compactOffsets, Storage/Record.swift), 8
    /// (`compactIntsFormat`) since collections in the tree may store Int
    /// elements as varints (Storage/TreeElementEncoding.swift: per
    /// collection, by its id, so older collections keep 8-byte elements),
    /// 9 (`orderedIntsFormat`) since new collections' Int elements are
    /// varints that sort as the numbers (OrderedVarint.swift; older ids keep
    /// their zigzag or 8-byte elements), 10 (`intSlotsFormat`) since a
    /// class's records may pack their integers by value (StoredClass.intSlots),
    /// 11 (`impliedLastEndFormat`) since a class's records may omit their
    /// last var field's end offset (StoredClass.impliedLastEnd), 12
    /// (`boolBitsFormat`) since a class's non-optional Bools may be held in
    /// their null bits (StoredClass.boolBits).
    /// Files of older formats are read as they are and marked current when
    /// first opened for writing: any write may move a collection into the
    /// tree or add a class whose records have compact offsets. Their classes keep u32 offsets (the
    /// marker is per class, fixed when the class is first stored, like
    /// `generations`) until a migration rewrites their records: records are
    /// never converted in place, so a read-only open reads them as they are.
    /// A reader refuses a file of a format newer than it knows, rather than
    /// misread its records (a version that knew nothing of keyed classes
    /// would look for a primary key in records that do not hold it).
    var format: Int? = StoredSchema.currentFormat

    /// Tree collections' Int elements may be varints (ListTree.compactIDBase).
    static let compactIntsFormat = 8
    /// Tree collections' Int elements may be ordered varints (ListTree.orderedIDBase).
    static let orderedIntsFormat = 9

    /// Classes may pack their integer slots (StoredClass.intSlots).
    static let intSlotsFormat = 10

    /// Classes' records may omit the last var end offset (StoredClass.impliedLastEnd).
    static let impliedLastEndFormat = 11

    /// Classes' non-optional Bools may be their null bits (StoredClass.boolBits).
    static let boolBitsFormat = 12

    /// The newest format this version reads.
    static let currentFormat = boolBitsFormat

    /// The format a file whose schema is this one is written with: the
    /// current one, since any write may put a collection in the tree.
    var neededFormat: Int { Self.currentFormat }

    func `class`(named name: String) -> StoredClass? { classes.first { $0.name == name } }

    static func decode(_ bytes: UnsafeRawBufferPointer) throws -> StoredSchema {
        let schema: StoredSchema
        do {
            // The plain JSON RealmLite writes without JSONDecoder; anything else with it.
            schema = try StoredSchemaReader.read(bytes) ?? JSONDecoder().decode(StoredSchema.self, from: Data(bytes))
        } catch {
            throw Realm.Error(.fileFormatUpgradeRequired, "The schema stored in the Realm file cannot be read (\(error)).")
        }
        if let format = schema.format, format > currentFormat {
            throw Realm.Error(.fileFormatUpgradeRequired,
                              "The Realm file was written by a newer version of RealmLite (object format \(format); this version reads up to \(currentFormat)); open it with that version or newer.")
        }
        return schema
    }

    func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var written = self
        if neededFormat > written.format ?? 1 { written.format = neededFormat }
        return Array((try? encoder.encode(written)) ?? Data())
    }
}

struct StoredClass: Codable, Equatable {
    var name: String
    var embedded: Bool
    var properties: [StoredProperty]
    /// The object key IS the primary key (a required Int): no `pk:` tree,
    /// and records do not store the key's column (docs/OBJECTS.md). Fixed
    /// when the class is first stored; absent (nil) in files written before
    /// it existed, whose Int-keyed classes keep their `pk:` trees.
    var keyedByPrimaryKey: Bool?
    /// The Swift class that stored it (its mangled name), so that a Realm
    /// opened without objectTypes can check it at open (RealmCore+Schema).
    /// Absent in files written before it existed, and ignored when the
    /// program no longer has that class. Not part of schema equality.
    var swiftType: String?
    /// Records carry a generation byte (their first), and generations[g] is
    /// how many storage columns (`storageProperties`, a prefix) records of
    /// generation g have; the last is the current one. nil: records have no
    /// generation byte (classes stored before format 3; a migration that
    /// rewrites them gives them one). RecordGenerations.swift. Spelled
    /// Optional<[Int]> for no implicit nil: the inits' assignment would
    /// then destroy that nil through `[Int]?`'s run-time metadata, built
    /// for that alone at a process's first open.
    var generations: Optional<[Int]>
    /// With more than one generation: a record of the current layout whose
    /// columns past an older generation's count give the values records of
    /// that generation read for them (the defaults when those properties
    /// were added: stored, because the program's defaults may change later).
    var defaults: Data?
    /// Records' var end offsets are 1, 2 or 4 bytes by the record's size
    /// (Storage/Record.swift); nil: always u32 (classes first stored before
    /// object format 7). Fixed when the class is first stored; a migration
    /// that rewrites the records stores the class anew (then true).
    var compactOffsets: Bool?
    /// Records pack their integer columns 1, 2, 4 or 8 bytes wide by value
    /// (Storage/Record.swift, "Integer slots"); nil: 8 bytes each (classes
    /// first stored before object format 10). Fixed like compactOffsets.
    var intSlots: Bool?
    /// Records store no end offset for their last var field: it ends where
    /// the record does (Storage/Record.swift); nil: every end is stored
    /// (classes first stored before object format 11). Fixed like compactOffsets.
    var impliedLastEnd: Bool?
    /// A non-optional Bool property's value is its null bit, with no fixed
    /// slot (Storage/Record.swift, "Bools in the null bitmap"); nil: a
    /// 1-byte slot (classes first stored before object format 12). Fixed
    /// like compactOffsets.
    var boolBits: Bool?

    init(_ descriptor: ClassDescriptor) {
        self = descriptor.storedSchema
        swiftType = _mangledTypeName(descriptor.type)
    }

    /// Without the Swift type (nil), which schema comparisons ignore: a
    /// class's ClassDescriptor.storedSchema, made from its parts as the
    /// descriptor's init has them.
    init(schemaOf name: String, embedded: Bool, properties descriptors: [PropertyDescriptor], primaryKeyIndex: Int?) {
        self.name = name
        swiftType = nil
        self.embedded = embedded
        properties = descriptors.map(StoredProperty.init)
        keyedByPrimaryKey = primaryKeyIndex.map { index in
            let property = descriptors[index]
            return property.shape.type == .int && !property.shape.isOptional && property.shape.collection == .none
                && !property.isIndexed
        } ?? false
        generations = [Self.storage(of: properties, keyed: keyedByPrimaryKey == true).count]
        compactOffsets = true
        intSlots = true
        impliedLastEnd = true
        boolBits = true
    }

    /// The properties records hold, in record order (retired ones too).
    var storageProperties: [StoredProperty] { Self.storage(of: properties, keyed: keyedByPrimaryKey == true) }

    private static func storage(of properties: [StoredProperty], keyed: Bool) -> [StoredProperty] {
        properties.filter { $0.type != .linkingObjects && !(keyed && $0.primaryKey) }
    }

    /// The properties of the schema (retired ones are only in the records).
    var liveProperties: [StoredProperty] { properties.filter { $0.retired != true } }

    /// Records written for one can be read as the other: equal but for
    /// the Swift type that stored it.
    func sameRecords(as other: StoredClass) -> Bool {
        var a = self, b = other
        a.swiftType = nil
        b.swiftType = nil
        return a == b
    }

    /// Equal as a schema: the storage details (generations, retired
    /// columns, defaults, the Swift type) do not count.
    func sameSchema(as other: StoredClass) -> Bool {
        guard name == other.name && embedded == other.embedded && keyedByPrimaryKey == other.keyedByPrimaryKey else { return false }
        // liveProperties == other.liveProperties, walked in place: filtering
        // both into arrays was most of the check every open makes (twice).
        var i = 0, j = 0
        while true {
            while i < properties.count && properties[i].retired == true { i += 1 }
            while j < other.properties.count && other.properties[j].retired == true { j += 1 }
            guard i < properties.count && j < other.properties.count else {
                return i == properties.count && j == other.properties.count
            }
            guard properties[i] == other.properties[j] else { return false }
            i += 1
            j += 1
        }
    }
}

struct StoredProperty: Codable, Equatable {
    var name: String
    var type: PropertyType
    var optional: Bool
    var collection: _CollectionKind
    var objectClass: String?
    var primaryKey: Bool
    var indexed: Bool
    var originProperty: String?
    /// A full-text index (`fts:` tree); nil (absent in the file) when false,
    /// as in files written before full-text indexes existed.
    var fullText: Bool?
    /// Removed from the class by a migration that left the records as they
    /// were: the column stays in the record layout, and nothing reads it.
    var retired: Bool?

    init(_ property: PropertyDescriptor) {
        name = property.name
        type = property.shape.type
        optional = property.shape.isOptional
        collection = property.shape.collection
        objectClass = property.shape.objectType?.className()
        primaryKey = property.isPrimary
        indexed = property.isIndexed
        originProperty = property.originProperty
        fullText = property.isFullText ? true : nil
    }

    /// A Bool column held in its null bit in classes with boolBits: a
    /// plain non-optional Bool property (not a collection's elements).
    var isBitBool: Bool { type == .bool && !optional && collection == .none }

    /// Links (and AnyRealmValues, which may link) have a `bl:` tree named
    /// after the property.
    var hasBacklinkTree: Bool { type == .object || type == .any }

    var typeDescription: String {
        var text = objectClass.map { type == .linkingObjects ? "linking objects<\($0)>" : "<\($0)>" } ?? "\(type)"
        if optional { text += "?" }
        switch collection {
        case .none: break
        case .list: text = "array" + text
        case .set: text = "set" + text
        case .map: text = "dictionary" + text
        }
        return text
    }
}

/// Human-readable differences between the stored class and the code's.
func schemaDifferences(stored: StoredClass, code: StoredClass) -> [String] {
    // The usual open: nothing changed, no tables by name to build.
    if stored.sameSchema(as: code) { return [] }
    var differences: [String] = []
    let cls = code.name
    if stored.embedded != code.embedded {
        differences.append("Class '\(cls)' has been changed from \(stored.embedded ? "embedded" : "top-level") to \(code.embedded ? "embedded" : "top-level").")
    }
    let storedByName = Dictionary(stored.liveProperties.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    let codeByName = Dictionary(code.properties.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    for property in stored.liveProperties where codeByName[property.name] == nil {
        differences.append("Property '\(cls).\(property.name)' has been removed.")
    }
    for property in code.properties {
        guard let old = storedByName[property.name] else {
            differences.append("Property '\(cls).\(property.name)' has been added.")
            continue
        }
        if old.typeDescription != property.typeDescription {
            differences.append("Property '\(cls).\(property.name)' has been changed from '\(old.typeDescription)' to '\(property.typeDescription)'.")
        }
        if old.primaryKey != property.primaryKey {
            differences.append(property.primaryKey
                ? "Primary key property '\(cls).\(property.name)' has been added."
                : "Primary key property '\(cls).\(property.name)' has been removed.")
        }
        if old.indexed != property.indexed {
            differences.append("Property '\(cls).\(property.name)' has been made \(property.indexed ? "indexed" : "unindexed").")
        }
        if (old.fullText == true) != (property.fullText == true) {
            differences.append("Property '\(cls).\(property.name)' has \(property.fullText == true ? "gained" : "lost") its full-text index.")
        }
        if old.originProperty != property.originProperty {
            differences.append("Linking objects property '\(cls).\(property.name)' now follows '\(property.originProperty ?? "")' instead of '\(old.originProperty ?? "")'.")
        }
    }
    return differences
}
