import CStorage
import Foundation

// realmlite: look inside RealmLite files. Arguments are parsed here (no
// package dependency: see Package.swift). Exit status: 0 done, 1 the file
// could not be used or (check) has problems, 2 bad usage.

let usage = """
    USAGE: realmlite <command> FILE [options]

    Look inside RealmLite files. Every command but import and compact in place
    opens the file read-only: it never blocks a writer in another process and
    sees the newest commit as of its start.
    A missing, foreign or damaged file gives one line on stderr and exit status 1.

    COMMANDS:
      info FILE       versions, page size, file/used/free bytes, readers and versions
                      held, per-class object counts, every tree's entries and depth
      check FILE      integrity: the engine's checker, then the object layer's record
                      checks; each problem on one line naming its invariant
                      (I<n>: docs/FORMAT.md; R<n>: realmlite help check); exit 0 clean, 1 not
      schema FILE     the stored schema as RealmLite model declarations
      copy FILE OUT   a new file OUT with the newest snapshot of FILE, compact (no
                      free pages), checked before it is kept; FILE may be in use
      compact FILE    compact FILE in place: such a copy renamed over it (a crash
                      leaves the old or the compacted file); refused while another
                      process has FILE open
      compact FILE --to OUT
                      the same as copy FILE OUT
      dump FILE [--class C] [--format json|csv]
                      objects in key order, streaming: JSON Lines (one object per
                      line: _class, _key, then the properties; links are the target's
                      object key, dates ISO 8601, data base64, object ids hex) or CSV
                      (needs --class; collections as JSON)
      import FILE --class C [--format json|csv] [--batch N] < DATA
                      adds objects of class C read from standard input, streaming:
                      what dump writes (JSON Lines, a JSON array of objects, or CSV
                      with a header line). Values are checked against the stored
                      schema; _key keeps an object key (links name them: import the
                      classes a class links to first; links within the class may
                      point later in the input), else a new key is taken.
                      Commits every N rows (default 10000; a batch linking to a
                      later row grows until that row is in); the first bad row (a
                      wrong type, a missing required value, a duplicate primary
                      key, a link to a missing object) stops the import with one
                      line naming it: earlier batches stay committed, its batch
                      and the rest are not. Needs the write lock: fails at once if
                      another process is writing. Embedded classes are refused.

    OPTIONS:
      -q, --quiet     no progress line (shown on a terminal for work over a second),
                      no "ok" line from check, no summary from copy, compact or import
      -h, --help      this text (realmlite help COMMAND: that command's)
      --version       the engine and file format versions

    """

let checkHelp = """
    USAGE: realmlite check FILE

    Runs the engine's checker (cs_check: every page reachable once, checksums, key
    order, separators, entry counts, node structure, depth, overflow runs, free
    list, catalog; each problem names its invariant I1-I12 of docs/FORMAT.md).
    Prints every problem (the first 1000, then how many more). If the trees are
    sound, checks each record against the stored schema:
      R1 stored schema   realm:meta holds a schema this tool can read
      R2 object key      obj:C keys are 8 bytes
      R3 record layout   each record fits its class's layout (docs/OBJECTS.md)
      R4 primary keys    pk:C has one entry per object of C
      R5 index           idx:C.p has one entry per object of C, each naming one
      R6 backlinks       bl:C.p entries name existing objects, and their counts
                         add up to the links C's records hold in p
    Exit status 0 when clean, 1 otherwise.

    """

@main
enum RealmLiteCommand {
    static func main() {
        exit(run(Array(CommandLine.arguments.dropFirst())))
    }

    /// Runs one command line; returns the exit status.
    static func run(_ arguments: [String]) -> Int32 {
        do {
            var args = arguments
            guard let command = args.first else {
                printError(usage)
                return 2
            }
            args.removeFirst()
            switch command {
            case "-h", "--help":
                print(usage, terminator: "")
                return 0
            case "help":
                print(args.first == "check" ? checkHelp : usage, terminator: "")
                return 0
            case "--version":
                print("realmlite: RealmLite engine \(CSTORAGE_VERSION_STRING), file format \(CSTORAGE_FORMAT_VERSION)")
                return 0
            case "info", "check", "schema", "dump", "copy", "compact", "import":
                if args.contains("-h") || args.contains("--help") {
                    print(command == "check" ? checkHelp : usage, terminator: "")
                    return 0
                }
                let options: Set<String> = command == "dump" ? ["--class", "--format"] : command == "import" ? ["--class", "--format", "--batch"]
                    : command == "compact" ? ["--to"] : []
                let parsed = try Arguments(args, options: options, files: command == "copy" ? 2 : 1)
                Progress.quiet = parsed.quiet
                switch command {
                case "info": try info(parsed.file)
                case "import":
                    guard let className = parsed.options["--class"] else { throw UsageError("import needs --class C") }
                    let format = parsed.options["--format"] ?? "json"
                    guard format == "json" || format == "csv" else { throw UsageError("--format must be json or csv, not \(format)") }
                    let batch = parsed.options["--batch"].map { Int($0) ?? 0 } ?? defaultImportBatch
                    guard batch > 0 else { throw UsageError("--batch needs a positive number of rows") }
                    try importRows(parsed.file, className: className, csv: format == "csv", batch: batch)
                case "check": return try check(parsed.file)
                case "schema": try schema(parsed.file)
                case "copy": try copy(parsed.file, to: parsed.files[1])
                case "compact":
                    if let out = parsed.options["--to"] {
                        try copy(parsed.file, to: out)
                    } else {
                        try compactInPlace(parsed.file)
                    }
                default:
                    let format = parsed.options["--format"] ?? "json"
                    guard format == "json" || format == "csv" else { throw UsageError("--format must be json or csv, not \(format)") }
                    try dump(parsed.file, className: parsed.options["--class"], csv: format == "csv")
                }
                return 0
            default:
                throw UsageError("unknown command \(command)")
            }
        } catch let error as UsageError {
            printError("realmlite: \(error.message) (realmlite --help for usage)")
            return 2
        } catch let error as CLIError {
            printError("realmlite: \(error)")
            return 1
        } catch {
            printError("realmlite: \(error)")
            return 1
        }
    }
}

struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// FILE arguments (`count` of them) and `--name value` / `--name=value` options.
struct Arguments {
    var files: [String]
    var file: String { files[0] }
    var options: [String: String] = [:]
    var quiet = false

    init(_ arguments: [String], options allowed: Set<String>, files count: Int = 1) throws {
        var files: [String] = []
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if arg == "--" {
                files += arguments[i...]
                break
            }
            guard arg.hasPrefix("-"), arg != "-" else {
                files.append(arg)
                continue
            }
            if arg == "-q" || arg == "--quiet" {
                quiet = true
                continue
            }
            var name = arg, value: String?
            if let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                value = String(arg[arg.index(after: eq)...])
            }
            guard allowed.contains(name) else { throw UsageError("unknown option \(name)") }
            if value == nil {
                guard i < arguments.count else { throw UsageError("\(name) needs a value") }
                value = arguments[i]
                i += 1
            }
            options[name] = value
        }
        guard files.count == count else {
            throw UsageError(files.isEmpty ? "no FILE given" : count == 1 ? "one FILE expected, got \(files.count)" : "FILE and OUT expected")
        }
        self.files = files
    }
}

func printError(_ line: String) {
    FileHandle.standardError.write(Data((line.hasSuffix("\n") ? line : line + "\n").utf8))
}

// MARK: - schema

func schema(_ path: String) throws {
    let file = try RealmFile(path: path)
    print(try file.schema().swiftDeclarations(path: path), terminator: "")
}
