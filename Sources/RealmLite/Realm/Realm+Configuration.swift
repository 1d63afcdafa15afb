import Foundation

extension Realm {
    /// How to open a Realm (RealmSwift's Realm.Configuration).
    public struct Configuration: @unchecked Sendable {
        // @unchecked: objectTypes holds immutable metatypes; the migration
        // block is @Sendable.

        /// The file; ignored when inMemoryIdentifier is set.
        public var fileURL: URL? {
            get { _fileURL }
            set { _fileURL = newValue; if newValue != nil { _inMemoryIdentifier = nil } }
        }
        /// A process-local Realm with no file, shared by all instances opened
        /// with the same identifier; its data is gone when the last closes.
        public var inMemoryIdentifier: String? {
            get { _inMemoryIdentifier }
            set { _inMemoryIdentifier = newValue; if newValue != nil { _fileURL = nil } }
        }
        /// RealmSwift's 64-byte key to encrypt the file. RealmLite does not
        /// encrypt files: leave it nil; opening with a key throws
        /// ``Realm/Error/Code/invalidValue`` rather than storing the data
        /// unencrypted.
        public var encryptionKey: Data?
        /// Opens the file without taking the write lock: the file must exist
        /// (``Realm/Error/Code/fileNotFound`` otherwise), writes fail with
        /// ``Realm/Error/Code/readOnly``, and a file at an older schema version
        /// is not migrated (``Realm/Error/Code/schemaMismatch``).
        public var readOnly: Bool
        /// The version of the program's schema. Raise it whenever the model
        /// classes change: opening a file stored at a lower version runs the
        /// migration (``migrationBlock``), a higher stored version fails with
        /// ``Realm/Error/Code/schemaMismatch``, and a changed schema at the
        /// same version fails with that code too, unless
        /// ``deleteRealmIfMigrationNeeded`` is set.
        public var schemaVersion: UInt64
        /// Runs when the file's schemaVersion is lower than `schemaVersion`,
        /// inside the migration's one write transaction (docs/MIGRATIONS.md).
        /// Without it, a version bump still migrates: added properties get
        /// their defaults, removed ones are dropped.
        public var migrationBlock: MigrationBlock?
        /// Told how far a long migration has come: every few thousand
        /// objects while a class's records are rewritten or enumerated by
        /// the block, and when each pass ends. Beyond RealmSwift (which has
        /// no such hook): for a progress bar over a million-object
        /// migration. Runs on the opening thread, inside the migration.
        public var migrationProgress: MigrationProgressBlock?
        /// When the program's classes differ from the stored schema, empty
        /// the file and start again instead of migrating or failing.
        public var deleteRealmIfMigrationNeeded: Bool
        /// The classes this Realm stores (with the classes they link to); a
        /// class not listed stops with ``Realm/Error/Code/objectTypeNotInSchema``.
        /// nil, as in RealmSwift: every `Object` and `EmbeddedObject`
        /// subclass of the program (but generic ones and those whose
        /// `_realmIgnoreClass()` is true), registered at the first open of the
        /// file in the process. A class that would make that open fail (its
        /// class name shared by two Swift classes, a model that cannot be
        /// stored, one that differs from its stored class) is left out and
        /// registered, or refused with its error, when first used.
        public var objectTypes: [ObjectBase.Type]?
        /// Called on the first open of the file in this process, when no
        /// other process has it open, with the file's size and the bytes its
        /// data uses (both in bytes): return true to compact the file before
        /// it opens (a compact copy renamed over it, so a crash leaves the
        /// old or the compacted file). Not allowed with `readOnly`; ignored
        /// for in-memory Realms.
        public var shouldCompactOnLaunch: ((Int, Int) -> Bool)?
        /// A file (usually bundled with the app) copied to `fileURL` on the
        /// first open when no file exists there yet.
        public var seedFilePath: URL?
        /// The most versions that readers (frozen objects, unresolved
        /// ThreadSafeReferences, Realms on other threads) may pin at once: a
        /// commit that would exceed it throws `.tooManyActiveVersions` rather
        /// than letting the file grow without bound. nil: no limit.
        public var maximumNumberOfActiveVersions: UInt?
        /// Beyond RealmSwift: after large deletes, ordinary write
        /// transactions give the file's free space back to the system, with
        /// no compaction pause and no exclusive open. Each commit moves a few
        /// live pages from the end of the file into free pages lower down,
        /// and cuts free pages off the end once no reader (of any thread or
        /// process) can still see them; a crash at any moment leaves a valid
        /// file. On by default; set to false to keep the file at its largest
        /// size (it then shrinks only through `shouldCompactOnLaunch`). The
        /// first Realm to open the file in a process decides for that
        /// process; processes may differ.
        public var autoShrink: Bool = true

        private var _fileURL: URL? { didSet { fileURLPath = _fileURL?.path } }
        private var _inMemoryIdentifier: String?
        /// fileURL's path, worked out when fileURL is set: an open needs it
        /// several times, and each `URL.path` builds the string anew.
        private(set) var fileURLPath: String?

        /// A configuration with every setting given (RealmSwift's labels and
        /// defaults): by default `default.realm` in the current directory,
        /// no encryption, read-write, schema version 0, no migration block,
        /// every model class of the program, no version limit. Setting
        /// `inMemoryIdentifier` ignores `fileURL`.
        public init(fileURL: URL? = Configuration.defaultFileURL,
                    inMemoryIdentifier: String? = nil,
                    encryptionKey: Data? = nil,
                    readOnly: Bool = false,
                    schemaVersion: UInt64 = 0,
                    migrationBlock: MigrationBlock? = nil,
                    deleteRealmIfMigrationNeeded: Bool = false,
                    shouldCompactOnLaunch: ((Int, Int) -> Bool)? = nil,
                    objectTypes: [ObjectBase.Type]? = nil,
                    seedFilePath: URL? = nil,
                    maximumNumberOfActiveVersions: UInt? = nil) {
            _fileURL = inMemoryIdentifier == nil ? fileURL : nil
            fileURLPath = _fileURL?.path // didSet does not run in an init
            _inMemoryIdentifier = inMemoryIdentifier
            self.encryptionKey = encryptionKey
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.shouldCompactOnLaunch = shouldCompactOnLaunch
            self.objectTypes = objectTypes
            self.seedFilePath = seedFilePath
            self.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions
        }

        /// `default.realm` in the current directory.
        public static var defaultFileURL: URL {
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("default.realm")
        }

        /// The configuration `Realm()` uses.
        public static var defaultConfiguration: Configuration {
            get { defaultConfigurationStorage.withLock { $0 } }
            set { defaultConfigurationStorage.withLock { $0 = newValue } }
        }
    }
}

private let defaultConfigurationStorage = Protected(Realm.Configuration())

extension Realm.Configuration: Equatable {
    /// Equal when they name the same file (or in-memory identifier) with the
    /// same encryption key, read-only flag and schema version (RealmSwift's
    /// comparison; blocks and class lists are not compared).
    public static func == (lhs: Realm.Configuration, rhs: Realm.Configuration) -> Bool {
        lhs.encryptionKey == rhs.encryptionKey && lhs.fileURL == rhs.fileURL
            && lhs.inMemoryIdentifier == rhs.inMemoryIdentifier && lhs.readOnly == rhs.readOnly
            && lhs.schemaVersion == rhs.schemaVersion
    }
}

extension Realm.Configuration: CustomStringConvertible {
    /// The file (or in-memory identifier) and the settings that differ from the defaults.
    public var description: String {
        var parts = [inMemoryIdentifier.map { "inMemoryIdentifier: \($0)" } ?? "fileURL: \(fileURL?.path ?? "nil")"]
        if encryptionKey != nil { parts.append("encryptionKey: <\(encryptionKey!.count) bytes>") }
        if readOnly { parts.append("readOnly: true") }
        parts.append("schemaVersion: \(schemaVersion)")
        if deleteRealmIfMigrationNeeded { parts.append("deleteRealmIfMigrationNeeded: true") }
        if let objectTypes { parts.append("objectTypes: [\(objectTypes.map { $0.className() }.joined(separator: ", "))]") }
        if let limit = maximumNumberOfActiveVersions { parts.append("maximumNumberOfActiveVersions: \(limit)") }
        if let seedFilePath { parts.append("seedFilePath: \(seedFilePath.path)") }
        return "Realm.Configuration(\(parts.joined(separator: ", ")))"
    }
}

/// Called once when a file is opened with a higher schemaVersion than it
/// has: move values between the old and the new schema (Migration.swift,
/// docs/MIGRATIONS.md). It runs inside the migration's write transaction.
public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: UInt64) -> Void

/// Receives a ``MigrationProgress`` (``Realm/Configuration/migrationProgress``).
public typealias MigrationProgressBlock = @Sendable (_ progress: MigrationProgress) -> Void

/// How far one pass of a migration over one class has come.
public struct MigrationProgress: Sendable, Equatable {
    /// What the pass does.
    public enum Step: Sendable, Equatable {
        /// Rewriting the class's records in the new layout (a change that
        /// cannot leave them as they are: docs/MIGRATIONS.md).
        case rewritingRecords
        /// The migration block's `enumerateObjects(ofType:)`.
        case enumeratingObjects
    }
    /// The stored class name.
    public let className: String
    /// What the pass does.
    public let step: Step
    /// Objects done so far in this pass.
    public let completed: Int
    /// Objects the pass visits (the class's objects when it began).
    public let total: Int
}

// MARK: - File management

/// The schema version stored in the file at `fileURL` (RealmSwift's free
/// function; same as Realm.schemaVersionAtURL).
public func schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws -> UInt64 {
    try Realm.schemaVersionAtURL(fileURL, encryptionKey: encryptionKey)
}

extension Realm {
    /// The schema version stored in the file at `fileURL` (without opening
    /// it as a Realm, so no migration runs).
    public static func schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws -> UInt64 {
        if encryptionKey != nil {
            throw Realm.Error(.invalidValue, "RealmLite files are not encrypted: call schemaVersionAtURL without an encryptionKey.")
        }
        guard FileManager.default.fileExists(atPath: fileURL.path) else {
            throw Realm.Error(.fileNotFound, "Cannot read the schema version of '\(fileURL.path)': the file does not exist.")
        }
        // An env this process already has open (read-write) is reused.
        var configuration = Configuration(fileURL: fileURL)
        configuration.readOnly = !SharedEnv.isOpen(path: fileURL.path)
        let env = try SharedEnv.open(configuration)
        let txn = try env.beginRead()
        defer { txn.abort() }
        let meta = try txn.openTree(TreeName.meta, create: false)
        let value = meta == absentTree ? nil
            : try withBytesKey(Array(MetaKey.schema.utf8)) { try txn.lookup(meta, $0, "Reading the stored schema") }
        guard let value else {
            throw Realm.Error(.fail, "Cannot read the schema version of '\(fileURL.path)': the file has no schema yet (it was never opened as a Realm).")
        }
        return try StoredSchema.decode(bytes(of: value)).version
    }

    /// Whether the file of `config` exists (in-memory Realms: whether one
    /// with that identifier is open).
    public static func fileExists(for config: Configuration) -> Bool {
        if config.inMemoryIdentifier != nil { return SharedEnv.isOpen(path: SharedEnv.path(for: config) ?? "") }
        guard let path = config.fileURLPath else { return false }
        return FileManager.default.fileExists(atPath: path)
    }

    /// Deletes the file of `config`, its lock file, its log of small commits,
    /// the shared memory a killed process may have left for it, and what an
    /// interrupted compaction or seed copy left beside it. Returns whether
    /// there was a file to delete. Throws `.fileAccess` while any Realm
    /// instance of the file is open in this process or in another one
    /// (close them first), or if a file cannot be removed.
    @discardableResult
    public static func deleteFiles(for config: Configuration) throws -> Bool {
        guard config.inMemoryIdentifier == nil, let path = config.fileURLPath else { return false }
        if SharedEnv.isOpen(path: path) {
            throw Realm.Error(.fileAccess,
                              "Cannot delete the files of '\(path)': it is open in this process. Release every Realm instance, object and ThreadSafeReference of it first.")
        }
        let existed = FileManager.default.fileExists(atPath: path)
        // The engine removes the database's own files, and refuses while a
        // process has it open (its lock file says so).
        try removeDatabaseFiles(path)
        for file in [path + ".compact", path + ".compact.lock", path + ".seed"] where FileManager.default.fileExists(atPath: file) {
            do {
                try FileManager.default.removeItem(atPath: file)
            } catch {
                throw Realm.Error(.fileAccess, "Cannot delete '\(file)': \(error.localizedDescription)")
            }
        }
        return existed
    }
}

extension Realm {
    /// Writes a compacted copy of this Realm's file to `fileURL`, a new file:
    /// every object of the newest committed version (one version, while
    /// other threads and processes go on writing), with no free space. The
    /// copy is checked before it gets its name, so a failure or a crash
    /// never leaves a partial file there. Throws `.fileExists` if a file is
    /// at `fileURL`. Changes of a write transaction still open here are not
    /// in the copy.
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        core.verifyThread()
        if encryptionKey != nil {
            throw Realm.Error(.invalidValue, "RealmLite files are not encrypted: call writeCopy(toFile:) without an encryptionKey.")
        }
        try core.env.writeCopy(to: fileURL.path)
    }
}
