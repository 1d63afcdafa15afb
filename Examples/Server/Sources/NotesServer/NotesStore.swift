import Foundation
import Hummingbird
import RealmLite

/// Every write goes through this actor, which owns a Realm isolated to it
/// (THREADING.md, rule 1: `Realm(actor:)`). RealmLite allows one writer at a
/// time anyway; funnelling writes through one actor keeps the id counter
/// consistent and lets `asyncWrite` wait for the write lock and the flush
/// without blocking a thread.
///
/// Actor reentrancy: while one `asyncWrite` waits for its flush, the next
/// request's write may run. State the actor keeps (the id counter) is
/// therefore only changed inside a write block, which runs without
/// suspending.
actor NotesStore {
    private let configuration: Realm.Configuration
    private var realm: Realm?
    private var lastID = 0
    /// Where frozen snapshots are published for readers (frozen read mode).
    private let snapshots: FrozenSnapshots?

    init(configuration: Realm.Configuration, snapshots: FrozenSnapshots?) {
        self.configuration = configuration
        self.snapshots = snapshots
    }

    /// Opens the actor's Realm (once) and publishes the first snapshot.
    func open() async throws {
        guard realm == nil else { return }
        let realm = try await Realm(configuration: configuration, actor: self)
        lastID = realm.objects(Note.self).max(ofProperty: "id") ?? 0
        self.realm = realm
        publish(realm)
    }

    private func opened() async throws -> Realm {
        if let realm { return realm }
        try await open()
        return realm!
    }

    func create(_ input: NewNote) async throws -> NoteDTO {
        let realm = try await opened()
        let dto = try await realm.asyncWrite {
            lastID += 1
            let now = Date()
            let note = Note()
            note.id = lastID
            note.title = input.title
            note.body = input.body ?? ""
            note.tag = input.tag ?? ""
            note.created = now
            note.updated = now
            realm.add(note)
            return NoteDTO(note)
        }
        publish(realm)
        return dto
    }

    /// nil if there is no such note.
    func update(id: Int, _ patch: NotePatch) async throws -> NoteDTO? {
        let realm = try await opened()
        let dto = try await realm.asyncWrite { () -> NoteDTO? in
            guard let note = realm.object(ofType: Note.self, forPrimaryKey: id) else { return nil }
            if let title = patch.title { note.title = title }
            if let body = patch.body { note.body = body }
            if let tag = patch.tag { note.tag = tag }
            note.revision += 1
            note.updated = Date()
            return NoteDTO(note)
        }
        if dto != nil { publish(realm) }
        return dto
    }

    /// False if there was no such note.
    func delete(id: Int) async throws -> Bool {
        let realm = try await opened()
        let deleted = try await realm.asyncWrite { () -> Bool in
            guard let note = realm.object(ofType: Note.self, forPrimaryKey: id) else { return false }
            realm.delete(note)
            return true
        }
        if deleted { publish(realm) }
        return deleted
    }

    /// Frozen read mode: the newest committed version, for any thread.
    /// Published after the write returned, so a client that got its write's
    /// response reads it back.
    private func publish(_ realm: Realm) {
        snapshots?.publish(realm.freeze())
    }
}
