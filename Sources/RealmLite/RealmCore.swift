import CStorage
import Foundation

/// A Realm: one open database, seen through one snapshot at a time.
///
/// Each instance owns a read transaction (its current snapshot); a write
/// transaction replaces it while writing. Managed objects cache pointers into
/// the current snapshot tagged with `generation`, which is bumped whenever
/// those pointers may go stale (any change, refresh, commit, cancel).
/// Realms are confined to the thread that created them (checks: issue 7).
public final class Realm {
    public let configuration: Configuration
    let env: SharedEnv
    var readTxn: OpaquePointer?
    var writeTxn: OpaquePointer?
    var generation: UInt64 = 1
    var schemaState: SchemaState
    /// The first error of the current write; it cancels the write at commit.
    var pendingError: Realm.Error?
    /// One cursor per tree for the current transaction.
    var cursors: [cs_tree: OpaquePointer] = [:]
    var cursorClaims: UInt64 = 0
    /// Next object key per class, loaded lazily in each write transaction.
    var nextKeys: [ObjectKeyCounter] = []
    /// A record buffer reused by inserts (taken while in use, so nested
    /// inserts of linked objects get their own).
    var recordScratch: [UInt8] = []
    /// Classes registered by the current write (forgotten if it is cancelled).
    var registeredInWrite: [String] = []
    var metaTree: cs_tree = absentTree
    /// The policy of the add/create in progress (applies to linked objects).
    var currentUpdatePolicy: UpdatePolicy = .error
    /// Objects whose insert is in progress (so cycles can link back to them).
    var inserting = Set<ObjectIdentifier>()
    let creationThread = pthread_self()

    /// The current transaction: the write transaction while writing.
    @inline(__always)
    var txn: OpaquePointer { writeTxn ?? readTxn.unsafelyUnwrapped }

    /// Opens the Realm at `Realm.Configuration.defaultConfiguration`.
    public convenience init() throws {
        try self.init(configuration: .defaultConfiguration)
    }

    public convenience init(fileURL: URL) throws {
        var configuration = Configuration.defaultConfiguration
        configuration.fileURL = fileURL
        try self.init(configuration: configuration)
    }

    public init(configuration: Configuration) throws {
        self.configuration = configuration
        env = try SharedEnv.open(configuration)
        schemaState = env.schema.withLock { $0 }
        var handle: OpaquePointer?
        try check(cs_txn_begin(env.handle, UInt32(CS_TXN_RDONLY), &handle), "Beginning a read transaction")
        readTxn = handle
        try openSchema()
    }

    deinit {
        closeReadCursors()
        if let writeTxn { cs_txn_abort(writeTxn) }
        if let readTxn { cs_txn_abort(readTxn) }
    }

    /// The classes stored in this Realm.
    public var schema: Schema { schemaState.publicSchema }

    /// True if no class has any object.
    public var isEmpty: Bool {
        schemaState.classes.allSatisfy { count(of: $0) == 0 }
    }

    // MARK: - Transactions

    public var isInWriteTransaction: Bool { writeTxn != nil }

    /// Runs `block` in a write transaction and commits it. An error thrown by
    /// the block, or by any operation inside it (duplicate primary key...),
    /// cancels the transaction and is rethrown.
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [NotificationToken] = [], _ block: () throws -> Result) throws -> Result {
        try beginWriteTransaction()
        let result: Result
        do {
            result = try block()
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
        if isInWriteTransaction { try commitWrite() }
        return result
    }

    /// Starts a write transaction; blocks while another writer holds the lock.
    /// Stops the program on a nested write (use `write {}` to get a thrown error).
    public func beginWrite() {
        do { try beginWriteTransaction() } catch let error as Realm.Error { realmFatal(error) } catch { realmFatal(.fail, "\(error)") }
    }

    func beginWriteTransaction() throws {
        if writeTxn != nil {
            throw Realm.Error(.wrongTransactionState,
                              "The Realm is already in a write transaction: nested writes are not allowed; commit or cancel the current write first.")
        }
        if configuration.readOnly {
            throw Realm.Error(.readOnly, "Cannot write to a Realm opened with readOnly = true; open it without readOnly to modify it.")
        }
        closeReadCursors()
        var handle: OpaquePointer?
        let rc = cs_txn_begin(env.handle, 0, &handle)
        if UInt32(rc) == CS_EBUSY.rawValue {
            throw Realm.Error(.wrongTransactionState,
                              "This thread already has a write transaction open on '\(env.path)' through another Realm instance; commit or cancel it first.")
        }
        try check(rc, "Beginning a write transaction")
        writeTxn = handle
        cs_txn_reset(readTxn)
        generation &+= 1
        pendingError = nil
        nextKeys = []
        registeredInWrite = []
    }

    /// Commits the write transaction. If an operation inside it failed, the
    /// transaction is cancelled instead and that error is thrown.
    public func commitWrite(withoutNotifying tokens: [NotificationToken] = []) throws {
        guard let handle = writeTxn else {
            throw Realm.Error(.wrongTransactionState, "Cannot commit: the Realm is not in a write transaction.")
        }
        if let error = pendingError {
            cancelWrite()
            throw error
        }
        do {
            try saveNextKeys()
        } catch {
            cancelWrite()
            throw error
        }
        cursors = [:] // the engine closes a write transaction's cursors
        writeTxn = nil
        let rc = cs_txn_commit(handle)
        renewReadTransaction()
        registeredInWrite = []
        if rc != csOK {
            retireUncommittedKeys()
            forgetClassesRegisteredInWrite()
            throw storageError(rc, "Committing the write transaction")
        }
    }

    /// Discards every change of the write transaction. Objects added in it
    /// become invalidated.
    public func cancelWrite() {
        guard let handle = writeTxn else {
            realmFatal(.wrongTransactionState, "Cannot cancel: the Realm is not in a write transaction.")
        }
        cursors = [:]
        writeTxn = nil
        cs_txn_abort(handle)
        pendingError = nil
        retireUncommittedKeys()
        forgetClassesRegisteredInWrite()
        renewReadTransaction()
    }

    /// Keys handed out by a write that did not commit are never used again.
    private func retireUncommittedKeys() {
        let counters = nextKeys.map { ($0.info.name, $0.next) }
        env.cancelledKeyFloor.withLock { floor in
            for (name, next) in counters { floor[name] = max(floor[name] ?? 0, next) }
        }
    }

    /// Moves to the newest committed version. Returns true if it changed.
    @discardableResult
    public func refresh() -> Bool {
        guard writeTxn == nil else { return false }
        let before = cs_txn_id(readTxn)
        closeReadCursors()
        cs_txn_reset(readTxn)
        renewReadTransaction()
        return cs_txn_id(readTxn) != before
    }

    func renewReadTransaction() {
        closeReadCursors()
        mustSucceed(cs_txn_renew(readTxn), "Renewing the read transaction")
        generation &+= 1
    }

    func closeReadCursors() {
        guard writeTxn == nil else { return }
        for cursor in cursors.values { cs_cursor_close(cursor) }
        cursors = [:]
    }

    /// Records the first error of a write; it surfaces from write/commitWrite.
    func fail(_ error: Realm.Error) {
        if pendingError == nil { pendingError = error }
    }

    /// Stops unless in a write transaction (RealmSwift raises here too).
    @inline(__always)
    func requireWrite(_ what: @autoclosure () -> String) {
        if writeTxn == nil { realmFatal(.outsideWrite(what())) }
    }

    // MARK: - Classes

    /// The ClassInfo of a model class, registering it on first use when the
    /// configuration has no objectTypes list.
    func classInfo(for type: ObjectBase.Type) throws -> ClassInfo {
        if let info = schemaState.byType[ObjectIdentifier(type)] { return info }
        schemaState = env.schema.withLock { $0 }
        if let info = schemaState.byType[ObjectIdentifier(type)] { return info }
        if configuration.objectTypes != nil {
            throw Realm.Error(.objectTypeNotInSchema,
                              "Object type '\(type.className())' is not managed by this Realm: add \(type.className()).self to Realm.Configuration.objectTypes.")
        }
        try register([type])
        guard let info = schemaState.byType[ObjectIdentifier(type)] else {
            throw Realm.Error(.objectTypeNotInSchema, "Object type '\(type.className())' could not be added to the Realm's schema.")
        }
        return info
    }

    func classInfoOrStop(_ type: ObjectBase.Type) -> ClassInfo {
        do { return try classInfo(for: type) } catch let error as Realm.Error { realmFatal(error) } catch { realmFatal(.fail, "\(error)") }
    }

    // MARK: - Reading

    /// The record of `key`, or nil if there is none in the current snapshot.
    func loadRecord(_ info: ClassInfo, _ key: UInt64) -> cs_val? {
        guard info.objectsTree != absentTree else { return nil }
        var value = cs_val()
        let rc = withKey(key) { cs_get(txn, info.objectsTree, $0, &value) }
        if rc == csNotFound { return nil }
        mustSucceed(rc, "Reading a '\(info.name)' object")
        return value
    }

    /// A managed accessor for an existing row.
    func materialize(_ info: ClassInfo, key: UInt64, record: cs_val?) -> ObjectBase {
        let object = info.type.init()
        object._realm = self
        object._info = info
        object._key = key
        if let record {
            object._record = UnsafeRawPointer(record.data)
            object._recordSize = record.size
            object._recordGeneration = generation
        }
        info.bindColumns(object)
        return object
    }

    /// An accessor for `key` if the row exists.
    func object(_ info: ClassInfo, key: UInt64) -> ObjectBase? {
        guard let record = loadRecord(info, key) else { return nil }
        return materialize(info, key: key, record: record)
    }

    func count(of info: ClassInfo) -> Int {
        guard info.objectsTree != absentTree else { return 0 }
        var n: UInt64 = 0
        let rc = cs_count(txn, info.objectsTree, &n)
        if rc == csNotFound { return 0 }
        mustSucceed(rc, "Counting '\(info.name)' objects")
        return Int(n)
    }

    /// The current transaction's cursor on `tree` (nil if the tree is absent).
    /// Every caller may move it: `cursorClaims` tells iterators it moved.
    func cursor(_ tree: cs_tree) -> OpaquePointer? {
        guard tree != absentTree else { return nil }
        cursorClaims &+= 1
        if let cursor = cursors[tree] { return cursor }
        var cursor: OpaquePointer?
        let rc = cs_cursor_open(txn, tree, &cursor)
        if rc == csNotFound { return nil }
        mustSucceed(rc, "Opening a cursor")
        cursors[tree] = cursor
        return cursor
    }

    /// All objects of a class (live; querying comes with Results' query).
    public func objects<Element: Object>(_ type: Element.Type) -> Results<Element> {
        Results(realm: self, info: classInfoOrStop(type))
    }

    /// The object with this primary key, or nil.
    public func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        let info = classInfoOrStop(type)
        guard let column = info.primaryKeyColumn else {
            realmFatal(.invalidValue, "'\(info.name)' does not have a primary key; declare one with @Persisted(primaryKey: true).")
        }
        let entry: [UInt8]?
        do {
            entry = try info.accessors[column].indexKey(for: key)
        } catch let error as Realm.Error {
            realmFatal(error)
        } catch {
            realmFatal(.invalidValue, "\(error)")
        }
        guard let entry, let objectKey = primaryKeyLookup(info, entry: entry) else { return nil }
        return self.object(info, key: objectKey).map { unsafeDowncast($0, to: Element.self) }
    }

    /// The object key stored under an encoded primary key (KeyEncoding.swift).
    func primaryKeyLookup(_ info: ClassInfo, entry: [UInt8]) -> UInt64? {
        guard info.primaryKeyTree != absentTree else { return nil }
        var value = cs_val()
        let rc = withBytesKey(entry) { cs_get(txn, info.primaryKeyTree, $0, &value) }
        if rc == csNotFound { return nil }
        mustSucceed(rc, "Looking up a primary key of '\(info.name)'")
        return keyValue(value)
    }
}

/// The next object key of one class during a write transaction.
final class ObjectKeyCounter {
    let info: ClassInfo
    var next: UInt64

    init(info: ClassInfo, next: UInt64) {
        self.info = info
        self.next = next
    }
}

/// Returned by notification APIs (arriving with a later release); accepted
/// by write(withoutNotifying:).
public final class NotificationToken {
    public init() {}
    public func invalidate() {}
}
