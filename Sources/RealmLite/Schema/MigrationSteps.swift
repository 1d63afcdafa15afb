import CStorage

// Two parts of a migration (Migration.swift runs it): telling
// Configuration.migrationProgress how far it has come, and deciding when a
// class's change leaves its records as they are (RecordGenerations.swift).

// MARK: - Progress

/// Counts one pass of a migration and tells Configuration.migrationProgress
/// every `interval` objects and at the end.
struct MigrationProgressCounter {
    static let interval = 16_384
    let report: MigrationProgressBlock?
    let className: String
    let step: MigrationProgress.Step
    let total: Int
    private(set) var completed = 0

    init(report: MigrationProgressBlock?, className: String, step: MigrationProgress.Step, total: Int) {
        self.report = report
        self.className = className
        self.step = step
        self.total = total
    }

    /// One object is about to be done; reports the ones done before it.
    @inline(__always)
    mutating func advance() {
        if completed > 0 && completed % Self.interval == 0 { tell() }
        completed += 1
    }

    func finish() { tell() }

    private func tell() {
        report?(MigrationProgress(className: className, step: step, completed: completed, total: total))
    }
}

extension RealmCore {
    func migrationProgress(_ className: String, _ step: MigrationProgress.Step, total: Int) -> MigrationProgressCounter {
        MigrationProgressCounter(report: configuration.migrationProgress, className: className, step: step, total: total)
    }
}

// MARK: - Changes that leave the records as they are

extension RealmCore {
    /// The values of a new instance of `info`'s class, as a record.
    func defaultRecord(_ info: ClassInfo) throws -> [UInt8] {
        let prototype = info.type.init()
        var defaults = _RecordWriter(info: info, realm: self)
        for column in info.storageOrder { try info.accessors[column].encodeUnmanaged(prototype, column: column, into: &defaults) }
        return defaults.bytes
    }

    /// `old` changed to `code` without rewriting its records, if the change
    /// allows it (RecordGenerations.swift): properties removed (their
    /// columns retired) and plain properties added (appended, as a new
    /// generation when any are). nil when the records must be rewritten: a
    /// class without generations or out of them, a property whose type,
    /// optionality, index or primary key changed, an added primary key or
    /// indexed or full-text indexed property (its index needs every record), a change of
    /// embedding or of how the class is keyed.
    func appendingGeneration(to old: StoredClass, _ code: StoredClass) -> StoredClass? {
        guard let generations = old.generations, generations.count < Int(UInt8.max),
              old.embedded == code.embedded, old.keyedByPrimaryKey == code.keyedByPrimaryKey else { return nil }
        let codeByName = Dictionary(code.properties.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var next = old
        next.properties = []
        var kept = Set<String>()
        for property in old.properties {
            if property.retired == true { next.properties.append(property); continue }
            if let now = codeByName[property.name] {
                guard now == property else { return nil }
                next.properties.append(property)
                kept.insert(property.name)
            } else if property.type == .linkingObjects {
                continue // not in the records
            } else {
                guard !property.primaryKey else { return nil }
                var retired = property
                retired.retired = true
                next.properties.append(retired)
            }
        }
        for property in code.properties where !kept.contains(property.name) {
            guard !property.primaryKey, !property.indexed, property.fullText != true else { return nil }
            next.properties.append(property)
        }
        next.swiftType = code.swiftType
        let storageCount = next.storageProperties.count
        if storageCount != generations.last { next.generations = generations + [storageCount] }
        return next
    }

    /// `old` and `code` as a class whose records stay as they are, and its
    /// ClassInfo (with the stored defaults of a new generation); nil when
    /// the change needs the records rewritten (appendingGeneration).
    func withoutRewrite(_ old: StoredClass, _ code: StoredClass, _ descriptor: ClassDescriptor,
                        in write: WriteTransaction) throws -> (StoredClass, ClassInfo)? {
        guard var next = appendingGeneration(to: old, code) else { return nil }
        let openTree: (String) throws -> cs_tree = { try write.txn.openTree($0, create: true) }
        var info = try ClassInfo(descriptor: descriptor, stored: next, openTree: openTree)
        if next.generations != old.generations {
            next.defaults = try RecordGenerations.defaults(previous: old, next: next, prototype: defaultRecord(info))
            info = try ClassInfo(descriptor: descriptor, stored: next, openTree: openTree)
        }
        return (next, info)
    }

    /// The trees of properties `now` retired: the index and backlinks of a
    /// column nothing reads any more are emptied.
    func dropRetiredTrees(of old: StoredClass, now: StoredClass, in write: WriteTransaction) throws {
        let wasLive = Set(old.liveProperties.map(\.name))
        for property in now.properties where property.retired == true && wasLive.contains(property.name) {
            var names: [String] = []
            if property.indexed { names.append(TreeName.index(now.name, property.name)) }
            if property.fullText == true { names.append(TreeName.fullText(now.name, property.name)) }
            if property.hasBacklinkTree { names.append(TreeName.backlinks(now.name, property.name)) }
            for name in names {
                let tree = try write.txn.openTree(name, create: false)
                if tree != absentTree { write.clear(tree, "Dropping '\(name)'") }
            }
        }
    }
}

/// `old` with its live property `from` named `to`, when `code` has `to` with
/// the same stored type and neither an index nor links (whose trees are
/// named after the property) nor a primary key, and `old` has no `to`:
/// a rename that only renames the column. nil otherwise.
func renamingStorage(of old: StoredClass, from: String, to: String, code: StoredClass) -> StoredClass? {
    guard let index = old.properties.firstIndex(where: { $0.name == from && $0.retired != true }),
          !old.liveProperties.contains(where: { $0.name == to }),
          let now = code.properties.first(where: { $0.name == to }) else { return nil }
    let property = old.properties[index]
    guard property.type == now.type, property.optional == now.optional, property.collection == now.collection,
          property.objectClass == now.objectClass, !property.hasBacklinkTree, property.type != .linkingObjects,
          !property.indexed, !now.indexed, !property.primaryKey, !now.primaryKey else { return nil }
    var renamed = old
    renamed.properties[index].name = to
    return renamed
}
