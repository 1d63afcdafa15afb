import ArgumentParser
import CStorage
import Foundation

@main
struct RealmLiteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "realmlite",
        abstract: "Look inside RealmLite files: sizes, integrity, schema, contents.",
        discussion: """
            Every command opens the file read-only: it never blocks a writer in \
            another process and sees the newest commit as of its start. A missing, \
            foreign or damaged file gives one line on stderr and exit status 1.
            """,
        version: "RealmLite engine \(CSTORAGE_VERSION_STRING), file format \(CSTORAGE_FORMAT_VERSION)",
        subcommands: [Info.self, Check.self, Schema.self, Dump.self]
    )
}

/// Runs a command body: a CLIError becomes one line on stderr and exit 1.
func runReporting(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as CLIError {
        printError("realmlite: \(error)")
        throw ExitCode.failure
    }
}

func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

struct FileArgument: ParsableArguments {
    @Argument(help: "A RealmLite file.", completion: .file())
    var file: String
}

// MARK: - info

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Versions, page size, file/used/free bytes, readers, per-class object counts and tree depths.")

    @OptionGroup var options: FileArgument

    func run() throws {
        try runReporting {
            let file = try RealmFile(path: options.file)
            // Reader figures first, before this command pins a snapshot.
            var info = cs_env_info()
            try file.check(cs_env_get_info(file.env, &info))
            var versions: UInt32 = 0
            try file.check(cs_env_active_versions(file.env, &versions))
            let names = try file.treeNames()
            let schema = names.contains("realm:meta") ? try file.schema() : nil
            let page = UInt64(info.page_size)
            let used = (info.next_pgno - info.free_pages - info.pending_pages) * page
            print("file:              \(options.file)")
            print("file format:       \(CSTORAGE_FORMAT_VERSION) (CStorage \(CSTORAGE_VERSION_STRING))")
            if let schema {
                print("object format:     \(schema.format ?? 1)")
                print("schema version:    \(schema.version)")
            } else {
                print("object format:     none (a CStorage file without a RealmLite schema)")
            }
            print("page size:         \(info.page_size)")
            print("file bytes:        \(info.file_size)")
            print("used bytes:        \(used)")
            print("free bytes:        \(info.file_size - used) (reusable \(info.free_pages * page), pending \(info.pending_pages * page), unallocated \(info.file_size - info.next_pgno * page))")
            print("last transaction:  \(info.last_txnid)")
            print("readers:           \(info.readers_used) of \(info.max_readers) slots")
            print("versions held:     \(versions)" + (info.oldest_reader != 0 ? " (oldest snapshot \(info.oldest_reader))" : ""))
            if let schema {
                print("classes:           \(schema.classes.count)")
                for cls in schema.classes {
                    let tree = try file.tree("obj:" + cls.name)
                    let st = try tree.map(file.treeStat)
                    var kind: [String] = []
                    if cls.embedded { kind.append("embedded") }
                    if cls.isKeyed { kind.append("keyed by \(cls.primaryKey?.name ?? "?")") }
                    let suffix = kind.isEmpty ? "" : " (\(kind.joined(separator: ", ")))"
                    print("  \(cls.name): \(st?.entries ?? 0) objects, depth \(st?.depth ?? 0)\(suffix)")
                }
            }
            print("trees:             \(names.count)")
            for name in names {
                guard let tree = try file.tree(name) else { continue }
                let st = try file.treeStat(tree)
                print("  \(name): \(st.entries) entries, depth \(st.depth), pages \(st.branch_pages) branch / \(st.leaf_pages) leaf / \(st.overflow_pages) overflow")
            }
        }
    }
}

// MARK: - check

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the file's integrity; each problem on one line naming its invariant (exit 0 clean, 1 otherwise).")

    @OptionGroup var options: FileArgument

    func run() throws {
        try runReporting {
            let file = try RealmFile(path: options.file)
            var report = cs_check_report()
            let rc = cs_check(file.env, &report)
            if rc != 0 && rc != Int32(CS_ECORRUPT.rawValue) { throw RealmFile.error(rc, path: options.file) }
            if report.errors > 0 {
                let first = withUnsafeBytes(of: report.first_error) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                print("\(options.file): \(first)")
                if report.errors > 1 {
                    print("\(options.file): \(report.errors - 1) more problems (the engine's checker reports the first only)")
                }
                throw ExitCode.failure
            }
            // The engine's trees are sound: check the object layer's records.
            let problems = try ObjectChecker(file: file).run()
            for problem in problems { print("\(options.file): \(problem)") }
            if !problems.isEmpty { throw ExitCode.failure }
            print("\(options.file): ok (\(report.trees) trees, \(report.entries) entries, \(report.pages_total) pages)")
        }
    }
}

// MARK: - schema

struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the stored schema as RealmLite model declarations.")

    @OptionGroup var options: FileArgument

    func run() throws {
        try runReporting {
            let file = try RealmFile(path: options.file)
            print(try file.schema().swiftDeclarations(path: options.file), terminator: "")
        }
    }
}
