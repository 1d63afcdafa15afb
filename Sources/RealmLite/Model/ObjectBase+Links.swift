// To-one links (`@Persisted var owner: Person?`) and objects as collection
// elements. A link is the target's 8-byte object key (little-endian) in a
// fixed slot or collection element; the backlink trees index the reverse.

@inline(__always)
func withLinkBytes<R>(_ key: UInt64, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    var le = key.littleEndian
    return withUnsafeBytes(of: &le, body)
}

extension ObjectBase: _RealmOptionalWrapped, RealmCollectionValue {
    public class var _rlmShape: _PropertyShape { _PropertyShape(type: .object, objectType: self) }

    /// Accepts an instance, a DynamicObject of the class, or a
    /// dictionary/array describing a new one.
    public static func _rlmConvert(_ value: Any, _ realm: RealmCore?) throws -> Self? {
        if let object = value as? Self { return object }
        if let dynamic = value as? DynamicObject, dynamic._className == className() {
            // The same object as this type, if it is in `realm`; else a copy.
            if let realm, dynamic._realm === realm, let typed = realm.object(try realm.classInfo(for: self), key: dynamic._key) as? Self {
                return typed
            }
        } else if !(value is [String: Any] || value is [Any]) {
            return nil
        }
        let object = self.init()
        _ = try assignProperties(of: object, SchemaDiscovery.descriptor(for: self), from: value, realm: realm)
        return object
    }

    public static func _rlmGetOptional(_ object: ObjectBase, _ column: Int) -> Self? {
        let record = object._currentRecord()
        let info = object._info.unsafelyUnwrapped
        let slot = info.slots[column]
        if record.isNull(slot) { return nil }
        let key = UInt64(littleEndian: record.fixed(slot).loadUnaligned(as: UInt64.self))
        guard let target = info.columns[column].target,
              let linked = object._managingRealm.object(target, key: key) else { return nil }
        return unsafeDowncast(linked, to: self)
    }

    public static func _rlmSetOptional(_ object: ObjectBase, _ column: Int, _ value: ObjectBase?) {
        let realm = object._managingRealm
        let info = object._info.unsafelyUnwrapped
        realm.requireWrite("modify property '\(info.name).\(info.columns[column].name)'")
        guard let value else {
            realm.updateColumn(object, column, isNull: true, UnsafeRawBufferPointer(start: nil, count: 0))
            return
        }
        let linkColumn = info.columns[column]
        guard let key = realm.linkKey(for: value, target: linkColumn.target, owner: (linkColumn, object._key)) else { return }
        withLinkBytes(key) { realm.updateColumn(object, column, isNull: false, $0) }
    }

    public static func _rlmEncodeOptional(_ value: ObjectBase?, _ column: Int, _ writer: inout _RecordWriter) throws {
        guard let value, let key = writer.realm.linkKey(for: value, target: writer.info.columns[column].target) else {
            writer.write(column, isNull: true, UnsafeRawBufferPointer(start: nil, count: 0))
            return
        }
        withLinkBytes(key) { writer.write(column, isNull: false, $0) }
    }

    public static func _rlmIndexKeyOptional(_ value: ObjectBase?) -> [UInt8]? { nil }

    public static func _rlmDecodeElement(_ bytes: UnsafeRawBufferPointer, _ realm: RealmCore?) -> Self {
        guard let realm else { realmFatal(.invalidValue, "A stored link was read without its Realm.") }
        let key = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        guard let object = realm.object(realm.classInfoOrStop(self), key: key) else {
            realmFatal(.invalidated(className()))
        }
        return unsafeDowncast(object, to: self)
    }

    public static func _rlmEncodeElement(_ value: ObjectBase, _ out: inout [UInt8], _ realm: RealmCore) throws {
        let target = try (value as? DynamicObject)?.dynamicClassInfo ?? realm.classInfo(for: type(of: value))
        guard let key = realm.linkKey(for: value, target: target) else {
            throw realm.write?.error ?? Realm.Error(.invalidValue, "Cannot store object of type '\(target.name)'.")
        }
        withLinkBytes(key) { out.appendRaw($0) }
    }
}
