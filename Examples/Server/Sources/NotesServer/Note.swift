import Foundation
import Hummingbird
import RealmLite

/// The stored note. Live `Note` objects never leave the Realm's actor or task:
/// handlers turn them into `NoteDTO` values (Sendable) before returning.
final class Note: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var body = ""
    /// Indexed: `GET /notes?tag=` looks it up instead of scanning.
    @Persisted(indexed: true) var tag = ""
    /// Bumped by every PATCH, so a client can tell which write it sees.
    @Persisted var revision = 0
    @Persisted var created = Date(timeIntervalSince1970: 0)
    @Persisted var updated = Date(timeIntervalSince1970: 0)
}

/// A note as sent over HTTP: a copy of the stored one, free to cross actors.
struct NoteDTO: ResponseCodable, Sendable, Equatable {
    let id: Int
    let title: String
    let body: String
    let tag: String
    let revision: Int
    /// Seconds since 1970.
    let created: Double
    let updated: Double

    init(_ note: Note) {
        id = note.id
        title = note.title
        body = note.body
        tag = note.tag
        revision = note.revision
        created = note.created.timeIntervalSince1970
        updated = note.updated.timeIntervalSince1970
    }
}

/// `POST /notes`.
struct NewNote: Decodable, Sendable {
    let title: String
    let body: String?
    let tag: String?
}

/// `PATCH /notes/:id`: the fields present are changed.
struct NotePatch: Decodable, Sendable {
    let title: String?
    let body: String?
    let tag: String?
}

/// `GET /notes`: the newest `limit` matches and how many match in all.
struct NoteList: ResponseEncodable, Sendable {
    let total: Int
    let notes: [NoteDTO]
}

/// `GET /stats`.
struct Stats: ResponseEncodable, Sendable {
    let notes: Int
    let tags: [String: Int]
    let reads: String
    let fileBytes: Int
    /// CPU time this process has used (user + system), in microseconds: the
    /// load generator's cost per request, steadier than requests/s on a
    /// machine shared with other work.
    let cpuMicros: Int
}

/// `GET /health`.
struct Health: ResponseEncodable, Sendable {
    let status: String
}
