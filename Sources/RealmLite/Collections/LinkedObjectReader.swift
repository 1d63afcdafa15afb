import CStorage

/// Reads the objects that an iterated list's links point to
/// (ListTreeWalker.swift). A cursor stays on the target class's object
/// tree: when the next link is after the last key read and the links have
/// been following the keys (a list appended in key order, gaps allowed),
/// it reads the rest of the cursor's leaf ahead (cs_cursor_next_batch) and
/// the next links are found among those rows; otherwise it seeks. A read ahead that
/// misses stops reading ahead (links in random order) until a link is again
/// the last key + 1. And, as ResultsIterator does, one accessor is repointed
/// while the caller does not keep it (ReusableAccessor).
///
/// The rows are valid while the core's generation is the one they were
/// read at (the walker calls forget() when it moved); the cursor is the
/// core's shared one, taken again after anything else took one
/// (dropCursor()).
struct LinkedObjectReader {
    private let type: ObjectBase.Type?
    /// Read unretained per object (no reference counting), as
    /// ResultsIterator reads its ClassInfo; held strongly here.
    private var info: ClassInfo? { didSet { infoRef = info.map { .passUnretained($0) } } }
    private var infoRef: Unmanaged<ClassInfo>?
    private var cursor: EngineCursor?
    /// The key the cursor is on; nil when it is not on a known key.
    private var lastKey: UInt64?
    private var stepping = true
    /// Rows read ahead: keys and records, owned by `rows`. The ones from
    /// `rowPosition` follow the last link found; the cursor is on the last.
    private var rows: RowBatch?
    private var rowKeys: UnsafeMutablePointer<UInt64>?
    private var rowValues: UnsafeMutablePointer<cs_val>?
    private var rowCount = 0
    private var rowPosition = 0
    private var accessor = ReusableAccessor()
    /// How many links were sought from the tree's root (tests).
    private(set) var seeks = 0

    /// `type`: the model class of the targets (nil: a reader never used).
    init(_ type: ObjectBase.Type?) { self.type = type }

    /// The rows and the cursor's position are no longer the snapshot's.
    mutating func forget() {
        rowCount = 0
        rowPosition = 0
        dropCursor()
    }

    /// Something else took a cursor: this one is taken again when needed
    /// (the rows read stay valid).
    mutating func dropCursor() {
        cursor = nil
        lastKey = nil
    }

    /// The object of `key` if it is among the rows read ahead: the next
    /// one, or one further on (links in key order with gaps); nil otherwise.
    @inline(__always)
    mutating func fromRows(_ key: UInt64, _ realm: RealmCore) -> ObjectBase? {
        guard rowPosition < rowCount, let keys = rowKeys, let values = rowValues else { return nil }
        var i = rowPosition
        if _slowPath(keys[i] != key) {
            guard key > keys[i], key <= keys[rowCount - 1] else { return nil }
            repeat { i += 1 } while keys[i] < key
            guard keys[i] == key else { return nil }
        }
        rowPosition = i + 1
        return yield(realm, key, values[i])
    }

    /// The object link `key` points to, read through the cursor (taken
    /// again if dropped: then `claims` becomes the core's count after it);
    /// a link to no object stops as reading a deleted object does, as the
    /// general decode does.
    mutating func load(_ key: UInt64, _ realm: RealmCore, claims: inout UInt64) -> ObjectBase {
        guard let type else { realmFatal(.invalidValue, "A link was read without its class.") }
        let info = self.info ?? realm.classInfoOrStop(type)
        self.info = info
        if cursor == nil {
            cursor = realm.cursor(info.objectsTree)
            claims = realm.cursorClaims
            lastKey = nil
        }
        guard let cursor else { realmFatal(.invalidated(type.className())) }
        if let last = lastKey, key > last, stepping || key == last &+ 1 {
            // A leaf may end before the link: then the next one is read too.
            for _ in 0..<2 {
                guard readAhead(cursor) else { break }
                if let object = fromRows(key, realm) {
                    stepping = true
                    return object
                }
                if let last = lastKey, key <= last { break }
            }
            stepping = false
        }
        rowCount = 0
        rowPosition = 0
        seeks += 1
        guard let entry = withKey(key, { cursor.seekExact($0) }) else {
            lastKey = nil
            realmFatal(.invalidated(type.className()))
        }
        lastKey = key
        return yield(realm, key, entry.value)
    }

    /// Reads the rows after the cursor's, to the end of its leaf; false at
    /// the end of the tree.
    private mutating func readAhead(_ cursor: EngineCursor) -> Bool {
        if rows == nil {
            let batch = RowBatch()
            rows = batch
            rowKeys = batch.objectKeys
            rowValues = batch.values
        }
        let rows = self.rows.unsafelyUnwrapped
        let count = cursor.nextIDs(rows.objectKeys, values: rows.values, capacity: RowBatch.capacity)
        guard count > 0 else { return false }
        rowCount = count
        rowPosition = 0
        lastKey = rows.objectKeys[count - 1]
        return true
    }

    @inline(__always)
    private mutating func yield(_ realm: RealmCore, _ key: UInt64, _ record: cs_val) -> ObjectBase {
        infoRef.unsafelyUnwrapped._withUnsafeGuaranteedRef { accessor.object(realm, $0, key: key, record: record) }
    }
}
