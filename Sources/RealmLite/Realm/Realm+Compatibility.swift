import Foundation

// RealmSwift's spellings that forward to calls RealmLite has under another
// shape: freezing through the Realm, deleting a Map's objects, copying to a
// configuration, running a migration without keeping the Realm.

extension Realm {
    /// `object.freeze()`: an immutable snapshot of a managed object at its
    /// Realm's current version. Stops for an unmanaged or deleted object.
    public func freeze<T: ObjectBase>(_ object: T) -> T {
        core.verifyThread()
        return object._freeze()
    }

    /// `object.thaw()`: the live object in the calling thread's Realm, nil
    /// if it was deleted since it was frozen.
    public func thaw<T: ObjectBase>(_ object: T) -> T? {
        core.verifyThread()
        return object._thaw()
    }

    /// `collection.freeze()`: an immutable snapshot of a collection.
    public func freeze<Collection: RealmCollection>(_ collection: Collection) -> Collection {
        core.verifyThread()
        return collection.freeze()
    }

    /// Deletes the objects a Map of objects holds (its nil values are
    /// skipped), as ``delete(_:)-(ObjectBase)`` does for each. Must be called
    /// inside a write transaction.
    public func delete<Key: _MapKey, Value: ObjectBase>(_ map: Map<Key, Value?>) {
        core.delete(Array(map.values.compactMap { $0 }))
    }

    /// Writes a compacted copy of this Realm to `configuration.fileURL`, as
    /// ``writeCopy(toFile:encryptionKey:)`` does. Throws
    /// ``Realm/Error/Code/invalidValue`` for a configuration without a file
    /// (`inMemoryIdentifier`) or with an encryption key, and
    /// ``Realm/Error/Code/fileExists`` if the file exists.
    public func writeCopy(configuration: Realm.Configuration) throws {
        guard let fileURL = configuration.fileURL else {
            throw Realm.Error(.invalidValue, "writeCopy(configuration:) writes a file: give the configuration a fileURL, not an inMemoryIdentifier.")
        }
        try writeCopy(toFile: fileURL, encryptionKey: configuration.encryptionKey)
    }

    /// Opens the file of `configuration`, running its migration if its
    /// `schemaVersion` rose, and closes it again (unless it is open
    /// elsewhere). Opening a Realm does this by itself; call it to migrate
    /// ahead of time. Throws what ``init(configuration:)`` throws.
    public static func performMigration(for configuration: Realm.Configuration = .defaultConfiguration) throws {
        _ = try RealmCore.cached(configuration, .current())
    }
}
