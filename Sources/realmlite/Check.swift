import CStorage
import Foundation

// MARK: - check

/// Problem lines printed at most (a file damaged throughout has one per page).
let maxProblemLines = 1000

/// Exit status 0 when the file is clean, 1 when it has problems.
func check(_ path: String) throws -> Int32 {
    let file = try RealmFile(path: path)
    // Every problem the engine's checker finds, one line each (the first
    // maxProblemLines, then how many more).
    final class Lines { var path = ""; var printed = 0 }
    let lines = Lines()
    lines.path = path
    var report = cs_check_report()
    let rc = cs_check_each(file.env, &report, { ctx, problem in
        let lines = Unmanaged<Lines>.fromOpaque(ctx!).takeUnretainedValue()
        guard lines.printed < maxProblemLines, let problem else { return }
        print("\(lines.path): \(String(cString: problem))")
        lines.printed += 1
    }, Unmanaged.passUnretained(lines).toOpaque())
    if rc != 0 && rc != Int32(CS_ECORRUPT.rawValue) { throw RealmFile.error(rc, path: path) }
    if report.errors > 0 {
        if report.errors > UInt64(lines.printed) {
            print("\(path): \(report.errors - UInt64(lines.printed)) more problems")
        }
        return 1
    }
    // The engine's trees are sound: check the object layer's records.
    let problems = try ObjectChecker(file: file, progress: Progress("check", total: report.entries)).run()
    for problem in problems { print("\(path): \(problem)") }
    if !problems.isEmpty { return 1 }
    if Progress.quiet { return 0 }
    print("\(path): ok (\(report.trees) trees, \(report.entries) entries, \(report.pages_total) pages)")
    return 0
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
///                      to the links C's records hold in p; for an
///                      AnyRealmValue p, entries are keyed (target class,
///                      target, source) and count the links at any depth
///   R7 full-text index fts:C.p holds exactly the distinct words (as the
///                      engine tokenizes them) of each object's text in p
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
            var layout = RecordLayout(cls)
            layout.lists = try ListReader(file)
            let linkColumns = layout.columns.filter { $0.property.type == .object }
            var links = [UInt64](repeating: 0, count: linkColumns.count)
            let mixedColumns = layout.columns.filter { $0.property.type == .any }
            var mixedLinks = [UInt64](repeating: 0, count: mixedColumns.count)
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
                    for (i, column) in mixedColumns.enumerated() { mixedLinks[i] += layout.value(record, column).mixedLinkCount }
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
            for column in layout.columns where column.property.fullText == true && column.property.retired != true {
                try checkFullText(cls, column, layout, objects: tree, &problems)
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
            for (i, column) in mixedColumns.enumerated() {
                try checkMixedBacklinks("bl:\(cls.name).\(column.property.name)", sources: tree, links: mixedLinks[i], &problems)
            }
        }
        return problems
    }

    /// R7: every word of every object's text has its entry, and there are no others.
    private func checkFullText(_ cls: FileClass, _ column: RecordLayout.Column, _ layout: RecordLayout, objects: cs_tree,
                               _ problems: inout [String]) throws {
        let name = "fts:\(cls.name).\(column.property.name)"
        let index = try file.tree(name)
        var expected: UInt64 = 0, bad = 0
        try file.forEach(objects) { key, record in
            guard case .string(let text) = layout.value(record, column) else { return }
            for token in Set(fullTextTokens(text)) {
                expected += 1
                guard bad < Self.perRule else { continue }
                if try index.flatMap({ try file.get($0, token + [0] + Array(key)) }) == nil {
                    problems.append("R7 full-text index: \(name) lacks the word '\(String(decoding: token, as: UTF8.self))' of object \(UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)))")
                    bad += 1
                }
            }
        }
        let entries = try index.map { try file.treeStat($0).entries } ?? 0
        if entries != expected { problems.append("R7 full-text index: \(name) has \(entries) entries for the \(expected) words of the texts") }
    }

    /// R6 for an AnyRealmValue column: entries [class] 0x00 [target] [source].
    private func checkMixedBacklinks(_ name: String, sources: cs_tree, links: UInt64, _ problems: inout [String]) throws {
        guard let backlinks = try file.tree(name) else {
            if links > 0 { problems.append("R6 backlinks: \(name) is missing for \(links) links") }
            return
        }
        var total: UInt64 = 0, bad = 0
        try file.forEach(backlinks) { key, value in
            progress.advance()
            let nameEnd = key.firstIndex(of: 0) ?? key.count
            guard key.count == nameEnd + 17, value.count == 4 else {
                if bad < Self.perRule { problems.append("R6 backlinks: \(name): an entry of \(key.count)/\(value.count) bytes (want class, 0, 16/4)") }
                bad += 1
                return
            }
            total += UInt64(value.loadUnaligned(as: UInt32.self).littleEndian)
            let targetClass = String(decoding: key[..<nameEnd], as: UTF8.self)
            let target = Array(key[(nameEnd + 1)..<(nameEnd + 9)]), source = Array(key.suffix(8))
            let targetExists = try file.tree("obj:" + targetClass).map { try file.get($0, target) != nil } ?? false
            if try file.get(sources, source) == nil || !targetExists {
                if bad < Self.perRule {
                    problems.append("R6 backlinks: \(name): entry \(targetClass) \(UInt64(bigEndian: key.loadUnaligned(fromByteOffset: nameEnd + 1, as: UInt64.self))) <- \(UInt64(bigEndian: key.loadUnaligned(fromByteOffset: nameEnd + 9, as: UInt64.self))) names an object that does not exist")
                }
                bad += 1
            }
        }
        if total != links { problems.append("R6 backlinks: \(name) counts \(total) links, the records hold \(links)") }
    }
}

/// The words of `text` as the engine indexes them (CStorage cs_fts_next_token).
func fullTextTokens(_ text: String) -> [[UInt8]] {
    var tokens: [[UInt8]] = []
    var text = text
    text.withUTF8 { bytes in
        var pos = 0, length = 0
        var token = [UInt8](repeating: 0, count: Int(CS_FTS_TOKEN_MAX))
        while cs_fts_next_token(bytes.baseAddress, bytes.count, &pos, &token, &length) == 1 {
            tokens.append(Array(token[..<length]))
        }
    }
    return tokens
}
