import CStorage
import Foundation
import Synchronization

// The process-wide table of open files: one engine environment (cs_env) per
// file per process, shared by every Realm instance on that file, and what
// those instances share through it (the schema, the live cores to tell when
// one commits).

/// One open database file (or in-memory database), shared by all Realm
/// instances on it in this process.
/// @unchecked Sendable: cs_env is documented thread-safe; the only mutable
/// state, the schema, is guarded by `schema`.
final class SharedEnv: @unchecked Sendable {
    let handle: OpaquePointer
    let cacheKey: String
    let isReadOnly: Bool
    let path: String
    /// Classes registered in this file so far (see Schema/RealmCore+Schema.swift).
    let schema = Mutex<SchemaState>(SchemaState.empty)
    /// Classes a cancelled write registered and took back. Kept for the
    /// env's lifetime: accessors refer to their ClassInfo without a
    /// reference count (ObjectBase._info), so no ClassInfo may go away
    /// while an object of its file can exist.
    private var retiredClasses: [ClassInfo] = []
    /// Every stored class as the dynamic API reads it (Schema/DynamicSchema.swift),
    /// for the stored schema it was built from; a replaced one's classes
    /// join retiredClasses, for the same reason.
    private var dynamicSchema: SchemaState?
    /// Per class: object keys below this were handed out by a write that was
    /// cancelled. Never reusing them keeps the invalidated accessors of that
    /// write from ever seeing another object.
    private var cancelledKeyFloor: [String: UInt64] = [:]
    /// Guards the plain fields above and below (retiredClasses to watcher).
    /// An NSLock (which ThreadSanitizer understands, unlike Mutex) over plain
    /// fields rather than a Protected or Mutex per field: each distinct
    /// Protected<Value> is a generic class whose metadata the first open of
    /// a process would build, and a Mutex<Value> of a generic Value has the
    /// deinit build Value's metadata from its mangled name to destroy it.
    private let lock = NSLock()
    /// The stored schema's bytes as last found to describe the registered
    /// classes' records (RealmCore.checkStoredSchema): a snapshot whose
    /// schema has these bytes needs no further check.
    private var checkedSchema: [UInt8]?
    /// The stored schema last decoded, with its bytes: every open reads the
    /// schema (twice: openSchema, then register), and decoding its JSON was
    /// most of what opening a Realm cost.
    private var decodedSchema: (bytes: [UInt8], schema: StoredSchema)?
    /// The program's model classes were registered (objectTypes nil:
    /// RealmCore.defaultSchemaClasses), so later opens skip the search.
    let programClassesRegistered = Atomic<Bool>(false)

    /// Computes observers' changes off their threads (ChangeNotifier.swift).
    let notifier = ChangeNotifier()
    /// What this process's commits did to Lists, for List observers (CollectionChangeLog.swift).
    let collectionChanges = CollectionChangeLog()
    /// The live cores on this file, told when a commit lands.
    private let cores = LiveCores()
    /// Wakes the cores when another process commits (never in memory).
    /// Not started at open: only a core that can be scheduled on (main
    /// actor, queue, actor) can be woken, and its thread is started on that
    /// core's next turn (the earliest an autorefresh could run there), so
    /// opening and closing a Realm create and join no thread.
    private var watcher = WatcherState.none
    /// The commit sequence when the file was opened: a watcher started
    /// later waits from it, so no commit since the open goes unseen.
    private let openedAtSeq: UInt64
    private let inMemory: Bool
    /// This process's commits on the file (the engine's commit hook notes
    /// them): the watcher leaves those to didCommit.
    private let ownCommits: OwnCommits

    private init(handle: OpaquePointer, cacheKey: String, path: String, isReadOnly: Bool, inMemory: Bool,
                 ownCommits: OwnCommits) {
        self.handle = handle
        self.cacheKey = cacheKey
        self.path = path
        self.isReadOnly = isReadOnly
        self.ownCommits = ownCommits
        self.inMemory = inMemory
        var seq: UInt64 = 0
        cs_env_commit_seq(handle, &seq)
        openedAtSeq = seq
    }

    deinit {
        // Before the env closes: the watcher's thread waits on the lock file.
        if case .running(let watcher) = lock.withLock({ watcher }) { watcher.stop() }
        notifier.stop()
        cs_env_close(handle)
        Unmanaged.passUnretained(ownCommits).release() // the commit hook's reference
        let key = cacheKey
        openEnvs.withLock { table in
            if table[key]?.env == nil { table[key] = nil }
        }
    }

    /// Runs `body` on retiredClasses under the lock.
    func withRetiredClasses<R>(_ body: (inout [ClassInfo]) throws -> R) rethrows -> R {
        try lock.withLock { try body(&retiredClasses) }
    }

    /// Runs `body` on dynamicSchema under the lock.
    func withDynamicSchema<R>(_ body: (inout SchemaState?) throws -> R) rethrows -> R {
        try lock.withLock { try body(&dynamicSchema) }
    }

    /// Runs `body` on cancelledKeyFloor under the lock.
    func withCancelledKeyFloor<R>(_ body: (inout [String: UInt64]) throws -> R) rethrows -> R {
        try lock.withLock { try body(&cancelledKeyFloor) }
    }

    func register(_ core: RealmCore) {
        cores.register(core)
        if !inMemory { startWatcher(forTurnOf: core) }
    }

    private enum WatcherState {
        case none, scheduled, running(CommitWatcher)
    }

    /// Starts the commit watcher on `core`'s next turn, once per file; not
    /// for a core that cannot be scheduled on (a plain thread, a task),
    /// which no watcher could wake.
    private func startWatcher(forTurnOf core: RealmCore) {
        let first = lock.withLock { () -> Bool in
            guard case .none = watcher else { return false }
            watcher = .scheduled
            return true
        }
        guard first else { return }
        let scheduled = core.confinement.schedule { [weak self] in
            guard let self else { return }
            lock.withLock {
                guard case .scheduled = watcher else { return }
                watcher = .running(CommitWatcher(handle: handle, cores: cores, ownCommits: ownCommits, from: openedAtSeq))
            }
        }
        if !scheduled { lock.withLock { watcher = .none } }
    }

    /// True once the commit watcher's thread was started (tests).
    var isWatching: Bool {
        if case .running = lock.withLock({ watcher }) { return true }
        return false
    }

    /// True if `bytes` are the stored schema last found to match the
    /// registered classes (RealmCore.checkStoredSchema).
    func isCheckedSchema(_ bytes: UnsafeRawBufferPointer) -> Bool {
        lock.withLock { checkedSchema.map { sameBytes(bytes, $0) } ?? false }
    }

    func noteCheckedSchema(_ bytes: UnsafeRawBufferPointer) {
        let copy = [UInt8](bytes)
        lock.withLock { checkedSchema = copy }
    }

    /// The stored schema decoded from `bytes`, if it was the last decoded.
    func decodedSchema(of bytes: UnsafeRawBufferPointer) -> StoredSchema? {
        lock.withLock { decodedSchema.flatMap { sameBytes(bytes, $0.bytes) ? $0.schema : nil } }
    }

    func noteDecodedSchema(_ schema: StoredSchema, of bytes: UnsafeRawBufferPointer) {
        let copy = [UInt8](bytes)
        lock.withLock { decodedSchema = (copy, schema) }
    }

    func unregister(_ core: RealmCore) { cores.unregister(core) }

    /// The live core with this serial, if it is still open.
    func liveCore(_ serial: UInt64) -> RealmCore? { cores.core(serial) }

    /// `core` committed: every other live core on the file may advance.
    func didCommit(from core: RealmCore) {
        cores.scheduleAutorefresh(except: core.serial)
    }

    /// The file's path (or in-memory name) for a configuration.
    static func path(for config: Realm.Configuration) -> String? {
        if let id = config.inMemoryIdentifier { return "realmlite-memory-" + id }
        return config.fileURLPath
    }

    /// Configurations with equal keys share one env.
    static func key(for config: Realm.Configuration) -> String {
        (config.inMemoryIdentifier != nil ? "mem:" : "file:") + (path(for: config) ?? "") + (config.readOnly ? ":ro" : "")
    }

    /// The shared env for a configuration, opening it if no Realm has it open.
    static func open(_ config: Realm.Configuration) throws -> SharedEnv {
        let inMemory = config.inMemoryIdentifier != nil
        guard let path = path(for: config) else {
            throw Realm.Error(.fileAccess, "Realm.Configuration has neither a fileURL nor an inMemoryIdentifier.")
        }
        // A case test, not `!= nil`: that copied the key into a temporary
        // of `Data?`, whose metadata the first open built to do it.
        if case .some = config.encryptionKey {
            throw Realm.Error(.invalidValue, "Cannot open '\(path)' with an encryptionKey: RealmLite does not encrypt files. Set Realm.Configuration.encryptionKey to nil (encrypt the volume instead, e.g. with fscrypt or LUKS).")
        }
        if config.readOnly && config.shouldCompactOnLaunch != nil {
            throw Realm.Error(.fail, "Cannot set `shouldCompactOnLaunch` when `readOnly` is set: a read-only Realm cannot be compacted. Remove one of them.")
        }
        let key = key(for: config)
        return try openEnvs.withLock { table -> SharedEnv in
            if let env = table[key]?.env { return env }
            // RealmSwift: one file, one read permission per process.
            let otherKey = config.readOnly ? String(key.dropLast(3)) : key + ":ro"
            if table[otherKey]?.env != nil {
                throw Realm.Error(.fileAccess, "Realm at path '\(path)' already opened with different read permissions: it is open \(config.readOnly ? "read-write" : "read-only") in this process, and cannot also be opened \(config.readOnly ? "read-only" : "read-write"). Open it with the same `readOnly` setting, or let every Realm of the file go (and close) first.")
            }
            if !inMemory, let seed = config.seedFilePath, !FileManager.default.fileExists(atPath: path) {
                try copySeed(seed.path, to: path)
            }
            if !inMemory && config.readOnly && !FileManager.default.fileExists(atPath: path) {
                throw Realm.Error(.fileNotFound, "Cannot open '\(path)' read-only: the file does not exist.")
            }
            var options = cs_options()
            // No readahead: object access is lookups (keys, links, indexes)
            // in a copy-on-write file whose pages scatter as it is updated.
            // Small commits are logged: a one-object write appends a record
            // to "<path>-log" and flushes it, instead of writing its pages.
            options.flags = (inMemory ? UInt32(CS_ENV_IN_MEMORY) : 0) | (config.readOnly ? UInt32(CS_ENV_RDONLY) : 0)
                | UInt32(CS_ENV_NORDAHEAD) | UInt32(CS_ENV_LOG_SMALL)
            options.durability = CS_DURABLE_FULL
            options.auto_shrink = config.autoShrink && !config.readOnly ? 1 : 0
            options.io = ioHooksForTesting
            let ownCommits = OwnCommits()
            options.commit_hook = { context, stage, txnid in
                if stage == CS_STAGE_DATA_WRITTEN { Unmanaged<OwnCommits>.fromOpaque(context!).takeUnretainedValue().note(txnid) }
            }
            options.commit_hook_ctx = Unmanaged.passRetained(ownCommits).toOpaque()
            _ = engineLogLevelFollowsLogger
            options.log = forwardEngineLog
            options.log_level = cs_log_level(UInt32(LogGate.threshold.load(ordering: .relaxed)))
            var handedOver = false // to the SharedEnv, which releases it after closing
            defer { if !handedOver { Unmanaged.passUnretained(ownCommits).release() } }
            func openHandle() throws -> OpaquePointer {
                var handle: OpaquePointer?
                let rc = cs_env_open(path, &options, &handle)
                guard rc == csOK, let handle else {
                    var error = storageError(rc, "Opening the Realm at '\(path)'")
                    if UInt32(rc) == CS_EIO.rawValue, errno == EACCES {
                        error = Realm.Error(.filePermissionDenied, error.message)
                    } else if isInvalidDatabase(rc) {
                        error = Realm.Error(.invalidDatabase, error.message
                            + ". The file at '\(path)' is not a Realm file, or its header is damaged: check Realm.Configuration.fileURL, or restore the file from a backup (or delete it to start empty).")
                    }
                    throw error
                }
                return handle
            }
            var handle = try openHandle()
            if !inMemory, let shouldCompact = config.shouldCompactOnLaunch,
               !table.values.contains(where: { $0.env?.path == path }) {
                handle = try compactOnLaunch(handle, path: path, shouldCompact: shouldCompact, reopen: openHandle)
            }
            let env = SharedEnv(handle: handle, cacheKey: key, path: path, isReadOnly: config.readOnly, inMemory: inMemory,
                                ownCommits: ownCommits)
            handedOver = true
            table[key] = WeakEnv(env: env)
            return env
        }
    }

    /// A failed cs_env_open that means "not a Realm file": CS_ENOTDB, or
    /// CS_ECORRUPT (both metas damaged, or the file shorter than its last
    /// commit). A CStorage file of another format version (CS_EFORMAT) stays
    /// fileFormatUpgradeRequired.
    private static func isInvalidDatabase(_ rc: Int32) -> Bool {
        UInt32(rc) == CS_ENOTDB.rawValue || UInt32(rc) == CS_ECORRUPT.rawValue
    }

    /// seedFilePath: the seed copied to `path` under a temporary name, then
    /// renamed, so that no crash leaves a partial file at `path`.
    private static func copySeed(_ seed: String, to path: String) throws {
        guard FileManager.default.fileExists(atPath: seed) else {
            throw Realm.Error(.fileNotFound, "Cannot copy the seed file '\(seed)' to '\(path)': the seed file does not exist.")
        }
        let temporary = path + ".seed"
        try? FileManager.default.removeItem(atPath: temporary)
        do {
            try FileManager.default.copyItem(atPath: seed, toPath: temporary)
            guard rename(temporary, path) == 0 else { throw Realm.Error(.fileAccess, String(cString: strerror(errno))) }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw Realm.Error(.fileAccess, "Cannot copy the seed file '\(seed)' to '\(path)': \(error)")
        }
    }
}

/// Live cores on one file by serial, told when a commit lands (autorefresh).
/// Unretained, and not weak (see CoreCache): a core unregisters in deinit.
/// A class of its own so that the commit watcher's thread can reach the
/// cores without holding the SharedEnv (whose deinit stops that thread).
final class LiveCores: @unchecked Sendable {
    // @unchecked: `cores` is guarded by `lock`.
    private let lock = NSLock()
    /// An array, not a dictionary by serial: a file has a few live cores,
    /// and the first `[UInt64: _]` of a process would cost a run-time
    /// conformance scan (see IdentityTable) on the open path. Flat (serial,
    /// core's address) pairs, bit patterns in an `[Int]` (an array type
    /// every open builds anyway): an array of tuples would be a generic
    /// type for the first open to build, and its destruction another at
    /// the first close.
    private var cores: [Int] = []

    func register(_ core: RealmCore) {
        let address = Int(bitPattern: Unmanaged.passUnretained(core).toOpaque())
        lock.withLock {
            cores.append(Int(truncatingIfNeeded: core.serial))
            cores.append(address)
        }
    }

    func unregister(_ core: RealmCore) {
        lock.withLock {
            if let index = pairIndex(core.serial) { cores.removeSubrange(index ..< index + 2) }
        }
    }

    func core(_ serial: UInt64) -> RealmCore? {
        lock.withLock { pairIndex(serial).map { Self.unmanaged(cores[$0 + 1]).takeUnretainedValue() } }
    }

    /// Every live core but `serial`'s (0: all) may advance.
    func scheduleAutorefresh(except serial: UInt64 = 0) {
        lock.lock()
        defer { lock.unlock() }
        let skipped = Int(truncatingIfNeeded: serial)
        for index in stride(from: 0, to: cores.count, by: 2) where cores[index] != skipped {
            Self.unmanaged(cores[index + 1])._withUnsafeGuaranteedRef { $0.scheduleAutorefresh() }
        }
    }

    /// Where `serial`'s pair starts (the lock held).
    private func pairIndex(_ serial: UInt64) -> Int? {
        let key = Int(truncatingIfNeeded: serial)
        return stride(from: 0, to: cores.count, by: 2).first { cores[$0] == key }
    }

    private static func unmanaged(_ address: Int) -> Unmanaged<RealmCore> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: address)!)
    }
}

/// The newest transaction this process committed on one file, noted by the
/// engine's commit hook before the commit is published (a commit that
/// fails after that leaves its id noted: another process's commit with
/// the same id then waits for the next commit or refresh to be seen).
final class OwnCommits: Sendable {
    private let newest = Atomic<UInt64>(0)

    var latest: UInt64 { newest.load(ordering: .acquiring) }

    func note(_ txnid: UInt64) {
        var seen = newest.load(ordering: .relaxed)
        while seen < txnid {
            let (exchanged, original) = newest.compareExchange(expected: seen, desired: txnid, ordering: .releasing)
            if exchanged { break }
            seen = original
        }
    }
}

/// Another process's commit wakes this process's Realms as a commit of its
/// own does: a thread per open file waits on the lock file's commit futex
/// (cs_env_wait_commit: no polling) and schedules every live core's
/// autorefresh, which delivers notifications on each core's own thread or
/// actor. Commits of this process are left to didCommit. The wait's timeout
/// is a safety net (a lost wakeup costs at most a second), not a poll.
final class CommitWatcher: @unchecked Sendable {
    // @unchecked: `thread` is written once in init and read in stop, on the
    // thread that owns the SharedEnv; the rest is atomic or immutable.
    private let handle: OpaquePointer
    private let cores: LiveCores
    private let ownCommits: OwnCommits
    private let stopping = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    private var thread: pthread_t?
    private let startSeq: UInt64

    /// Watches commits published after `seq` (cs_env_commit_seq).
    init(handle: OpaquePointer, cores: LiveCores, ownCommits: OwnCommits, from seq: UInt64) {
        self.handle = handle
        self.cores = cores
        self.ownCommits = ownCommits
        startSeq = seq
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&thread, nil, { context in
            Unmanaged<CommitWatcher>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        if rc == 0 {
            self.thread = thread
        } else {
            Unmanaged<CommitWatcher>.fromOpaque(context).release() // no watcher: other processes' commits wait for a refresh
        }
    }

    /// Wakes the thread and waits for it to end.
    func stop() {
        guard let thread else { return }
        stopping.store(true, ordering: .releasing)
        var attempts = 0
        while !finished.load(ordering: .acquiring) {
            cs_env_wake_waiters(handle) // again: one may come before the thread waits
            // The woken thread ends at once: yield to it first (a sleep of
            // even 200 µs lasts milliseconds on a busy machine, and closing
            // a Realm waits here).
            attempts += 1
            if attempts <= 50 { sched_yield() } else { usleep(200) }
        }
        pthread_join(thread, nil)
    }

    private func run() {
        var seq = startSeq
        while !stopping.load(ordering: .acquiring) {
            guard cs_env_wait_commit(handle, &seq, 1000) == csOK, !stopping.load(ordering: .acquiring) else { continue }
            var last: UInt64 = 0
            cs_env_last_txnid(handle, &last)
            if last > ownCommits.latest { cores.scheduleAutorefresh() }
        }
        finished.store(true, ordering: .releasing)
    }
}

/// The engine's messages go to Logger.shared (the engine checked the level
/// before formatting them).
private func forwardEngineLog(_: UnsafeMutableRawPointer?, _ level: cs_log_level, _ topic: cs_log_topic,
                              _ message: UnsafePointer<CChar>?) {
    guard let message, let level = LogLevel(rawValue: UInt(level.rawValue)) else { return }
    let category: Category.Storage = topic == CS_LOG_TOPIC_TXN ? .transaction : .all
    realmLog(level, category, "DB: " + String(cString: message))
}

/// Once per process: a change of Logger.shared or of its level reaches
/// every open file's engine.
private let engineLogLevelFollowsLogger: Void = {
    LogGate.onChange = { level in
        let envs = openEnvs.withLock { $0.values.compactMap(\.env) }
        for env in envs { cs_env_set_log_level(env.handle, cs_log_level(UInt32(level.rawValue))) }
    }
}()

extension SharedEnv {
    /// True while some Realm in this process has the file open (tests use it
    /// to prove that a reopen really re-reads the file).
    static func isOpen(path: String) -> Bool {
        openEnvs.withLock { table in table.values.contains { $0.env?.path == path } }
    }
}

/// I/O hooks for files opened from now on (nil: the default I/O): lets tests
/// make the disk fail under a Realm. Set it only while no other test opens
/// files; the engine copies the hooks at open.
nonisolated(unsafe) var ioHooksForTesting: UnsafePointer<cs_io_hooks>?

/// A class, not a struct: a struct holding a weak reference is copied and
/// destroyed through its metadata (which the first open built, to destroy
/// `table[key]?.env`'s optional); a class reference is just released.
final class WeakEnv {
    weak var env: SharedEnv?

    init(env: SharedEnv) { self.env = env }
}

/// Made with room for a few files (see CoreCache's table).
private let openEnvs = Mutex<[String: WeakEnv]>(Dictionary(minimumCapacity: 4))
