import Dispatch

// Object, EmbeddedObject and their shared base. An unmanaged object is a
// plain Swift object whose @Persisted properties hold their values. Once
// managed, it is an accessor: a Realm, a class, a row key, and a cached
// pointer to its record in the Realm's current snapshot.

/// Base class of Object and EmbeddedObject (RealmSwift's ObjectBase).
open class ObjectBase: CustomStringConvertible, Hashable {
    // Managed state. Set by Realm; nil/0 while unmanaged.
    @usableFromInline @exclusivity(unchecked) final var _realm: RealmCore?
    /// Not reference counted (one retain/release pair less per object
    /// read): a ClassInfo lives as long as its file's SharedEnv
    /// (retiredClasses), which `_realm` keeps alive.
    unowned(unsafe) final var _info: ClassInfo?
    @usableFromInline @exclusivity(unchecked) final var _key: UInt64 = 0
    // Copies of what property reads need, reachable without reference
    // counting: the core's HotState and the class's slots (owned by the
    // core, which `_realm` holds, and by the ClassInfo, which its env keeps).
    @usableFromInline @exclusivity(unchecked) final var _hot: UnsafeMutablePointer<HotState>?
    @usableFromInline @exclusivity(unchecked) final var _slots: UnsafeMutablePointer<ColumnSlot>?
    @usableFromInline @exclusivity(unchecked) final var _layout = RecordLayout(columnCount: 0, headerSize: 0, nullBytes: 0, fixedSize: 0, varCount: 0, compactOffsets: false)
    /// The record, valid while `_recordGeneration == _realm.generation`.
    @usableFromInline @exclusivity(unchecked) final var _record: UnsafeRawPointer?
    @usableFromInline @exclusivity(unchecked) final var _recordSize = 0
    @usableFromInline @exclusivity(unchecked) final var _recordGeneration: UInt64 = 0
    /// The record's packed-integer width code (RecordLayout.intCode(of:)),
    /// set with `_record`: integer getters skip its byte load and shift.
    @usableFromInline @exclusivity(unchecked) final var _intCode = 0
    /// Set when this accessor's row was deleted (through it, or found so).
    final var _deleted = false
    /// Keyed classes: when this accessor was made (RealmCore.accessorStamp).
    final var _born = Incarnation.never
    /// The core's `invalidations` when this accessor was made: one made
    /// before `realm.invalidate()` stays invalidated.
    final var _invalidations: UInt64 = 0

    /// An unmanaged object whose properties hold their declared defaults.
    /// Subclasses override it (`required`) through ``Object/init()`` or
    /// ``EmbeddedObject/init()``.
    public required init() {}

    /// The Realm managing this object, or nil while unmanaged.
    public var realm: Realm? { _realm.map(Realm.init(core:)) }

    /// True once the object was deleted, or its write transaction cancelled.
    public var isInvalidated: Bool {
        guard let realm = _realm, let info = _info else { return false }
        if _deleted || _invalidations != realm.invalidations { return true }
        if _recordGeneration == realm.generation, _record != nil { return false }
        return realm.loadRecord(info, _key) == nil || !realm.isSameIncarnation(self, info)
    }

    /// The schema of this object's class.
    public var objectSchema: ObjectSchema {
        (_info?.descriptor ?? (try? SchemaDiscovery.descriptor(for: type(of: self))))?.publicSchema
            ?? ObjectSchema(className: Self.className(), properties: [], isEmbedded: self is EmbeddedObject)
    }

    /// The class name used in the schema: `_realmObjectName()` if a class
    /// gives one, else the Swift class name.
    open class func className() -> String { _realmObjectName() ?? swiftClassName(self) }

    /// RealmSwift's way to store a class under another name (e.g. two
    /// versions of a model in one program, as migration tests need).
    open class func _realmObjectName() -> String? { nil }

    /// RealmSwift's way to leave a class out of the default schema: a Realm
    /// opened without `objectTypes` does not register it at open (it still
    /// can be listed in `objectTypes`, or registered on first use).
    open class func _realmIgnoreClass() -> Bool { false }

    /// False leaves the class out of the default schema (a Realm opened with
    /// `objectTypes` nil), as in RealmSwift; it can still be listed in
    /// `objectTypes`. Defaults to the opposite of `_realmIgnoreClass()`.
    open class func shouldIncludeInDefaultSchema() -> Bool { !_realmIgnoreClass() }

    /// True for EmbeddedObject subclasses (RealmSwift's `isEmbedded()`).
    public class func isEmbedded() -> Bool { self is EmbeddedObject.Type }

    /// True if both are the same managed row (or the same unmanaged instance).
    public func isSameObject(as object: ObjectBase?) -> Bool {
        guard let object else { return false }
        if self === object { return true }
        guard let realm = _realm, let other = object._realm else { return false }
        // By class name too: a DynamicObject and a typed object of one row are the same object.
        return realm === other && _key == object._key && (_info === object._info || _info?.name == object._info?.name)
    }

    /// True if both are the same managed object (same Realm instance, class and
    /// row: two accessors read at different times compare equal), or the same
    /// unmanaged instance. Property values are not compared. Same as
    /// ``isSameObject(as:)``.
    public static func == (lhs: ObjectBase, rhs: ObjectBase) -> Bool { lhs.isSameObject(as: rhs) }

    /// Hashes the identity that ``==(_:_:)`` compares (the row for a
    /// managed object, the instance for an unmanaged one), so managed objects
    /// can be put in sets and dictionary keys; the hash of an object changes
    /// when it is added to a Realm.
    public func hash(into hasher: inout Hasher) {
        if _realm != nil {
            hasher.combine(_key) // not the class: a DynamicObject equals its typed object
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }

    open var description: String {
        if _realm != nil && isInvalidated { return "[invalid object]" }
        guard let descriptor = _info?.descriptor ?? (try? SchemaDiscovery.descriptor(for: type(of: self))) else {
            return "\(Self.className()) {}"
        }
        var text = "\(descriptor.name) {\n"
        for property in descriptor.properties {
            text += "\t\(property.name) = \(describeValue(property.accessor.value(of: self)));\n"
        }
        return text + "}"
    }

    // MARK: Managed access (internal)

    /// The managing Realm; stops with a clear message if there is none.
    final var _managingRealm: RealmCore {
        guard let realm = _realm else {
            realmFatal(.invalidatedObject, "Object of type '\(Self.className())' is not managed by a Realm.")
        }
        realm.verifyThread()
        return realm
    }

    /// Makes this object the accessor of row `key` of `info` in `core`.
    final func _attach(to core: RealmCore, _ info: ClassInfo, key: UInt64) {
        _realm = core
        _hot = core.hot
        _info = info
        _slots = info.slots
        _layout = info.layout
        _key = key
        _invalidations = core.invalidations
        if info.keyedByPrimaryKey { _born = core.accessorStamp() }
    }

    /// The record in the Realm's current snapshot (cached per generation),
    /// after checking the caller's thread. No reference counting on the
    /// fast path.
    @inlinable @inline(__always)
    final func _currentRecord() -> RecordView {
        let hot = _hot.unsafelyUnwrapped
        if _slowPath(!hot.pointee.isCurrentThreadOrFrozen) { _realm.unsafelyUnwrapped.verifyThreadSlow() }
        if _recordGeneration == hot.pointee.generation, let record = _record {
            return RecordView(base: record, size: _recordSize)
        }
        return _reloadRecord()
    }

    @usableFromInline @inline(never)
    final func _reloadRecord() -> RecordView {
        guard let realm = _realm, let info = _info, !_deleted, _invalidations == realm.invalidations,
              let value = realm.loadRecord(info, _key), realm.isSameIncarnation(self, info) else {
            realmFatal(.invalidated(Self.className()))
        }
        _record = UnsafeRawPointer(value.data)
        _recordSize = value.size
        _recordGeneration = realm.generation
        _intCode = info.layout.intCode(of: _record!)
        return RecordView(base: _record!, size: _recordSize)
    }
}

func describeValue(_ value: Any) -> String {
    if isNil(value) { return "nil" }
    if let object = value as? ObjectBase { return "\(type(of: object).className())(\(object._key))" }
    if let string = value as? String { return "\"\(string)\"" }
    return "\(value)"
}

/// A top-level Realm object. Subclass it and declare @Persisted properties.
open class Object: ObjectBase {
    /// A new unmanaged object with each property at its declared default. Add
    /// it to a Realm with ``Realm/add(_:update:)-(Object,_)``; until then it is
    /// a plain Swift object usable on any thread.
    public required init() { super.init() }

    /// An unmanaged object from a dictionary (property name -> value), an
    /// array (values in property order; properties past its end keep their
    /// defaults) or another object of the class. Stops with a message naming the property on a wrong value.
    public convenience init(value: Any) {
        self.init()
        assignInitialValues(value)
    }
}

/// An object owned by exactly one parent object: no primary key, deleted
/// with its parent, never added to a Realm on its own.
open class EmbeddedObject: ObjectBase {
    /// A new unmanaged embedded object with each property at its declared
    /// default. It becomes managed when assigned to a managed object's property
    /// or appended to one of its Lists, inside a write transaction.
    public required init() { super.init() }

    /// An unmanaged embedded object from a dictionary (property name -> value),
    /// an array (values in property order; properties past its end keep their
    /// defaults) or another object of the class, as ``Object/init(value:)``
    /// does. Stops with a message naming the property
    /// on a wrong value (``Realm/Error/Code/invalidValue``).
    public convenience init(value: Any) {
        self.init()
        assignInitialValues(value)
    }
}

extension ObjectBase {
    func assignInitialValues(_ value: Any) {
        orStop(otherwise: .invalidValue) { _ = try assignProperties(of: self, SchemaDiscovery.descriptor(for: type(of: self)), from: value, realm: nil) }
    }
}

extension ThreadConfined where Self: Object {
    /// Calls `block` after each commit that changes this object (with the
    /// changed properties, old and new values), and once with `.deleted`.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        if let queue { return RealmLite.observe(self, on: queue) { $0.observe(keyPaths: keyPaths, block) } }
        return _observe(self, keyPaths: keyPaths, block)
    }
}

extension ObjectBase {
    /// True if this object was read through a frozen Realm.
    public var isFrozen: Bool { _realm?.isFrozen ?? false }

    /// The frozen object of the current version (self if already frozen).
    func _freeze() -> Self {
        let realm = _managingRealmForFreeze("freeze")
        if realm.isFrozen { return self }
        let frozen = orStop { try realm.freeze() }
        guard let object = frozen.counterpart(of: self) else { realmFatal(.invalidated(Self.className())) }
        return object
    }

    /// The live object on the calling thread's Realm; nil if it was deleted.
    func _thaw() -> Self? {
        let realm = _managingRealmForFreeze("thaw")
        guard realm.isFrozen else { return self }
        let live = orStop { try RealmCore.live(for: realm.configuration, atLeast: realm.version) }
        return live.counterpart(of: self)
    }

    private func _managingRealmForFreeze(_ verb: String) -> RealmCore {
        guard let realm = _realm else {
            realmFatal(.invalidValue, "Cannot \(verb) an unmanaged object of type '\(Self.className())': add it to a Realm first.")
        }
        return realm
    }
}

extension Object {
    /// An immutable snapshot of this object at the Realm's current version,
    /// readable from any thread. Stops for an unmanaged or deleted object.
    public func freeze() -> Self { _freeze() }

    /// The live object in the calling thread's Realm, nil if deleted since.
    public func thaw() -> Self? { _thaw() }
}

extension EmbeddedObject {
    /// An immutable snapshot of this embedded object at its Realm's current
    /// version, readable from any thread. Stops for an unmanaged or deleted
    /// object.
    public func freeze() -> Self { _freeze() }
    /// The live embedded object in the calling thread's Realm, nil if it (or
    /// its parent) was deleted since.
    public func thaw() -> Self? { _thaw() }
}
