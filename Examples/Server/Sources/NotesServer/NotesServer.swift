import Foundation
import Hummingbird
import RealmLite

/// A notes service over HTTP/JSON, on RealmLite and Hummingbird 2.
///
///     NotesServer [--port N] [--file PATH] [--reads actor|frozen|task]
///                 [--readers N] [--port-file PATH]
///
/// `--reads` picks how handlers read (Readers.swift); `actor` is the default.
///
/// `--port 0` (the default) binds a free port; the port is printed (and
/// written to `--port-file`) once the server listens.
@main
struct NotesServer {
    static func main() async {
        do {
            try await run(Options(CommandLine.arguments.dropFirst()))
        } catch {
            print("NotesServer: \(error)")
            exit(error is UsageError ? 2 : 1)
        }
    }

    static func run(_ options: Options) async throws {
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: options.file),
                                                objectTypes: [Note.self])
        let snapshots = options.reads == .frozen ? FrozenSnapshots() : nil
        let store = NotesStore(configuration: configuration, snapshots: snapshots)
        // Opens the file (creating it and its schema) before the first request.
        try await store.open()

        let reader: any NoteReader = switch options.reads {
        case .task: TaskReader(configuration: configuration)
        case .frozen: FrozenReader(snapshots: snapshots!)
        case .actor: ActorReader(configuration: configuration, count: options.readers)
        }
        let router = Router()
        addRoutes(to: router, store: store, reader: reader, mode: options.reads, file: options.file)

        let portFile = options.portFile
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: options.port), serverName: "NotesServer"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                print("NotesServer listening on 127.0.0.1:\(port) (reads: \(options.reads.rawValue), file: \(options.file))")
                fflush(nil)  // the line above, when stdout is a pipe
                if let portFile { try? "\(port)\n".write(toFile: portFile, atomically: true, encoding: .utf8) }
            }
        )
        // Stops on SIGTERM / SIGINT after in-flight requests finish.
        try await app.runService()
    }
}

struct Options: Sendable {
    var port = 0
    var file = "notes.realm"
    var reads = ReadMode.actor
    var readers = 4
    var portFile: String?

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw UsageError("\(flag) needs a value") }
            return next
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--port": port = try Int(value(flag)).orThrow(UsageError("--port needs a number"))
            case "--file": file = try value(flag)
            case "--reads":
                let name = try value(flag)
                reads = try ReadMode(rawValue: name).orThrow(
                    UsageError("--reads: one of \(ReadMode.allCases.map(\.rawValue).joined(separator: ", "))"))
            case "--readers": readers = try Int(value(flag)).orThrow(UsageError("--readers needs a number"))
            case "--port-file": portFile = try value(flag)
            default: throw UsageError("unknown option \(flag)")
            }
        }
    }
}

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Optional {
    func orThrow(_ error: some Error) throws -> Wrapped {
        guard let self else { throw error }
        return self
    }
}
