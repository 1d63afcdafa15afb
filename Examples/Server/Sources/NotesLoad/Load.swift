import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// What the load generator times, reported separately.
enum Kind: Int, Sendable, CaseIterable {
    case get, list, write, health

    var label: String {
        switch self {
        case .get: "read  GET /notes/:id"
        case .list: "read  GET /notes?tag=…&limit=10"
        case .write: "write PATCH or POST /notes"
        case .health: "GET /health (no database)"
        }
    }
}

/// A note created while seeding: the readers' targets.
struct SeedNote: Sendable {
    let id: Int
    let tag: String
}

/// What every connection of a timed run reads and writes.
struct Workload: Sendable {
    let notes: [SeedNote]
    /// How many seeded notes each tag has (a list's total may not be lower).
    let seededPerTag: [String: Int]
    /// Percent of reads that are tag list queries; the rest are point reads.
    let listPercent: Int
    /// Every n-th response is fully decoded and compared; all are checked
    /// for status and the expected id.
    let decodeEvery: Int
}

/// One connection's figures.
struct ConnectionResult: Sendable {
    var latencies: [[UInt32]] = Kind.allCases.map { _ in [] }
    var errors = 0
    var firstError: String?

    mutating func fail(_ message: String) {
        errors += 1
        if firstError == nil { firstError = message }
    }
}

/// Drives one keep-alive connection in a closed loop (a new request as soon
/// as the previous response arrived) until `end`, entirely on its event
/// loop, so that the generator spends little of the CPU it shares with the
/// server.
final class LoadHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    enum Role: Sendable { case reader, writer, baseline }

    private struct InFlight {
        let kind: Kind
        let started: UInt64
        let check: Check
    }

    private enum Check {
        case note(id: Int, tag: String)
        case list(tag: String, limit: Int)
        case patched(id: Int, body: String)
        case created(title: String)
        case health
    }

    private let role: Role
    private let workload: Workload
    private let host: String
    private let end: NIODeadline
    private let done: EventLoopPromise<ConnectionResult>
    private var random: UInt64
    private var result = ConnectionResult()
    private var assembler = ResponseAssembler()
    private var inFlight: InFlight?
    private var sent = 0
    private var finished = false

    init(role: Role, workload: Workload, host: String, end: NIODeadline, seed: UInt64,
         done: EventLoopPromise<ConnectionResult>) {
        self.role = role
        self.workload = workload
        self.host = host
        self.end = end
        self.random = seed | 1
        self.done = done
    }

    func channelActive(context: ChannelHandlerContext) {
        sendNext(context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let response = assembler.feed(unwrapInboundIn(data)), let request = inFlight else { return }
        let elapsed = NIODeadline.now().uptimeNanoseconds - request.started
        inFlight = nil
        if let problem = verify(response, request.check) {
            result.fail(problem)
        } else {
            result.latencies[request.kind.rawValue].append(UInt32(clamping: elapsed / 1_000))
        }
        sendNext(context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        result.fail("connection error: \(error)")
        finish(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !finished {
            result.fail("connection closed by the server")
            finish(context: context)
        }
    }

    private func finish(context: ChannelHandlerContext) {
        guard !finished else { return }
        finished = true
        done.succeed(result)
        context.close(promise: nil)
    }

    private func nextRandom() -> UInt64 {
        random ^= random << 13
        random ^= random >> 7
        random ^= random << 17
        return random
    }

    private func sendNext(context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        guard now < end else { return finish(context: context) }
        sent += 1
        let note = workload.notes[Int(nextRandom() % UInt64(workload.notes.count))]
        let request: Request
        let kind: Kind
        let check: Check
        switch role {
        case .baseline:
            kind = .health
            request = .get("/health")
            check = .health
        case .reader where Int(nextRandom() % 100) < workload.listPercent:
            kind = .list
            request = .get("/notes?tag=\(note.tag)&limit=10")
            check = .list(tag: note.tag, limit: 10)
        case .reader:
            kind = .get
            request = .get("/notes/\(note.id)")
            check = .note(id: note.id, tag: note.tag)
        case .writer where sent % 2 == 0:
            kind = .write
            let body = "edited \(nextRandom())"
            request = Request(method: .PATCH, uri: "/notes/\(note.id)", body: #"{"body":"\#(body)"}"#)
            check = .patched(id: note.id, body: body)
        case .writer:
            kind = .write
            let title = "written under load \(nextRandom())"
            request = Request(method: .POST, uri: "/notes", body: #"{"title":"\#(title)","body":"new","tag":"w"}"#)
            check = .created(title: title)
        }
        inFlight = InFlight(kind: kind, started: now.uptimeNanoseconds, check: check)
        request.write(to: context, host: host)
    }

    /// nil if the response is what the request should get.
    private func verify(_ response: Response, _ check: Check) -> String? {
        let decode = sent % workload.decodeEvery == 0
        switch check {
        case .note(let id, let tag):
            guard response.status == .ok else { return "GET /notes/\(id): status \(response.status.code)" }
            guard response.contains(Array(#""id":\#(id),"#.utf8)) || response.contains(Array(#""id":\#(id)}"#.utf8))
            else { return "GET /notes/\(id): another note: \(response.text)" }
            if decode {
                guard let note = try? response.decode(NoteDTO.self) else { return "GET /notes/\(id): not a note: \(response.text)" }
                if note.id != id || note.tag != tag { return "GET /notes/\(id): wrong note \(note)" }
            }
        case .list(let tag, let limit):
            guard response.status == .ok else { return "GET /notes?tag=\(tag): status \(response.status.code)" }
            if decode {
                guard let list = try? response.decode(NoteList.self) else { return "GET /notes?tag=\(tag): not a list: \(response.text)" }
                if list.notes.count > limit || list.notes.contains(where: { $0.tag != tag })
                    || list.total < (workload.seededPerTag[tag] ?? 0) || list.notes.count < min(limit, list.total) {
                    return "GET /notes?tag=\(tag): wrong list (total \(list.total), \(list.notes.count) notes)"
                }
            }
        case .patched(let id, let body):
            guard response.status == .ok else { return "PATCH /notes/\(id): status \(response.status.code)" }
            guard let note = try? response.decode(NoteDTO.self), note.id == id, note.body == body, note.revision > 0
            else { return "PATCH /notes/\(id): wrong answer \(response.text)" }
        case .health:
            guard response.status == .ok, response.contains(Array(#""status":"ok""#.utf8))
            else { return "GET /health: \(response.status.code) \(response.text)" }
        case .created(let title):
            guard response.status == .created else { return "POST /notes: status \(response.status.code)" }
            guard let note = try? response.decode(NoteDTO.self), note.title == title, note.tag == "w"
            else { return "POST /notes: wrong answer \(response.text)" }
        }
        return nil
    }
}

/// Runs `readers` + `writers` connections until `duration` has passed.
func timedRun(group: any EventLoopGroup, host: String, port: Int, readers: Int, writers: Int,
              duration: TimeAmount, workload: Workload, seed: UInt64,
              readerRole: LoadHandler.Role = .reader) async throws -> ConnectionResult {
    let end = NIODeadline.now() + duration
    var futures: [EventLoopFuture<ConnectionResult>] = []
    for index in 0..<(readers + writers) {
        let loop = group.next()
        let done = loop.makePromise(of: ConnectionResult.self)
        let role: LoadHandler.Role = index < readers ? readerRole : .writer
        let connectionSeed = seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15
        ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(
                        LoadHandler(role: role, workload: workload, host: host, end: end,
                                    seed: connectionSeed, done: done))
                }
            }
            .connect(host: host, port: port)
            .whenFailure { error in
                var failed = ConnectionResult()
                failed.fail("cannot connect: \(error)")
                done.succeed(failed)
            }
        futures.append(done.futureResult)
    }
    var total = ConnectionResult()
    for future in futures {
        let one = try await future.get()
        for kind in Kind.allCases { total.latencies[kind.rawValue] += one.latencies[kind.rawValue] }
        total.errors += one.errors
        if total.firstError == nil { total.firstError = one.firstError }
    }
    return total
}
