import Foundation
import NIOCore

// The server's JSON, as the client expects it.
struct NoteDTO: Decodable, Sendable {
    let id: Int
    let title: String
    let body: String
    let tag: String
    let revision: Int
    let created: Double
    let updated: Double
}

struct NoteList: Decodable, Sendable {
    let total: Int
    let notes: [NoteDTO]
}

struct Stats: Decodable, Sendable {
    let notes: Int
    let tags: [String: Int]
    let reads: String
    let fileBytes: Int
    let cpuMicros: Int
}

struct CheckFailure: Error, CustomStringConvertible {
    let description: String
}

func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw CheckFailure(description: message()) }
}

/// Every endpoint once, with the answers compared field by field: the smoke
/// check that makes `make example-server` fail on a broken server.
func checkEndpoints(_ connection: Connection) async throws {
    let marker = "smoke-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let created = try await connection.send(Request(method: .POST, uri: "/notes",
        body: #"{"title":"Smoke \#(marker)","body":"first body","tag":"smoke"}"#))
    try expect(created.status == .created, "POST /notes: status \(created.status.code), \(created.text)")
    let note = try created.decode(NoteDTO.self)
    try expect(note.title == "Smoke \(marker)" && note.body == "first body" && note.tag == "smoke"
        && note.revision == 0 && note.id > 0, "POST /notes: unexpected \(created.text)")

    let read = try await connection.send(.get("/notes/\(note.id)"))
    try expect(read.status == .ok, "GET /notes/\(note.id): status \(read.status.code)")
    let readNote = try read.decode(NoteDTO.self)
    try expect(readNote.id == note.id && readNote.title == note.title && readNote.created == note.created,
               "GET /notes/\(note.id): unexpected \(read.text)")

    let patched = try await connection.send(Request(method: .PATCH, uri: "/notes/\(note.id)",
        body: #"{"body":"second body"}"#))
    try expect(patched.status == .ok, "PATCH: status \(patched.status.code)")
    let patchedNote = try patched.decode(NoteDTO.self)
    try expect(patchedNote.body == "second body" && patchedNote.title == note.title && patchedNote.revision == 1,
               "PATCH: unexpected \(patched.text)")

    // A read after the write's response sees the write (every read mode).
    let reread = try await connection.send(.get("/notes/\(note.id)")).decode(NoteDTO.self)
    try expect(reread.body == "second body" && reread.revision == 1, "GET after PATCH: stale \(reread)")

    let search = try await connection.send(.get("/notes?query=\(marker.uppercased())"))
    try expect(search.status == .ok, "GET /notes?query=: status \(search.status.code)")
    let found = try search.decode(NoteList.self)
    try expect(found.total == 1 && found.notes.first?.id == note.id, "GET /notes?query=: unexpected \(search.text)")

    let byTag = try await connection.send(.get("/notes?tag=smoke&limit=1")).decode(NoteList.self)
    try expect(byTag.total >= 1 && byTag.notes.count == 1 && byTag.notes[0].tag == "smoke",
               "GET /notes?tag=: unexpected \(byTag)")

    let stats = try await connection.send(.get("/stats"))
    try expect(stats.status == .ok, "GET /stats: status \(stats.status.code)")
    let figures = try stats.decode(Stats.self)
    try expect(figures.notes >= 1 && (figures.tags["smoke"] ?? 0) >= 1 && figures.fileBytes > 0,
               "GET /stats: unexpected \(stats.text)")

    let bad = try await connection.send(Request(method: .POST, uri: "/notes", body: #"{"title":""}"#))
    try expect(bad.status == .badRequest, "POST with an empty title: status \(bad.status.code)")

    let deleted = try await connection.send(Request(method: .DELETE, uri: "/notes/\(note.id)"))
    try expect(deleted.status == .noContent, "DELETE: status \(deleted.status.code)")
    let gone = try await connection.send(.get("/notes/\(note.id)"))
    try expect(gone.status == .notFound, "GET after DELETE: status \(gone.status.code)")
    let again = try await connection.send(Request(method: .DELETE, uri: "/notes/\(note.id)"))
    try expect(again.status == .notFound, "DELETE twice: status \(again.status.code)")
}
