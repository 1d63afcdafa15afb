import Foundation
import RealmLite
import Synchronization

/// How request handlers read. All three follow THREADING.md; they differ in
/// what a request pays and what it pins.
enum ReadMode: String, Sendable, CaseIterable {
    /// `try await Realm()` in the handler: a Realm confined to the request's
    /// task (rule 1, task-confined Realms), opened at the newest version and
    /// closed when the handler returns, so nothing stays pinned between
    /// requests. The simplest code, but every request pays for an open,
    /// which costs more than the read itself (README, "What it costs").
    case task
    /// The writer actor publishes `realm.freeze()` after each write; handlers
    /// read that frozen Realm from whatever thread they run on ("Frozen
    /// objects"). No open per request; each frozen version stays pinned while
    /// a handler still reads it.
    case frozen
    /// A few reader actors, each owning a Realm isolated to it; a handler
    /// hops to one of them (round robin) and `refresh()`es before reading, so
    /// it sees every write whose response was already sent.
    case actor
}

/// Runs synchronous read blocks against a Realm the caller may use. The
/// block gets a Realm valid only while it runs, and must return Sendable
/// copies (DTOs), never live objects.
protocol NoteReader: Sendable {
    func read<T: Sendable>(_ body: @Sendable (Realm) throws -> T) async throws -> T
}

struct TaskReader: NoteReader {
    let configuration: Realm.Configuration

    func read<T: Sendable>(_ body: @Sendable (Realm) throws -> T) async throws -> T {
        // Nonisolated async: `#isolation` is nil here, so this is the calling
        // task's Realm. It is released when this returns.
        let realm = try await Realm(configuration: configuration)
        return try body(realm)
    }
}

/// The newest frozen Realm, shared by all request handlers.
final class FrozenSnapshots: Sendable {
    /// A frozen Realm may be read from any thread (THREADING.md), but `Realm`
    /// is not `Sendable` to the compiler, frozen or not: this box says so.
    struct Frozen: @unchecked Sendable { let realm: Realm }

    private let current = Mutex<Frozen?>(nil)

    func publish(_ realm: Realm) {
        precondition(realm.isFrozen)
        let frozen = Frozen(realm: realm)
        // The replaced snapshot is released outside the lock: releasing the
        // last reference unpins its version.
        let old = current.withLock { value in
            let old = value
            value = frozen
            return old
        }
        _ = old
    }

    var latest: Realm? { current.withLock { $0?.realm } }
}

struct FrozenReader: NoteReader {
    let snapshots: FrozenSnapshots

    func read<T: Sendable>(_ body: @Sendable (Realm) throws -> T) async throws -> T {
        guard let realm = snapshots.latest else { throw ReadError.notOpen }
        return try body(realm)
    }
}

/// Owns a Realm isolated to itself (`Realm(actor:)`).
actor ReaderActor {
    private let configuration: Realm.Configuration
    private var realm: Realm?

    init(configuration: Realm.Configuration) { self.configuration = configuration }

    func read<T: Sendable>(_ body: @Sendable (Realm) throws -> T) async throws -> T {
        let realm: Realm
        if let open = self.realm {
            realm = open
            // Autorefresh would advance it at its next turn, but a request
            // queued before that turn would read the older version.
            realm.refresh()
        } else {
            realm = try await Realm(configuration: configuration, actor: self)
            self.realm = realm
        }
        return try body(realm)
    }
}

final class ActorReader: NoteReader {
    let actors: [ReaderActor]
    private let next = Atomic<Int>(0)

    init(configuration: Realm.Configuration, count: Int) {
        actors = (0..<max(1, count)).map { _ in ReaderActor(configuration: configuration) }
    }

    func read<T: Sendable>(_ body: @Sendable (Realm) throws -> T) async throws -> T {
        let index = next.add(1, ordering: .relaxed).oldValue % actors.count
        return try await actors[index].read(body)
    }
}

enum ReadError: Error { case notOpen }
