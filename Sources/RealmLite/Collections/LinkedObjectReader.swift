import CStorage

/// Reads the objects that an iterated collection's links point to. A cursor
/// stays on the target class's object tree: when the next link is the key
/// after the last one (links appended in key order) it steps there instead
/// of descending from the root; otherwise it seeks. And, as ResultsIterator
/// does, one accessor is repointed while the caller does not keep it.
///
/// The cursor is this core's shared one: the owner re-claims it (claim())
/// whenever `cursorClaims` or the generation moved, as for its own cursor.
struct LinkedObjectReader {
    private let type: ObjectBase.Type
    private var info: ClassInfo?
    private var cursor: EngineCursor?
    /// The key the cursor is on; nil when it is not on a known key.
    private var lastKey: UInt64?
    private var stepping = true
    private var reusable: ObjectBase?

    /// nil unless `Element` is a model class read as itself (a
    /// DynamicObject needs the column's class, decoded elsewhere).
    init?<Element>(_: Element.Type) {
        guard let type = Element.self as? ObjectBase.Type, !(type is DynamicObject.Type) else { return nil }
        self.type = type
    }

    /// Takes this core's cursor on the target class's tree. The caller
    /// records `cursorClaims` after this (the claim bumps it).
    mutating func claim(_ realm: RealmCore) {
        let info = self.info ?? realm.classInfoOrStop(type)
        self.info = info
        cursor = realm.cursor(info.objectsTree)
        lastKey = nil
    }

    /// The object link `bytes` (an element) points to; a link to no object
    /// stops as reading a deleted object does, as the general decode does.
    /// Call claim() first, and again after anything else took a cursor.
    mutating func object(_ bytes: UnsafeRawBufferPointer, _ realm: RealmCore) -> ObjectBase {
        let key = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        guard let info, let cursor else { realmFatal(.invalidValue, "A link was read before its class's objects.") }
        var record: cs_val?
        // A step that missed stops the stepping (links in random order)
        // until a link is again the last key + 1.
        if let last = lastKey, key > last, stepping || key == last &+ 1, let entry = cursor.next() {
            let found = keyValue(entry.key)
            lastKey = found
            stepping = found == key
            if stepping { record = entry.value }
        }
        if record == nil {
            let entry = withKey(key) { cursor.seekExact($0) }
            lastKey = entry == nil ? nil : key
            guard let entry else { realmFatal(.invalidated(type.className())) }
            record = entry.value
        }
        let value = record.unsafelyUnwrapped
        if isKnownUniquelyReferenced(&reusable), let object = reusable {
            realm.reuse(object, info, key: key, record: value)
            return object
        }
        let object = realm.materialize(info, key: key, record: value)
        reusable = object
        return object
    }
}
