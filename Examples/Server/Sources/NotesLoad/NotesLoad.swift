import Foundation
import NIOCore
import NIOPosix

/// Load generator and smoke check for NotesServer.
///
///     NotesLoad --port N [--host 127.0.0.1] [--connections 16] [--writers 2]
///               [--duration 5] [--notes 2000] [--list-percent 10] [--baseline 1]
///
/// Checks every endpoint once, seeds `--notes` notes, then runs two timed
/// phases of closed-loop keep-alive connections: reads only, and the same
/// reads with `--writers` more connections writing. Prints requests/s and
/// p50/p99 latency per kind; exits 1 if any response was wrong. `--baseline
/// 1` first times `GET /health`, which touches no database.
@main
struct NotesLoad {
    static func main() async {
        do {
            let options = try LoadOptions(CommandLine.arguments.dropFirst())
            try await run(options)
        } catch {
            print("NotesLoad: FAILED: \(error)")
            exit(1)
        }
    }

    static func run(_ options: LoadOptions) async throws {
        // One event loop thread: the generator shares the cores with the server.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let checker = try await Connection.open(group: group, host: options.host, port: options.port)
        try await checkEndpoints(checker)
        print("smoke check: every endpoint answered as expected")

        let notes = try await seed(options, group: group)
        var perTag: [String: Int] = [:]
        for note in notes { perTag[note.tag, default: 0] += 1 }
        let workload = Workload(notes: notes, seededPerTag: perTag, listPercent: options.listPercent, decodeEvery: 16)

        // Warm-up (not reported): connections, caches, the first frozen clones.
        _ = try await timedRun(group: group, host: options.host, port: options.port, readers: options.connections,
                               writers: 0, duration: .seconds(1), workload: workload, seed: 1)
        var phases: [(name: String, writers: Int, role: LoadHandler.Role)] = [
            ("reads only", 0, .reader), ("reads + \(options.writers) writers", options.writers, .reader),
        ]
        if options.baseline { phases.insert(("HTTP only", 0, .baseline), at: 0) }
        var failures = 0
        print("")
        print("\(options.connections) reader connections, \(options.duration) s per phase, \(notes.count) notes, \(options.listPercent)% of reads are tag lists")
        print(pad("phase", 22) + pad("kind", 34) + lpad("requests", 10) + lpad("req/s", 10) + lpad("p50 ms", 9)
              + lpad("p99 ms", 9) + lpad("server CPU µs/req", 19))
        for (index, (name, writers, role)) in phases.enumerated() {
            let cpuBefore = try await serverCPU(checker)
            let result = try await timedRun(group: group, host: options.host, port: options.port,
                                            readers: options.connections, writers: writers,
                                            duration: .seconds(Int64(options.duration)), workload: workload,
                                            seed: UInt64(index + 2), readerRole: role)
            let cpu = try await serverCPU(checker) - cpuBefore
            let requests = result.latencies.reduce(0) { $0 + $1.count }
            let perRequest = String(format: "%.0f", Double(cpu) / Double(max(1, requests)))
            var reads = 0
            for kind in Kind.allCases {
                var latencies = result.latencies[kind.rawValue]
                guard !latencies.isEmpty else { continue }
                if kind == .get || kind == .list { reads += latencies.count }
                latencies.sort()
                print(pad(name, 22) + pad(kind.label, 34) + lpad("\(latencies.count)", 10)
                      + lpad(String(format: "%.0f", Double(latencies.count) / Double(options.duration)), 10)
                      + lpad(ms(percentile(latencies, 0.50)), 9) + lpad(ms(percentile(latencies, 0.99)), 9)
                      + (kind == .health ? lpad(perRequest, 19) : ""))
            }
            if role == .reader {
                print(pad(name, 22) + pad(writers > 0 ? "all reads (CPU: all requests)" : "all reads", 34)
                      + lpad("\(reads)", 10) + lpad(String(format: "%.0f", Double(reads) / Double(options.duration)), 10)
                      + String(repeating: " ", count: 18) + lpad(perRequest, 19))
            }
            if result.errors > 0 {
                failures += result.errors
                print("  \(result.errors) wrong responses; first: \(result.firstError ?? "?")")
            }
        }
        await checker.close()
        try await group.shutdownGracefully()
        guard failures == 0 else { throw CheckFailure(description: "\(failures) wrong responses under load") }
        print("all responses checked: OK")
    }

    /// The server's CPU time so far, in microseconds (`GET /stats`).
    static func serverCPU(_ connection: Connection) async throws -> Int {
        let response = try await connection.send(.get("/stats"))
        try expect(response.status == .ok, "GET /stats: status \(response.status.code)")
        return try response.decode(Stats.self).cpuMicros
    }

    /// Creates `--notes` notes over 8 connections; eight tags, round robin.
    static func seed(_ options: LoadOptions, group: any EventLoopGroup) async throws -> [SeedNote] {
        let connections = 8
        return try await withThrowingTaskGroup(of: [SeedNote].self) { tasks in
            for lane in 0..<connections {
                tasks.addTask {
                    let connection = try await Connection.open(group: group, host: options.host, port: options.port)
                    var made: [SeedNote] = []
                    for index in stride(from: lane, to: options.notes, by: connections) {
                        let tag = "t\(index % 8)"
                        let words = (0..<24).map { "word\(($0 * 7 + index) % 97)" }.joined(separator: " ")
                        let response = try await connection.send(Request(method: .POST, uri: "/notes",
                            body: #"{"title":"note \#(index)","body":"\#(words)","tag":"\#(tag)"}"#))
                        try expect(response.status == .created, "seeding: status \(response.status.code)")
                        let note = try response.decode(NoteDTO.self)
                        try expect(note.tag == tag && note.title == "note \(index)", "seeding: unexpected \(response.text)")
                        made.append(SeedNote(id: note.id, tag: tag))
                    }
                    await connection.close()
                    return made
                }
            }
            var all: [SeedNote] = []
            for try await made in tasks { all += made }
            return all
        }
    }
}

struct LoadOptions: Sendable {
    var host = "127.0.0.1"
    var port = 0
    var connections = 16
    var writers = 2
    var duration = 5
    var notes = 2000
    var listPercent = 10
    var baseline = false

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw CheckFailure(description: "\(flag) needs a value") }
            if flag == "--host" { host = value; continue }
            guard let number = Int(value), number >= 0 else { throw CheckFailure(description: "\(flag) needs a number") }
            switch flag {
            case "--port": port = number
            case "--connections": connections = max(1, number)
            case "--writers": writers = number
            case "--duration": duration = max(1, number)
            case "--notes": notes = max(8, number)
            case "--list-percent": listPercent = min(number, 100)
            case "--baseline": baseline = number != 0
            default: throw CheckFailure(description: "unknown option \(flag)")
            }
        }
        guard port > 0 else { throw CheckFailure(description: "--port is required") }
    }
}

func percentile(_ sorted: [UInt32], _ p: Double) -> UInt32 {
    sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func ms(_ microseconds: UInt32) -> String { String(format: "%.2f", Double(microseconds) / 1000) }
func pad(_ s: String, _ width: Int) -> String { s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count) }
func lpad(_ s: String, _ width: Int) -> String { s.count >= width ? " " + s : String(repeating: " ", count: width - s.count) + s }
