import Foundation
import Hummingbird
import RealmLite

/// The HTTP API. Writes go to the `NotesStore` actor; reads go through the
/// configured `NoteReader`. Every handler returns Sendable copies (DTOs):
/// live objects never leave the Realm they were read from.
func addRoutes(to router: Router<BasicRequestContext>, store: NotesStore, reader: any NoteReader,
               mode: ReadMode, file: String) {
    router.post("/notes") { request, context -> EditedResponse<NoteDTO> in
        let input = try await request.decode(as: NewNote.self, context: context)
        guard !input.title.isEmpty else { throw HTTPError(.badRequest, message: "title must not be empty") }
        return EditedResponse(status: .created, response: try await store.create(input))
    }

    router.get("/notes/:id") { _, context -> NoteDTO in
        let id = try context.parameters.require("id", as: Int.self)
        let note = try await reader.read { realm in
            realm.object(ofType: Note.self, forPrimaryKey: id).map(NoteDTO.init)
        }
        guard let note else { throw HTTPError(.notFound) }
        return note
    }

    // ?tag= (indexed equality), ?query= (case-insensitive substring of title
    // or body), &limit= (default 20, at most 100): the newest matches first.
    router.get("/notes") { request, _ -> NoteList in
        let parameters = request.uri.queryParameters
        let tag = parameters.get("tag")
        let query = parameters.get("query")
        let limit = min(max(parameters.get("limit", as: Int.self) ?? 20, 0), 100)
        return try await reader.read { realm in
            var results = realm.objects(Note.self)
            if let tag { results = results.filter("tag == %@", tag) }
            if let query, !query.isEmpty {
                results = results.filter("title CONTAINS[c] %@ OR body CONTAINS[c] %@", query, query)
            }
            let sorted = results.sorted(byKeyPath: "id", ascending: false)
            let notes = sorted.prefix(limit).map(NoteDTO.init)
            return NoteList(total: sorted.count, notes: Array(notes))
        }
    }

    router.patch("/notes/:id") { request, context -> NoteDTO in
        let id = try context.parameters.require("id", as: Int.self)
        let patch = try await request.decode(as: NotePatch.self, context: context)
        if let title = patch.title, title.isEmpty { throw HTTPError(.badRequest, message: "title must not be empty") }
        guard let note = try await store.update(id: id, patch) else { throw HTTPError(.notFound) }
        return note
    }

    router.delete("/notes/:id") { _, context -> HTTPResponse.Status in
        let id = try context.parameters.require("id", as: Int.self)
        guard try await store.delete(id: id) else { throw HTTPError(.notFound) }
        return .noContent
    }

    // No database: the HTTP and JSON ceiling the other routes are held to.
    router.get("/health") { _, _ -> Health in Health(status: "ok") }

    router.get("/stats") { _, _ -> Stats in
        let fileBytes = ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int) ?? 0
        return try await reader.read { realm in
            let notes = realm.objects(Note.self)
            var tags: [String: Int] = [:]
            for tag in Set(notes.map(\.tag)) { tags[tag] = notes.filter("tag == %@", tag).count }
            return Stats(notes: notes.count, tags: tags, reads: mode.rawValue, fileBytes: fileBytes,
                         cpuMicros: processCPUMicros())
        }
    }
}

/// User plus system CPU time of this process, in microseconds.
func processCPUMicros() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000
        + Int(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
}
