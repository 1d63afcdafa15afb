import Foundation

/// `Realm()` twice in one context gives the same core. The table does not
/// keep cores alive (a Realm nobody holds closes) and holds no weak
/// references either: a weakly referenced object pays a slower reference
/// count on every retain, and objects retain their core on every read path.
/// A core removes itself in deinit. (Its last release happens in its own
/// context, where lookups for its key happen too; releasing a confined
/// Realm's last reference on another thread is the one misuse this cannot
/// defend against.)
final class CoreCache: @unchecked Sendable {
    static let shared = CoreCache()

    /// A configuration's instance key and a context, spelled as one String:
    /// a dictionary keyed by a type of its own would cost a conformance
    /// scan (its Hashable conformance, looked up at run time) on a first
    /// open, and String's is looked up by then anyway.
    private typealias Key = String

    private let lock = NSLock()
    /// Each cached core also keeps its key (RealmCore.cacheKey), for
    /// `remove`: no second table, whose element type's metadata the first
    /// open would build. Made with room for a few cores: a dictionary's
    /// first growth looks its storage type up by mangled name (work a
    /// process's first open would do), making it with room does not.
    private var table = [Key: Unmanaged<RealmCore>](minimumCapacity: 4)

    func core(for configuration: Realm.Configuration, in confinement: Confinement) throws -> RealmCore {
        guard let context = confinement.cacheKey else {
            return try RealmCore(configuration: configuration, confinement: confinement)
        }
        let instanceKey = configuration.instanceKey
        let key = instanceKey + context.spelling
        // The calling thread's instance, asked for by a task that has its own
        // (`Realm(configuration:)`, thaw(), @ThreadSafe in a nonisolated
        // async function after `try await Realm()`): the task's instance, as
        // the thread's would not survive the task's next suspension.
        var taskKey: Key?
        if case .thread = confinement, let task = currentTaskID() {
            taskKey = instanceKey + ContextKey.task(task).spelling
        }
        lock.lock()
        let cached = taskKey.flatMap { table[$0] }?.takeUnretainedValue() ?? table[key]?.takeUnretainedValue()
        lock.unlock()
        if let cached { return cached }
        // Opened outside the lock: opening may wait on the file.
        let core = try RealmCore(configuration: configuration, confinement: confinement)
        lock.lock()
        defer { lock.unlock() }
        if let raced = table[key]?.takeUnretainedValue() { return raced }
        table[key] = Unmanaged.passUnretained(core)
        core.cacheKey = key
        return core
    }

    func remove(_ core: RealmCore) {
        lock.lock()
        defer { lock.unlock() }
        guard let key = core.cacheKey else { return }
        if table[key]?.toOpaque() == Unmanaged.passUnretained(core).toOpaque() { table[key] = nil }
    }
}

extension RealmCore {
    /// The core for `configuration` in `confinement`, shared with every
    /// other Realm value opened there.
    static func cached(_ configuration: Realm.Configuration, _ confinement: Confinement) throws -> RealmCore {
        do {
            return try CoreCache.shared.core(for: configuration, in: confinement)
        } catch var error as Realm.Error where error.fileURL == nil && configuration.inMemoryIdentifier == nil {
            error.fileURL = configuration.fileURL
            throw error
        }
    }
}

extension Realm.Configuration {
    /// Configurations that open the same instance in one context. Classes
    /// are told apart by identity: a type's name (`String(reflecting:)`)
    /// would cost a Mirror and conformance lookups on every first open. The
    /// list is spelled with a loop: `joined(separator:)` looks up
    /// `[String]`'s collection conformances at run time, a scan of the
    /// program's conformance records on the first open of a process. The
    /// identities are sorted as Ints (any fixed order will do): `[Int]` is
    /// built by every open anyway, a `[UInt]` would be one more array type.
    var instanceKey: String {
        var types = "*"
        if let list = objectTypes {
            types = ""
            for id in list.map({ Int(bitPattern: ObjectIdentifier($0)) }).sorted() {
                if !types.isEmpty { types += "," }
                types += String(id, radix: 16)
            }
        }
        return SharedEnv.key(for: self) + "|v\(schemaVersion)|\(types)|\(maximumNumberOfActiveVersions.map(String.init) ?? "-")"
    }
}

/// Keeps a thread's (or the main actor's) cached instance alive while it has
/// a write transaction open, as RealmSwift's autorelease pool does: `try!
/// Realm().beginWrite()` then, later on the same thread, `try!
/// Realm().commitWrite()` reach the same instance and commit. The hold ends
/// when the write does (commit, cancel, `invalidate()`), or for a `.thread`
/// instance when its thread exits: a pthread key's destructor drops the
/// thread's holds on that thread, and the instance's deinit cancels the
/// write, so no forgotten instance keeps the writer lock. The main actor's
/// holds last until the write ends (its queue may be drained by worker
/// threads that come and go). Instances of queues, actors and tasks are not
/// held: their write is cancelled when their last Realm value goes, as before.
/// docs/THREADING.md, Rule 1.
enum WriteHolds {
    /// The main actor's writing instances.
    nonisolated(unsafe) private static var main: [ObjectIdentifier: RealmCore] = [:]
    private static let mainLock = NSLock()

    /// One thread's writing instances; released by the key's destructor
    /// when the thread exits.
    private final class ThreadHolds {
        var cores: [ObjectIdentifier: RealmCore] = [:]
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { pointer in
            // The thread is exiting: its instances go, cancelling their writes.
            guard let pointer else { return }
            Unmanaged<ThreadHolds>.fromOpaque(pointer).release()
        }
        precondition(rc == 0, "pthread_key_create failed: \(rc)")
        return key
    }()

    /// `core` began (`holding`) or ended its write transaction.
    static func update(_ core: RealmCore, holding: Bool) {
        let id = ObjectIdentifier(core)
        switch core.confinement {
        case .main:
            // Released outside the lock: a hold may be the last reference.
            let released: RealmCore? = mainLock.withLock {
                if holding { main[id] = core; return nil }
                return main.removeValue(forKey: id)
            }
            withExtendedLifetime(released) {}
        case .thread:
            let holds: ThreadHolds
            if let pointer = pthread_getspecific(key) {
                holds = Unmanaged<ThreadHolds>.fromOpaque(pointer).takeUnretainedValue()
            } else {
                guard holding else { return }
                holds = ThreadHolds()
                pthread_setspecific(key, Unmanaged.passRetained(holds).toOpaque())
            }
            if holding {
                holds.cores[id] = core
            } else {
                let released = holds.cores.removeValue(forKey: id)
                withExtendedLifetime(released) {}
            }
        default:
            return
        }
    }
}
