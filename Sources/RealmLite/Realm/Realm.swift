import CStorage
import Dispatch
import Foundation

/// A Realm: one open database, seen through one version at a time, and
/// confined to the thread, main actor, serial queue, actor or task that
/// opened it (or frozen: one version, usable from any thread). As with RealmSwift it is a value
/// wrapping a shared instance: `Realm()` twice on one thread with one
/// configuration gives equal values on the same instance, and each thread
/// gets its own instance on the same file.
public struct Realm {
    let core: RealmCore

    init(core: RealmCore) { self.core = core }

    /// Opens the Realm at `Realm.Configuration.defaultConfiguration`,
    /// confined to the calling thread (to the main actor when called there).
    public init() throws {
        try self.init(configuration: .defaultConfiguration)
    }

    /// Opens the Realm in the file at `fileURL` with the rest of
    /// ``Configuration/defaultConfiguration``, confined to the calling thread
    /// like ``init(configuration:)``. Throws a ``Realm/Error`` if the file
    /// cannot be opened or its schema needs a migration this configuration does
    /// not allow.
    public init(fileURL: URL) throws {
        var configuration = Configuration.defaultConfiguration
        configuration.fileURL = fileURL
        try self.init(configuration: configuration)
    }

    /// The Realm for `configuration` confined to the calling thread (the
    /// same instance for every call on this thread while one is alive). On
    /// the main thread or the main queue (a @MainActor function, a
    /// DispatchQueue.main block) it is the main actor's Realm, valid wherever
    /// the main actor runs, whichever thread that is.
    ///
    /// The first open of a file checks its schema and migrates it if
    /// `schemaVersion` rose. Throws ``Realm/Error/Code/fileAccess`` or
    /// ``Realm/Error/Code/filePermissionDenied`` if the file cannot be opened
    /// or created, ``Realm/Error/Code/fileNotFound`` for a read-only open of a
    /// missing file, ``Realm/Error/Code/invalidDatabase`` for a file that is
    /// not a Realm file (or whose header is damaged),
    /// ``Realm/Error/Code/fileFormatUpgradeRequired`` for a RealmLite file of
    /// another format version, ``Realm/Error/Code/schemaMismatch`` when
    /// the classes changed without a migration, and
    /// ``Realm/Error/Code/invalidSchema`` for a class in `objectTypes` that
    /// cannot be stored.
    public init(configuration: Configuration) throws {
        core = try RealmCore.cached(configuration, .current())
    }

    /// A Realm confined to the serial `queue`: usable in any block running on
    /// it, whichever thread runs the block. Must be called on that queue.
    /// For `DispatchQueue.main` this is the main actor's Realm.
    public init(configuration: Configuration = .defaultConfiguration, queue: DispatchQueue) throws {
        if isMainQueue(queue) {
            guard isMainContext() else {
                throw Realm.Error(.incorrectThread,
                                  "Realm(configuration:queue: .main) must be called on the main actor (the main thread, a DispatchQueue.main block or a @MainActor function).")
            }
            core = try RealmCore.cached(configuration, .main)
            return
        }
        let tag: QueueTag
        if let existing = queue.getSpecific(key: queueTagKey) {
            tag = existing
        } else {
            tag = QueueTag()
            queue.setSpecific(key: queueTagKey, value: tag)
        }
        guard DispatchQueue.getSpecific(key: queueTagKey) === tag else {
            throw Realm.Error(.incorrectThread,
                              "Realm(configuration:queue:) must be called from a block running on that queue (e.g. inside queue.async { }).")
        }
        core = try RealmCore.cached(configuration, .queue(queue, tag))
    }

    /// A Realm isolated to `actor`: call it from the actor (`try await
    /// Realm(actor: self)` in an actor's method or init). Accesses are checked
    /// against the actor's executor, not a thread. A first open of the file
    /// in this process (creating, compacting or migrating it) runs on a
    /// background thread without blocking the actor; `downloadBeforeOpen`
    /// is for synchronized Realms (RealmLite: every value just opens).
    /// Throws what ``init(configuration:)`` throws, or CancellationError if
    /// the task was cancelled meanwhile.
    public init<A: Actor>(configuration: Configuration = .defaultConfiguration, actor: isolated A,
                          downloadBeforeOpen: OpenBehavior = .never) async throws {
        let opened = Realm.isOpenInProcess(configuration) ? nil : try await Realm.openInBackground(configuration)
        core = try withExtendedLifetime(opened) { try RealmCore.cached(configuration, Self.confinement(for: actor)) }
    }

    /// A Realm isolated to the calling actor, e.g. `try await Realm()` in a
    /// @MainActor function; called outside any actor (a nonisolated async
    /// function), a Realm confined to the calling task: usable across its
    /// suspension points whichever thread resumes it, and by no other task
    /// (child tasks included). A first open of the file in this process
    /// runs on a background thread, as with ``init(configuration:actor:downloadBeforeOpen:)``.
    public init(configuration: Configuration = .defaultConfiguration,
                isolation: isolated (any Actor)? = #isolation,
                downloadBeforeOpen: OpenBehavior = .never) async throws {
        let opened = Realm.isOpenInProcess(configuration) ? nil : try await Realm.openInBackground(configuration)
        let confinement: Confinement
        if let isolation {
            confinement = Self.confinement(for: isolation)
        } else {
            guard let task = currentTaskID() else {
                throw Realm.Error(.incorrectThread, "An async Realm must be opened from a task or an actor.")
            }
            confinement = .task(task)
        }
        core = try withExtendedLifetime(opened) { try RealmCore.cached(configuration, confinement) }
    }

    /// `try await Realm.open()`: a Realm isolated to the calling actor, or
    /// confined to the calling task outside any actor, opened as
    /// ``init(configuration:isolation:downloadBeforeOpen:)`` does (a first
    /// open's work on a background thread). RealmSwift's signature; every
    /// ``OpenBehavior`` opens the local file.
    public static func open(configuration: Configuration = .defaultConfiguration,
                            isolation: isolated (any Actor)? = #isolation,
                            downloadBeforeOpen: OpenBehavior = .never) async throws -> Realm {
        try await Realm(configuration: configuration, isolation: isolation, downloadBeforeOpen: downloadBeforeOpen)
    }

    /// The main actor is the main queue (checked by queue, whichever thread
    /// drains it); any other actor is checked by executor.
    private static func confinement(for actor: any Actor) -> Confinement {
        if actor === MainActor.shared { return .main }
        return .actor(actor)
    }

    /// The configuration this Realm was opened with. Readable from any thread.
    public var configuration: Configuration { core.configuration }

    /// The classes stored in this Realm.
    public var schema: Schema {
        core.verifyThread()
        return core.schema
    }

    /// True if no class has any object.
    public var isEmpty: Bool {
        core.verifyThread()
        return core.isEmpty
    }

    /// True between ``beginWrite()`` (or the start of a `write {}` block) and
    /// its commit or cancel, including inside an async write's block. Must be
    /// read on this Realm's thread.
    public var isInWriteTransaction: Bool {
        core.verifyThread()
        return core.isInWriteTransaction
    }

    /// Whether this Realm advances to the newest version by itself when
    /// another Realm commits (at the start of the next turn of its main
    /// thread, serial queue or actor). Plain threads have no turns: call
    /// refresh() there.
    public var autorefresh: Bool {
        get { core.verifyThread(); return core.autorefresh }
        nonmutating set { core.verifyThread(); core.autorefresh = newValue }
    }

    // MARK: - Versions

    /// Moves to the newest version. Returns true if it changed. A frozen
    /// Realm never changes (false).
    @discardableResult
    public func refresh() -> Bool { core.refresh() }

    /// Releases the version this Realm reads, so that its pages can be
    /// reused; objects read so far become invalid and the next read sees the
    /// newest version. Finishes pending async writes, cancels a write.
    public func invalidate() { core.invalidate() }

    // MARK: - Reading objects

    /// Every object of a class, as live ``Results`` in object-key (insertion)
    /// order; narrow them with `filter`, `where` or `sorted`. The class is
    /// registered on first use unless `objectTypes` lists the classes (then
    /// an unlisted one stops with ``Realm/Error/Code/objectTypeNotInSchema``).
    /// On the Realm's thread, queue or actor only. A ``Projection`` class
    /// gives its root class's objects, each seen through the projection
    /// (`realm.objects(PersonProjection.self)`), filtered and sorted by the
    /// root's properties.
    public func objects<Element: RealmFetchable>(_ type: Element.Type) -> Results<Element> {
        core.verifyThread()
        return core.objects(type)
    }

    /// The object whose primary key is `key`, or nil if there is none: one
    /// lookup in the primary-key tree. A key that does not convert to the
    /// primary key's type, or a class without a primary key, stops with
    /// ``Realm/Error/Code/invalidValue``. On the Realm's thread, queue or
    /// actor only.
    public func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        core.verifyThread()
        return core.object(ofType: type, forPrimaryKey: key)
    }

    // MARK: - Frozen Realms

    /// True for a frozen Realm (one version, readable from any thread).
    public var isFrozen: Bool { core.isFrozen }

    /// A frozen Realm on this Realm's current version: immutable, readable
    /// from any thread, and keeping that version's pages until the last
    /// frozen Realm, object or collection of it is released. Freezing twice
    /// at one version gives the same frozen instance.
    public func freeze() -> Realm {
        Realm(core: orStop { try core.freeze() })
    }

    /// The live Realm for this configuration on the calling thread.
    public func thaw() -> Realm {
        guard isFrozen else { return self }
        return orStop { try Realm(configuration: configuration) }
    }
}

extension Realm: Equatable {
    /// True for the same instance (same file, same context, or the same
    /// frozen version).
    public static func == (lhs: Realm, rhs: Realm) -> Bool { lhs.core === rhs.core }
}

extension Realm: CustomStringConvertible {
    public var description: String {
        "Realm(\(SharedEnv.path(for: configuration) ?? "?")\(isFrozen ? ", frozen" : ""))"
    }
}
