import CStorage

// Realm's public mutation API (RealmSwift names and signatures). These are
// non-throwing, as in RealmSwift: outside a write transaction they stop the
// program; inside one, a failure (duplicate primary key, wrong value...) is
// recorded, the operation is skipped, and write {} / commitWrite() cancel the
// transaction and throw it as a Realm.Error.

extension Realm {
    /// What add/create do when an object with the same primary key exists.
    public enum UpdatePolicy: Int, Sendable {
        /// Fail with primaryKeyExists.
        case error = 1
        /// Overwrite every property of the existing object.
        case all = 2
        /// Overwrite only the properties whose values differ.
        case modified = 3
    }
}

typealias UpdatePolicy = Realm.UpdatePolicy

extension Realm {
    /// Runs `block` in a write transaction and commits it. An error thrown by
    /// the block, or by any operation inside it (duplicate primary key...),
    /// cancels the transaction and is rethrown. Blocks while another thread
    /// or process writes.
    ///
    /// Throws ``Realm/Error/Code/wrongTransactionState`` when already in a
    /// write transaction, ``Realm/Error/Code/readOnly`` for a read-only Realm,
    /// ``Realm/Error/Code/frozen`` for a frozen one, and
    /// ``Realm/Error/Code/incorrectThread`` outside the Realm's thread, queue
    /// or actor. Observers registered on other tokens are notified after the
    /// commit; those in `tokens` skip this one.
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [NotificationToken] = [], _ block: () throws -> Result) throws -> Result {
        try core.beginWriteTransaction()
        return try core.performWrite(deferFlush: false, withoutNotifying: tokens, block).result
    }

    /// Starts a write transaction; blocks while another writer holds the lock.
    /// End it with ``commitWrite(withoutNotifying:)`` or ``cancelWrite()`` on
    /// the same thread. Stops the program on a nested write, a read-only or
    /// frozen Realm, with the codes ``write(withoutNotifying:_:)`` throws
    /// (use `write {}` to get a thrown error).
    public func beginWrite() {
        orStop { try core.beginWriteTransaction() }
    }

    /// Commits the write transaction: durable when this returns, and visible
    /// to other Realms as they refresh. If an operation inside it failed, the
    /// transaction is cancelled instead and that error is thrown; outside a
    /// write transaction it throws ``Realm/Error/Code/wrongTransactionState``.
    /// Observers whose tokens are in `tokens` are not told of this commit.
    public func commitWrite(withoutNotifying tokens: [NotificationToken] = []) throws {
        try core.commitWriteTransaction(withoutNotifying: tokens)
    }

    /// Discards every change of the write transaction. Objects added in it
    /// become invalidated.
    public func cancelWrite() {
        core.verifyThread()
        core.cancelWriteTransaction()
    }

    /// Adds an unmanaged object (and the unmanaged objects it links to); from
    /// then on `object` is managed and reads and writes the Realm. Adding an
    /// object this Realm already manages does nothing.
    ///
    /// Must be called inside a write transaction on the Realm's thread
    /// (stops with ``Realm/Error/Code/wrongTransactionState`` otherwise).
    /// Failures are recorded and thrown by the transaction's commit: an
    /// existing primary key with `update: .error`
    /// (``Realm/Error/Code/primaryKeyExists``), an object managed by another
    /// Realm (``Realm/Error/Code/wrongRealm``), an ``EmbeddedObject`` on its
    /// own (``Realm/Error/Code/invalidValue``), a class outside `objectTypes`
    /// (``Realm/Error/Code/objectTypeNotInSchema``).
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        core.add(object, update: update)
    }

    /// Adds unmanaged objects (and the unmanaged objects they link to) in
    /// order, as ``add(_:update:)-(Object,_)`` does for each. Must be called
    /// inside a write transaction on this Realm's thread.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Iterator.Element: Object {
        core.add(objects, update: update)
    }

    /// Creates a managed object from a dictionary (property name -> value), an
    /// array (values in property order; properties past its end keep their
    /// defaults) or another object of the class, and returns it. With `update` other than `.error` and an existing primary
    /// key, only the properties present in `value` change.
    ///
    /// Must be called inside a write transaction
    /// (``Realm/Error/Code/wrongTransactionState``). A value of the wrong type
    /// records ``Realm/Error/Code/invalidValue``, an existing primary key with
    /// `update: .error` ``Realm/Error/Code/primaryKeyExists``; the commit
    /// throws them.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        core.create(type, value: value, update: update)
    }

    /// Deletes a managed object: links to it become nil, it leaves every List
    /// and MutableSet it was in, and the embedded objects it owns are deleted
    /// with it. The object (and every other accessor of it) becomes
    /// invalidated.
    ///
    /// Must be called inside a write transaction
    /// (``Realm/Error/Code/wrongTransactionState``) with an object this Realm
    /// manages (``Realm/Error/Code/wrongRealm``; an unmanaged object:
    /// ``Realm/Error/Code/invalidValue``; one already deleted:
    /// ``Realm/Error/Code/invalidatedObject``).
    public func delete(_ object: ObjectBase) { core.delete(object) }

    /// Deletes each object of `objects`, as ``delete(_:)-(ObjectBase)`` does.
    /// Safe to pass a live ``Results`` that shrinks as its objects go; all the
    /// objects of a class that has no links in or out are cleared at once. Must
    /// be called inside a write transaction.
    public func delete<S: Sequence>(_ objects: S) where S.Iterator.Element: ObjectBase { core.delete(objects) }

    /// Deletes every object of every class; the schema stays. Must be called
    /// inside a write transaction (``Realm/Error/Code/wrongTransactionState``).
    public func deleteAll() { core.deleteAll() }
}
