import CStorage
import Foundation

// MARK: - import

/// Rows per write transaction by default: a batch's changed pages are what
/// the engine holds in memory until the commit.
let defaultImportBatch = 10_000

/// Reads rows of `className` from standard input and adds them to the file,
/// `batch` rows per commit. Stops at the first bad row: its batch is not
/// committed, earlier batches are. Prints the rows added (unless quiet).
func importRows(_ path: String, className: String, csv: Bool, batch: Int) throws {
    // Rows come from standard input: on a terminal the user forgot `< FILE`.
    if isatty(STDIN_FILENO) == 1 {
        throw UsageError("import reads rows from standard input: redirect a file (realmlite import FILE --class C < rows.jsonl)")
    }
    let file = try RealmFile(path: path, writable: true)
    let schema = try file.schema()
    file.endTxn()
    guard let cls = schema.class(named: className) else {
        throw CLIError("\(path): no class \(className) in the stored schema (classes: \(schema.classes.map(\.name).joined(separator: ", ")))")
    }
    if cls.embedded {
        throw CLIError("\(path): \(className) is embedded: its objects belong to a parent object and are not imported on their own")
    }
    for property in cls.properties where property.isStored {
        if property.type == .any { throw CLIError("\(path): \(className).\(property.name) is AnyRealmValue, which import does not read") }
        if property.type == .object, let target = property.objectClass, schema.class(named: target)?.embedded ?? false {
            throw CLIError("\(path): \(className).\(property.name) links to embedded \(target) objects, which import cannot create")
        }
    }
    var st = stat()
    let total: UInt64 = fstat(STDIN_FILENO, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG ? UInt64(st.st_size) : 0
    let progress = Progress("import", total: total)
    defer { progress.finish() }
    var writer = ImportWriter(file: file, cls: cls)
    var rows = 0, committed = 0
    do {
        var source = try RowSource(csv: csv, cls: cls)
        while let (members, line) = try source.next() {
            do { try writer.add(try writer.encoder.encode(members), number: rows + 1) } catch let error as RowError {
                throw CLIError("row \(rows + 1) (line \(line)): \(error.message)")
            }
            rows += 1
            progress.set(source.consumed)
            // A batch with a link to a later row waits for that row.
            if rows - committed >= batch && writer.forwardLinks.isEmpty {
                try writer.commit()
                committed = rows
            }
        }
        if let (target, link) = writer.forwardLinks.min(by: { $0.value.row < $1.value.row }) {
            throw CLIError("row \(link.row): property \(link.property): links to \(className) object \(target), which is neither in the file nor in the input")
        }
        try writer.commit()
        committed = rows
    } catch {
        writer.abort()
        var message = (error as? CLIError)?.description ?? (error as? InputError)?.message ?? "\(error)"
        if !message.hasPrefix(path + ": ") { message = "\(path): \(className): " + message }
        let kept = committed == 0 ? "nothing was imported" : "the first \(committed) rows were imported (committed in batches of \(batch)), nothing after them"
        throw CLIError("\(message); \(kept)")
    }
    progress.finish()
    if !Progress.quiet { print("\(path): imported \(rows) \(className) objects") }
}

/// Rows from standard input as (name, value) members: a JSON object per
/// row, or a CSV record whose fields are read by the header's names.
struct RowSource {
    private var json: JSONRows?
    private var csv: CSVRows?
    private var header: [String] = []
    private var properties: [FileProperty?] = []

    init(csv isCSV: Bool, cls: FileClass) throws {
        let input = ByteInput(fd: STDIN_FILENO)
        guard isCSV else {
            json = JSONRows(input)
            return
        }
        var reader = CSVRows(input)
        guard let (fields, _) = try reader.next() else { throw InputError(message: "no CSV header line") }
        header = fields
        properties = fields.map { name in cls.properties.first { $0.name == name } }
        csv = reader
    }

    var consumed: UInt64 { json?.input.consumed ?? csv?.input.consumed ?? 0 }

    mutating func next() throws -> ([(String, JSONValue)], Int)? {
        if json != nil {
            guard let (value, line) = try json!.next() else { return nil }
            guard case .object(let members) = value else {
                throw InputError(message: "line \(line): a row must be a JSON object, not \(value.kind)")
            }
            return (members, line)
        }
        guard let (fields, line) = try csv!.next() else { return nil }
        guard fields.count == header.count else {
            throw InputError(message: "line \(line): \(fields.count) fields where the header has \(header.count)")
        }
        var members: [(String, JSONValue)] = []
        for (i, text) in fields.enumerated() {
            members.append((header[i], try Self.csvValue(text, properties[i], name: header[i], line: line)))
        }
        return (members, line)
    }

    /// A CSV field as the JSON value dump would have written: empty is nil
    /// (or "" for a required string), collections are JSON text.
    private static func csvValue(_ text: String, _ property: FileProperty?, name: String, line: Int) throws -> JSONValue {
        if name == "_key" { return text.isEmpty ? .null : .number(text) }
        guard let property else { return .string(text) } // the encoder names the unknown property
        if property.collection != .none {
            if text.isEmpty { return .null }
            var parser = JSONRows(ByteInput(bytes: Array(text.utf8)))
            do { return try parser.value(depth: 0) } catch let error as InputError {
                throw InputError(message: "line \(line): property \(name): not JSON (\(error.message))")
            }
        }
        if text.isEmpty { return property.type == .string && !property.optional ? .string("") : .null }
        switch property.type {
        case .int, .float, .double, .object: return Double(text) != nil && !text.contains(where: \.isLetter) ? .number(text) : .string(text)
        case .bool: return text == "true" ? .bool(true) : text == "false" ? .bool(false) : .string(text)
        default: return .string(text)
        }
    }
}

/// The write side: one write transaction per batch, taken without waiting
/// (another process writing gives an error, not a hang); keeps the
/// primary-key, index and backlink trees and the key counter in step with
/// the records, as RealmCore+ObjectWrites.swift does.
struct ImportWriter {
    let file: RealmFile
    let cls: FileClass
    let encoder: RowEncoder
    private var txn: OpaquePointer?
    private var objects: cs_tree = 0, meta: cs_tree = 0, primaryKeys: cs_tree = 0
    private var indexes: [cs_tree] = []
    /// Full-text indexed columns and their fts: trees (as the library keeps them).
    private var fullTextColumns: [RecordLayout.Column] = []
    private var fullTextTrees: [cs_tree] = []
    private var backlinks: [cs_tree] = []
    private var targets: [cs_tree?] = []
    /// The next object key of an unkeyed class (realm:meta "nextkey:C").
    private var nextKey: UInt64 = 1
    private var nextKeyChanged = false
    /// Links to objects of this class not yet in the input: target key ->
    /// the first row and property linking to it. A batch is committed only
    /// when this is empty, so no commit holds a link to a missing object.
    private(set) var forwardLinks: [UInt64: (row: Int, property: String)] = [:]

    init(file: RealmFile, cls: FileClass) {
        self.file = file
        self.cls = cls
        encoder = RowEncoder(cls)
    }

    private func check(_ rc: Int32) throws {
        if rc != 0 { throw RealmFile.error(rc, path: file.path) }
    }

    private func open(_ name: String, create: Bool = true) throws -> cs_tree? {
        var tree: cs_tree = 0
        let rc = cs_tree_open(txn, name, create ? UInt32(CS_CREATE) : 0, &tree)
        if rc == Int32(CS_NOTFOUND.rawValue) && !create { return nil }
        try check(rc)
        return tree
    }

    private func get(_ tree: cs_tree, _ key: [UInt8]) throws -> [UInt8]? {
        var value = cs_val()
        let rc = key.withUnsafeBytes { cs_get(txn, tree, cs_val(data: $0.baseAddress, size: $0.count), &value) }
        if rc == Int32(CS_NOTFOUND.rawValue) { return nil }
        try check(rc)
        return Array(UnsafeRawBufferPointer(start: value.data, count: value.size))
    }

    /// Stores key -> value; false if `unique` and the key exists.
    @discardableResult
    private func put(_ tree: cs_tree, _ key: [UInt8], _ value: [UInt8], unique: Bool = false) throws -> Bool {
        let rc = key.withUnsafeBytes { k in
            value.withUnsafeBytes { v in
                cs_put(txn, tree, cs_val(data: k.baseAddress, size: k.count), cs_val(data: v.baseAddress, size: v.count), unique ? UInt32(CS_NOOVERWRITE) : 0)
            }
        }
        if rc == Int32(CS_EXISTS.rawValue) && unique { return false }
        try check(rc)
        return true
    }

    private mutating func begin() throws {
        var t: OpaquePointer?
        let rc = cs_txn_begin(file.env, UInt32(CS_TXN_TRY), &t)
        if rc == Int32(CS_EBUSY.rawValue) { file.closeOnDeinit = false }
        try check(rc)
        txn = t
        objects = try open("obj:" + cls.name)!
        meta = try open("realm:meta")!
        if cls.primaryKey != nil, !cls.isKeyed { primaryKeys = try open("pk:" + cls.name)! }
        indexes = try encoder.indexed.map { try open("idx:\(cls.name).\($0.property.name)")! }
        fullTextColumns = encoder.layout.columns.filter { $0.property.fullText == true && $0.property.retired != true }
        fullTextTrees = try fullTextColumns.map { try open("fts:\(cls.name).\($0.property.name)")! }
        backlinks = try encoder.links.map { try open("bl:\(cls.name).\($0.property.name)")! }
        targets = try encoder.links.map { column in try column.property.objectClass.flatMap { try open("obj:" + $0, create: false) } }
        if !cls.isKeyed {
            // As newObjectKey does: past the stored counter and the last key.
            var next: UInt64 = 1
            if let stored = try get(meta, Array("nextkey:\(cls.name)".utf8)), stored.count == 8 {
                next = max(next, UInt64(bigEndian: stored.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
            }
            var cursor: OpaquePointer?
            try check(cs_cursor_open(txn, objects, &cursor))
            defer { cs_cursor_close(cursor) }
            var key = cs_val(), value = cs_val()
            let rc = cs_cursor_get(cursor, &key, &value, CS_LAST)
            if rc == 0, key.size == 8 {
                next = max(next, UInt64(bigEndian: UnsafeRawBufferPointer(start: key.data, count: 8).loadUnaligned(as: UInt64.self)) + 1)
            } else if rc != Int32(CS_NOTFOUND.rawValue) {
                try check(rc)
            }
            nextKey = next
        }
    }

    /// Adds one encoded row, row `number` of the input; a RowError names
    /// what is wrong with it.
    mutating func add(_ row: EncodedRow, number: Int) throws {
        if txn == nil { try begin() }
        let key: UInt64
        if cls.isKeyed {
            key = row.objectKey!
        } else if let given = row.objectKey {
            // Keys are never reused (a stale accessor must not see another object).
            guard given >= nextKey else {
                throw RowError(message: "_key \(given) is taken or was used before in \(cls.name) (the next free key is \(nextKey)); leave _key out to assign a new key")
            }
            key = given
        } else {
            key = nextKey
        }
        if !cls.isKeyed {
            nextKey = key + 1
            nextKeyChanged = true
        }
        forwardLinks.removeValue(forKey: key)
        let objectKey = RowEncoder.be(key)
        guard try put(objects, objectKey, row.record, unique: true) else {
            let pk = cls.primaryKey.map { " (\($0.name) \(Int64(bitPattern: key ^ (1 << 63))))" } ?? ""
            throw RowError(message: "duplicate primary key: an object with this key exists\(pk)")
        }
        if let entry = row.primaryKeyEntry, let pk = cls.primaryKey {
            guard try put(primaryKeys, entry, objectKey, unique: true) else {
                let value = row.primaryKeyText.isEmpty ? "null" : row.primaryKeyText
                throw RowError(message: "duplicate primary key: \(pk.name) \(value) is already used by another \(cls.name) object")
            }
        }
        for (i, entry) in row.indexKeys.enumerated() {
            try put(indexes[i], entry + objectKey, [])
        }
        for (i, column) in fullTextColumns.enumerated() {
            guard case .string(var text) = row.record.withUnsafeBytes({ encoder.layout.value($0, column) }) else { continue }
            try text.withUTF8 { try check(cs_fts_index_update(txn, fullTextTrees[i], key, nil, 0, $0.baseAddress, $0.count)) }
        }
        for (i, linked) in row.linkTargets.enumerated() where !linked.isEmpty {
            let column = encoder.links[i]
            var counts: [UInt64: UInt32] = [:]
            for target in linked { counts[target, default: 0] += 1 }
            for (target, count) in counts.sorted(by: { $0.key < $1.key }) {
                if let tree = targets[i], try get(tree, RowEncoder.be(target)) != nil {
                    // exists
                } else if column.property.objectClass == cls.name {
                    // A link to an object of this class later in the input
                    // (dump writes key order): resolved when that row comes.
                    if forwardLinks[target] == nil { forwardLinks[target] = (number, column.property.name) }
                } else {
                    throw RowError(message: "property \(column.property.name): links to \(column.property.objectClass ?? "?") object \(target), which does not exist (import the objects a class links to first)")
                }
                try put(backlinks[i], RowEncoder.be(target) + objectKey, RowEncoder.le32(count))
            }
        }
    }

    /// Commits the batch (with the key counter). The caller commits only
    /// when no forward link is open (`forwardLinks` empty).
    mutating func commit() throws {
        guard let t = txn else { return }
        if nextKeyChanged {
            try put(meta, Array("nextkey:\(cls.name)".utf8), RowEncoder.be(nextKey))
            nextKeyChanged = false
        }
        txn = nil
        try check(cs_txn_commit(t))
    }

    mutating func abort() {
        if let txn { cs_txn_abort(txn) }
        txn = nil
    }
}
