import Foundation
import Synchronization

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
        public var readOnly: Bool
        public var schemaVersion: UInt64
        /// Accepted; migrations come with a later release.
        public var migrationBlock: MigrationBlock?
        /// Accepted; when the stored schema differs, delete the file and start
        /// empty instead of failing.
        public var deleteRealmIfMigrationNeeded: Bool
        /// The classes this Realm stores. nil: every class used with it,
        /// registered on first use.
        public var objectTypes: [ObjectBase.Type]?
        /// The most versions that readers (frozen objects, unresolved
        /// ThreadSafeReferences, Realms on other threads) may pin at once: a
        /// commit that would exceed it throws `.tooManyActiveVersions` rather
        /// than letting the file grow without bound. nil: no limit.
        public var maximumNumberOfActiveVersions: UInt?

        private var _fileURL: URL?
        private var _inMemoryIdentifier: String?

        public init(fileURL: URL? = Configuration.defaultFileURL,
                    inMemoryIdentifier: String? = nil,
                    readOnly: Bool = false,
                    schemaVersion: UInt64 = 0,
                    migrationBlock: MigrationBlock? = nil,
                    deleteRealmIfMigrationNeeded: Bool = false,
                    objectTypes: [ObjectBase.Type]? = nil,
                    maximumNumberOfActiveVersions: UInt? = nil) {
            _fileURL = inMemoryIdentifier == nil ? fileURL : nil
            _inMemoryIdentifier = inMemoryIdentifier
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.objectTypes = objectTypes
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

private let defaultConfigurationStorage = Mutex(Realm.Configuration())

/// Called to migrate a file from an older schema version (later release).
public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: UInt64) -> Void

/// Passed to a MigrationBlock. Migrations arrive in a later release.
public final class Migration {
    init() {}
}
