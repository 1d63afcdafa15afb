import CStorage

// ClassInfo: one class as stored in one file: record layout, column slots,
// tree handles. Built once per class per open file (RealmCore+Schema.swift) and
// shared by every Realm instance on that file.

/// A property's storage facts. @unchecked Sendable: immutable once the
/// SchemaState holding it is published (targets are set before that).
final class Column: @unchecked Sendable {
    let index: Int
    let property: PropertyDescriptor
    // Copied out of `property` so that hot loops read plain fields.
    let name: String
    let type: PropertyType
    let collection: _CollectionKind
    let isOptional: Bool
    let isPrimary: Bool
    let isIndexed: Bool
    /// `@Persisted(indexed: .fullText)`: its words are in `fullTextTree`.
    let isFullText: Bool
    /// A stored column that references objects (to-one, or collection of).
    let isLink: Bool
    /// An AnyRealmValue column (or collection of): it may link to objects of
    /// any class (Storage/MixedLinks.swift).
    let isMixed: Bool
    /// How its elements are stored in the collections tree (TreeElementEncoding.swift).
    let treeElements: TreeElementEncoding
    /// Secondary index tree (`indexed: true`), else absentTree.
    var indexTree: cs_tree = absentTree
    /// Full-text index tree, else absentTree.
    var fullTextTree: cs_tree = absentTree
    /// Backlink tree for link columns, else absentTree.
    var backlinkTree: cs_tree = absentTree
    /// The linked class (links) or the origin class (linking objects).
    /// Not reference counted, and not weak: a weak reference gives its
    /// object a side table, after which every retain and release of that
    /// ClassInfo (one per object a loop reads) takes the runtime's slow
    /// path. Safe because a ClassInfo lives as long as its file's SharedEnv
    /// (retiredClasses), which whoever reads a column keeps alive.
    unowned(unsafe) var target: ClassInfo?
    /// For linking objects: the origin class's link column.
    var originColumn: Int = -1

    init(index: Int, property: PropertyDescriptor) {
        self.index = index
        self.property = property
        name = property.name
        type = property.shape.type
        collection = property.shape.collection
        isOptional = property.shape.isOptional
        isPrimary = property.isPrimary
        isIndexed = property.isIndexed
        isFullText = property.isFullText
        isLink = property.shape.type == .object
        isMixed = property.shape.type == .any
        treeElements = TreeElementEncoding(type: type, optional: isOptional, collection: collection)
    }
}

/// @unchecked Sendable: immutable once published in a SchemaState; `slots`
/// is written only in init and freed in deinit.
final class ClassInfo: @unchecked Sendable {
    let descriptor: ClassDescriptor
    let layout: RecordLayout
    /// Per column (descriptor order): where the value lives in the record.
    let slots: UnsafeMutablePointer<ColumnSlot>
    let columns: [Column]
    /// Per column: the accessor of the Swift property (kept apart from
    /// Column so per-object loops copy one reference, not a descriptor).
    /// A buffer freed in deinit, not an array: `[any PropertyAccessor]`
    /// would be one more generic type for a process's first open to build.
    let accessors: UnsafeMutableBufferPointer<any PropertyAccessor>
    /// Per column: offset of its Persisted.column field inside instances;
    /// materializing an object stores the column numbers through these.
    let columnFieldOffsets: UnsafeMutableBufferPointer<Int>
    /// Live stored columns in record order (var fields are appended in this order).
    let storageOrder: [Int]
    /// An insert's plan for storageOrder: the fixed columns whose values it
    /// copies straight from the instance's memory (PropertyAccessor's
    /// plainValue), then the other columns, in record order, encoded by
    /// their accessors (skipping the generic encoder and the existential
    /// per column is most of an insert of scalars). The copies are (from,
    /// to, width) triples in one [Int]: an array of a struct would be one
    /// more generic type for a process's first open to build. Width 0: a
    /// Bool held in its null bit, `to` that bit (no array of their own: one
    /// more array would be one more retain per insert).
    let plainCopies: [Int]
    /// The plain copies into packed integer slots (8 bytes in the wide
    /// form), (from, to, width) triples apart: the writer takes their width
    /// code as it copies them.
    let plainIntCopies: [Int]
    /// layout.wide, which every insert writes (computed once).
    let wideLayout: RecordLayout
    let encodedOrder: [Int]
    /// The var-field index of the last live var column (-1: none): a record
    /// writer ends the retired var fields after it (Record.swift).
    let lastLiveVarField: Int
    /// The generation records are written with (their first byte, when
    /// layout.headerSize is 1).
    let generation: UInt8
    /// Older record generations to upgrade from; nil when every record is
    /// current (RecordGenerations.swift).
    let generations: RecordGenerations?
    let linkColumns: [Int]
    /// AnyRealmValue columns, whose links are tracked apart (MixedLinks.swift).
    let mixedColumns: [Int]
    let indexedColumns: [Int]
    /// The columns an equality can look up through the index (indexed
    /// String or Int scalars, not the primary key): a lookup finds its
    /// column among these few by name, with no hashing of the name.
    let lookupColumns: [Column]
    /// The names of the key paths `where` closures used on this class.
    let keyPathNames = KeyPathNames()
    /// Full-text indexed columns (Storage/FullTextIndex.swift).
    let fullTextColumns: [Int]
    let objectsTree: cs_tree
    /// `pk:` tree (encoded primary key -> object key); absentTree when the
    /// class has no primary key or is keyed by it.
    let primaryKeyTree: cs_tree
    /// The object key is the (required Int) primary key, order-preserving
    /// (objectKey(primaryKey:)); the key's column is not in the record.
    let keyedByPrimaryKey: Bool
    /// Keyed classes: object key -> stamp of its last delete (and key
    /// [0] -> stamp of the last delete of every object), so that accessors
    /// of a deleted object stay invalid when its key is used again
    /// (Incarnation.swift). absentTree otherwise.
    let deletedTree: cs_tree
    /// The link columns of every class that link to this one (set once by
    /// SchemaState before it is published; weak: classes link in cycles).
    /// `@links` in queries walks them.
    var incomingLinks: [IncomingLink] = []
    /// The AnyRealmValue columns of every class (any of them may link here;
    /// their backlink trees are keyed by class name, MixedLinks.swift).
    var mixedLinkSources: [IncomingLink] = []
    var name: String { descriptor.name }
    var type: ObjectBase.Type { descriptor.type }
    var isEmbedded: Bool { descriptor.isEmbedded }
    var primaryKeyColumn: Int? { descriptor.primaryKeyIndex }
    /// The Swift type of the primary-key property (lookups by a key of
    /// exactly this type encode it without conversion).
    let primaryKeyValueType: Any.Type?
    /// The query paths of this class's scalar properties, resolved on
    /// first use (QueryPathCache.swift).
    let directPaths: DirectPathCache

    /// `stored` gives the record order of the properties (same set as the
    /// descriptor's; checked by the caller). `openTree` opens/creates a tree.
    init(descriptor: ClassDescriptor, stored: StoredClass, openTree: (String) throws -> cs_tree) throws {
        self.descriptor = descriptor
        // The trees first: a throw here leaves no buffer allocated (deinit
        // does not run for a partly initialized object), and the records
        // tree's children, asked for at its first open, arrive while the
        // rest is built.
        let name = descriptor.name
        let keyColumn = stored.keyedByPrimaryKey == true ? descriptor.primaryKeyIndex : nil
        objectsTree = try openTree(TreeName.objects(name))
        primaryKeyTree = descriptor.primaryKeyIndex == nil || keyColumn != nil ? absentTree : try openTree(TreeName.primaryKey(name))
        deletedTree = keyColumn != nil ? try openTree(TreeName.deleted(name)) : absentTree
        // By index, not enumerated(): its (offset, element) pairs are a
        // generic type the runtime would build at a process's first open.
        let columns = descriptor.properties.indices.map { Column(index: $0, property: descriptor.properties[$0]) }
        self.columns = columns
        let accessors = UnsafeMutableBufferPointer<any PropertyAccessor>.allocate(capacity: descriptor.properties.count)
        for index in descriptor.properties.indices { accessors.initializeElement(at: index, to: descriptor.properties[index].accessor) }
        self.accessors = accessors
        primaryKeyValueType = descriptor.primaryKeyIndex.map { accessors[$0].valueType }
        directPaths = DirectPathCache(count: columns.count)
        // DynamicObjects have no @Persisted fields to bind.
        columnFieldOffsets = .allocate(capacity: descriptor.isDynamic ? 0 : columns.count)
        for (index, accessor) in accessors.enumerated() where !descriptor.isDynamic { columnFieldOffsets[index] = accessor.columnFieldOffset }
        keyedByPrimaryKey = keyColumn != nil
        // Record order: the stored storage columns, retired ones included
        // (RecordGenerations.swift); each live one maps to its column.
        let storage = stored.storageProperties
        let positional = PositionalLayout(storage, of: stored)
        slots = .allocate(capacity: max(columns.count, 1))
        for column in columns { slots[column.index] = ColumnSlot(offset: 0, nullBit: 0, width: ColumnSlot.unstored) }
        if let keyColumn { slots[keyColumn] = ColumnSlot(offset: 0, nullBit: 0, width: ColumnSlot.objectKey) }
        var order: [Int] = []
        var lastLiveVar = -1
        for (position, property) in storage.enumerated() where property.retired != true {
            if let index = descriptor.propertyIndex[property.name], columns[index].property.isStored, index != keyColumn {
                order.append(index)
                slots[index] = positional.slots[position]
                if positional.slots[position].width == 0 { lastLiveVar = Int(positional.slots[position].offset) }
            }
        }
        storageOrder = order
        var copies: [Int] = [], intCopies: [Int] = [], encoded: [Int] = []
        for index in order {
            let plain = descriptor.isDynamic ? (offset: 0, width: 0) : accessors[index].plainValue
            // The writer fills the wide form (8-byte integers) and packs it.
            let slot = positional.layout.wideSlot(slots[index])
            if plain.width == 1 && slot.width == ColumnSlot.bitBool {
                copies += [plain.offset, Int(slot.offset), 0]
            } else if plain.width > 0 && Int(slot.width) == plain.width {
                if slots[index].width == ColumnSlot.packedInt {
                    intCopies += [plain.offset, Int(slot.offset), plain.width]
                } else {
                    copies += [plain.offset, Int(slot.offset), plain.width]
                }
            } else {
                encoded.append(index)
            }
        }
        plainCopies = copies
        plainIntCopies = intCopies
        wideLayout = positional.layout.wide
        encodedOrder = encoded
        lastLiveVarField = lastLiveVar
        layout = positional.layout
        generation = UInt8(max(0, (stored.generations?.count ?? 1) - 1))
        generations = RecordGenerations(stored)
        linkColumns = order.filter { columns[$0].isLink }
        mixedColumns = order.filter { columns[$0].isMixed }
        indexedColumns = order.filter { columns[$0].isIndexed }
        lookupColumns = order.map { columns[$0] }.filter {
            $0.isIndexed && !$0.isPrimary && $0.collection == .none && ($0.type == .string || $0.type == .int)
        }
        fullTextColumns = order.filter { columns[$0].isFullText }
        // Every stored property is set: a throw below runs deinit.
        for column in columns {
            if column.isIndexed { column.indexTree = try openTree(TreeName.index(name, column.name)) }
            if column.isFullText { column.fullTextTree = try openTree(TreeName.fullText(name, column.name)) }
            if column.isLink || column.isMixed { column.backlinkTree = try openTree(TreeName.backlinks(name, column.name)) }
        }
    }

    deinit {
        accessors.deinitialize()
        accessors.deallocate()
        slots.deallocate()
        columnFieldOffsets.deallocate()
    }

    /// Turns a new instance into an accessor of this class: every
    /// @Persisted field gets its column number.
    @inline(__always)
    func bindColumns(_ object: ObjectBase) {
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        for column in 0..<columnFieldOffsets.count {
            (base + columnFieldOffsets[column]).storeBytes(of: Int32(column), as: Int32.self)
        }
    }

    /// Calls body with `value` (a record of this class) in the current
    /// layout, upgraded into a temporary copy if it is of an older
    /// generation (RecordGenerations.swift, G3). For reads that keep no
    /// pointer to the record; accessors use RealmCore.currentRecord.
    func withCurrentRecord<R>(_ value: cs_val, _ body: (RecordView) -> R) -> R {
        let raw = UnsafeRawBufferPointer(start: value.data, count: value.size)
        if let generations, let upgraded = orStop({ try generations.upgrade(raw) }) {
            return upgraded.withUnsafeBytes { body(RecordView(base: $0.baseAddress!, size: $0.count)) }
        }
        return withExtendedLifetime(()) { body(RecordView(base: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 8)!, size: raw.count)) }
    }

    /// Every tree this class owns except deletedTree (deleteAll clears them).
    var allTrees: [cs_tree] {
        ([objectsTree, primaryKeyTree] + columns.flatMap { [$0.indexTree, $0.fullTextTree, $0.backlinkTree] }).filter { $0 != absentTree }
    }
}

/// The classes registered in one file, immutable; replaced as a whole when
/// classes are added. @unchecked Sendable: immutable after init.
final class SchemaState: @unchecked Sendable {
    static let empty = SchemaState(classes: [], stored: nil)

    let classes: [ClassInfo]
    let byName: [String: ClassInfo]
    let byType: IdentityTable<ClassInfo>
    /// For each class: the (origin class, link column) pairs that link to it.
    let incoming: IdentityTable<[(ClassInfo, Int)]>
    /// Every AnyRealmValue column: each may link to any class.
    let mixedColumns: [(ClassInfo, Int)]
    let stored: StoredSchema?

    init(classes: [ClassInfo], stored: StoredSchema?) {
        self.classes = classes
        self.stored = stored
        // Loops, not tables made of (key, class) pair arrays: each pair type
        // is a generic type the runtime builds at a process's first open.
        // The first class of a name or type wins. byName is made with its
        // capacity, as openSchema's table of names is (see there).
        var byName = [String: ClassInfo](minimumCapacity: classes.count), byType = IdentityTable<ClassInfo>()
        for info in classes {
            if byName[info.name] == nil { byName[info.name] = info }
            _ = byType.insert(ObjectIdentifier(info.type), info)
        }
        self.byName = byName
        self.byType = byType
        var incoming = IdentityTable<[(ClassInfo, Int)]>()
        for info in classes {
            for column in info.columns {
                guard let targetName = column.property.objectClassName, let target = byName[targetName] else { continue }
                column.target = target
                if column.isLink { incoming[ObjectIdentifier(target)] = (incoming[ObjectIdentifier(target)] ?? []) + [(info, column.index)] }
            }
        }
        // Linking objects: find the origin's link column.
        for info in classes {
            for column in info.columns where column.type == .linkingObjects {
                if let origin = column.target, let originName = column.property.originProperty,
                   let index = origin.descriptor.propertyIndex[originName] {
                    column.originColumn = index
                }
            }
        }
        self.incoming = incoming
        for info in classes {
            info.incomingLinks = (incoming[ObjectIdentifier(info)] ?? []).map { IncomingLink(origin: $0.0, column: $0.1) }
        }
        var mixed: [(ClassInfo, Int)] = [] // appended to only if there are any, as above
        for info in classes { for column in info.mixedColumns { mixed.append((info, column)) } }
        mixedColumns = mixed
        let mixedSources = mixedColumns.map { IncomingLink(origin: $0.0, column: $0.1) }
        for info in classes { info.mixedLinkSources = mixedSources }
    }

    var publicSchema: Schema { Schema(objectSchema: classes.map(\.descriptor.publicSchema).sorted { $0.className < $1.className }) }
}

/// A link column of another class (or this one) that targets a class.
/// `origin` is unretained for the reason Column.target is.
struct IncomingLink {
    unowned(unsafe) var origin: ClassInfo?
    let column: Int
}
