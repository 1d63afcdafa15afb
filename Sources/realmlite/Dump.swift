import CStorage
import Foundation

// MARK: - dump

/// Objects of every class (or `className`) in key order, leaf by leaf.
func dump(_ path: String, className: String?, csv: Bool) throws {
    let file = try RealmFile(path: path)
    let schema = try file.schema()
    var classes = schema.classes
    if let className {
        guard let cls = schema.class(named: className) else {
            throw CLIError("\(path): no class \(className) in the stored schema (classes: \(schema.classes.map(\.name).joined(separator: ", ")))")
        }
        classes = [cls]
    } else if csv {
        throw CLIError("csv needs --class (one header per class)")
    }
    var out = OutputBuffer(sink: STDOUT_FILENO)
    defer { out.flush() }
    for cls in classes {
        let layout = RecordLayout(cls)
        if csv {
            var header: [String] = []
            if !cls.isKeyed { header.append("_key") }
            if let pk = cls.primaryKey, cls.isKeyed { header.append(pk.name) }
            header += layout.columns.map(\.property.name)
            out.write(header.joined(separator: ",") + "\n")
        }
        guard let tree = try file.tree("obj:" + cls.name) else { continue }
        try file.forEach(tree) { key, record in
            guard key.count == 8 else { throw CLIError("\(path): damaged object key in obj:\(cls.name) (\(key.count) bytes)") }
            let objectKey = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
            if let problem = layout.problem(record) {
                throw CLIError("\(path): damaged record \(objectKey) of \(cls.name): \(problem); run realmlite check")
            }
            let keyedValue: Value? = cls.isKeyed ? .int(Int64(bitPattern: objectKey ^ (1 << 63))) : nil
            if !csv {
                out.write("{\"_class\":")
                out.writeJSONString(cls.name)
                out.write(",\"_key\":\(objectKey)")
                if let keyedValue, let pk = cls.primaryKey {
                    out.write(",")
                    out.writeJSONString(pk.name)
                    out.write(":")
                    keyedValue.writeJSON(to: &out)
                }
                for column in layout.columns {
                    out.write(",")
                    out.writeJSONString(column.property.name)
                    out.write(":")
                    layout.value(record, column).writeJSON(to: &out)
                }
                out.write("}\n")
            } else {
                var first = true
                if let keyedValue {
                    keyedValue.writeCSV(to: &out)
                } else {
                    out.write(String(objectKey))
                }
                first = false
                for column in layout.columns {
                    if !first { out.write(",") }
                    first = false
                    layout.value(record, column).writeCSV(to: &out)
                }
                out.write("\n")
            }
        }
    }
}

// MARK: - object-layer checks

/// Checks that need the stored schema, run by `check` once the engine's
/// checker finds the trees sound. Each problem names its rule (at most 10
/// lines per rule and tree):
///   R1 stored schema   realm:meta holds a schema this tool can read
///   R2 object key      obj:C keys are 8 bytes
///   R3 record layout   each record fits its class's layout (docs/OBJECTS.md)
///   R4 primary keys    pk:C has one entry per object of C
///   R5 index           idx:C.p has one entry per object of C, each naming one
///   R6 backlinks       bl:C.p entries name existing objects (source of C,
///                      target of the link's class), and their counts add up
///                      to the links C's records hold in p
struct ObjectChecker {
    let file: RealmFile
    /// Counts the entries read (records, index and backlink entries).
    let progress: Progress
    static let perRule = 10

    func run() throws -> [String] {
        guard try file.tree("realm:meta") != nil else { return [] } // a bare CStorage file
        let schema: FileSchema
        do {
            schema = try file.schema()
        } catch let error as CLIError {
            return ["R1 stored schema: \(error.description.replacingOccurrences(of: "\(file.path): ", with: ""))"]
        }
        var problems: [String] = []
        defer { progress.finish() }
        for cls in schema.classes {
            guard let tree = try file.tree("obj:" + cls.name) else { continue }
            let layout = RecordLayout(cls)
            let linkColumns = layout.columns.filter { $0.property.type == .object }
            var links = [UInt64](repeating: 0, count: linkColumns.count)
            var reported = 0
            try file.forEach(tree) { key, record in
                progress.advance()
                if key.count != 8 {
                    if reported < Self.perRule { problems.append("R2 object key: obj:\(cls.name): a key of \(key.count) bytes") }
                    reported += 1
                } else if let problem = layout.problem(record) {
                    let objectKey = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
                    if reported < Self.perRule { problems.append("R3 record layout: obj:\(cls.name): object \(objectKey): \(problem)") }
                    reported += 1
                } else {
                    for (i, column) in linkColumns.enumerated() {
                        switch layout.value(record, column) {
                        case .null: break
                        case .array(let values): links[i] += UInt64(values.count { if case .null = $0 { false } else { true } })
                        case .map(let entries): links[i] += UInt64(entries.count { if case .null = $0.1 { false } else { true } })
                        default: links[i] += 1
                        }
                    }
                }
            }
            if reported > 0 { continue } // the records are damaged: counts below would mislead
            let objects = try file.treeStat(tree).entries
            if cls.primaryKey != nil, !cls.isKeyed {
                let keys = try file.tree("pk:" + cls.name).map { try file.treeStat($0).entries } ?? 0
                if keys != objects {
                    problems.append("R4 primary keys: pk:\(cls.name) has \(keys) entries for \(objects) objects")
                }
            }
            for column in layout.columns where column.property.indexed {
                let name = "idx:\(cls.name).\(column.property.name)"
                guard let index = try file.tree(name) else {
                    if objects > 0 { problems.append("R5 index: \(name) is missing") }
                    continue
                }
                let entries = try file.treeStat(index).entries
                if entries != objects { problems.append("R5 index: \(name) has \(entries) entries for \(objects) objects") }
                var bad = 0
                try file.forEach(index) { key, _ in
                    progress.advance()
                    guard bad < Self.perRule else { return }
                    let objectKey = key.count >= 8 ? Array(key.suffix(8)) : []
                    let exists = objectKey.isEmpty ? false : try file.get(tree, objectKey) != nil
                    if !exists {
                        problems.append("R5 index: \(name): an entry names object \(key.count >= 8 ? String(UInt64(bigEndian: key.loadUnaligned(fromByteOffset: key.count - 8, as: UInt64.self))) : "(short key)"), which does not exist")
                        bad += 1
                    }
                }
            }
            for (i, column) in linkColumns.enumerated() {
                let name = "bl:\(cls.name).\(column.property.name)"
                let targets = try column.property.objectClass.flatMap { try file.tree("obj:" + $0) }
                guard let backlinks = try file.tree(name) else {
                    if links[i] > 0 { problems.append("R6 backlinks: \(name) is missing for \(links[i]) links") }
                    continue
                }
                var total: UInt64 = 0, bad = 0
                try file.forEach(backlinks) { key, value in
                    progress.advance()
                    guard key.count == 16, value.count == 4 else {
                        if bad < Self.perRule { problems.append("R6 backlinks: \(name): an entry of \(key.count)/\(value.count) bytes (want 16/4)") }
                        bad += 1
                        return
                    }
                    total += UInt64(value.loadUnaligned(as: UInt32.self).littleEndian)
                    let target = Array(key.prefix(8)), source = Array(key.suffix(8))
                    let sourceExists = try file.get(tree, source) != nil
                    let targetExists = try targets.map { try file.get($0, target) != nil } ?? false
                    if !sourceExists || !targetExists {
                        if bad < Self.perRule {
                            problems.append("R6 backlinks: \(name): entry \(UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))) <- \(UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 8, as: UInt64.self))) names an object that does not exist")
                        }
                        bad += 1
                    }
                }
                if total != links[i] {
                    problems.append("R6 backlinks: \(name) counts \(total) links, the records of \(cls.name) hold \(links[i])")
                }
            }
        }
        return problems
    }
}
