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
    var total: UInt64 = 0
    for cls in classes { total += try file.tree("obj:" + cls.name).map { try file.treeStat($0).entries } ?? 0 }
    let progress = Progress("dump", total: total, streaming: true)
    var out = OutputBuffer(sink: STDOUT_FILENO)
    defer {
        progress.finish()
        out.flush()
    }
    for cls in classes {
        var layout = RecordLayout(cls)
        layout.lists = try ListReader(file)
        if csv {
            var header: [String] = []
            if !cls.isKeyed { header.append("_key") }
            if let pk = cls.primaryKey, cls.isKeyed { header.append(pk.name) }
            header += layout.columns.map(\.property.name)
            out.write(header.joined(separator: ",") + "\n")
        }
        guard let tree = try file.tree("obj:" + cls.name) else { continue }
        try file.forEach(tree) { key, record in
            progress.advance()
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
