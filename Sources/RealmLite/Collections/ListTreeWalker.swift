import CStorage

/// What a ListIterator does that does not depend on its element type,
/// compiled once here. For a list in the lists tree (ListTree.swift) it
/// reads the elements a leaf at a time (cs_cursor_next_batch) with the
/// Realm's cursor on that tree, and, for a list of objects, the targets
/// with LinkedObjectReader.
///
/// What it holds is checked only when it could have changed:
/// - the owner's marker (count, id, encoding) and the rows read ahead are
///   the current snapshot's while the core's generation, which every write
///   and every new snapshot bumps, is the one they were read at; when it
///   moved, the marker is read again (a list that shrank ends the
///   iteration early, one that left the tree is read from the record) and
///   the cursor re-seeks element `index` by rank;
/// - the cursors are the Realm's shared ones: when `cursorClaims` moved
///   (the loop's body took a cursor), they are taken again and the list's
///   re-seeks by rank, but rows already read stay valid.
@usableFromInline
struct ListTreeWalker {
    /// The position of the next element.
    @usableFromInline var index = 0
    /// Where iteration stops: the count when it started, lowered when the
    /// list shrinks under it.
    @usableFromInline var end: Int
    /// True while the list is in the lists tree and read here.
    @usableFromInline private(set) var inTree: Bool
    /// True while the elements are objects that `targets` reads.
    @usableFromInline private(set) var readsObjects: Bool
    /// The managing core (nil for an unmanaged list).
    let realm: RealmCore?

    private let field: CollectionField?
    // Used without reference counting per element; `realm` keeps it alive.
    private let realmRef: Unmanaged<RealmCore>?
    private var marker: SpilledList?
    /// The core's generation `marker` and the rows were read at.
    private var generation: UInt64 = 0
    /// `cursorClaims` after this walker's last cursor claim.
    private var claims: UInt64 = 0
    /// The cursor on the lists tree, on the element before `index` plus
    /// the rows not yet returned; nil when it must seek.
    private var cursor: EngineCursor?
    /// Element rows read ahead (owned by `rows`; pointers into the snapshot).
    private var rows: RowBatch?
    private var values: UnsafeMutablePointer<cs_val>?
    private var rowCount = 0
    private var rowPosition = 0
    /// Where Int elements stored as varints are decoded.
    private var scratch: ElementScratch?
    private var targets: LinkedObjectReader
    /// How many times the list's cursor sought an element by rank (tests).
    private(set) var listSeeks = 0
    /// How many times a target was sought by key (tests).
    var targetSeeks: Int { targets.seeks }

    init(unmanagedCount: Int) {
        end = unmanagedCount
        inTree = false
        readsObjects = false
        realm = nil
        field = nil
        realmRef = nil
        targets = LinkedObjectReader(nil)
    }

    /// `targets`: the model class of the elements when they are read as objects.
    init(field: CollectionField, targets: ObjectBase.Type?) {
        let realm = field.realm
        self.realm = realm
        self.field = field
        realmRef = .passUnretained(realm)
        generation = realm.generation
        marker = field.spilledList
        end = marker?.count ?? field.view.count
        inTree = marker != nil
        readsObjects = inTree && targets != nil
        self.targets = LinkedObjectReader(targets)
    }

    /// The next object of a list of objects; nil at the end, or once the
    /// list left the tree (`readsObjects` is then false).
    @usableFromInline
    mutating func nextObject() -> ObjectBase? {
        guard index < end, let realmRef else { return nil }
        return realmRef._withUnsafeGuaranteedRef { realm in
            guard let link = nextStored(realm) else { return nil }
            let key = UInt64(littleEndian: UnsafeRawPointer(link.data!).loadUnaligned(as: UInt64.self))
            if let object = targets.fromRows(key, realm) { return object }
            dropCursorsIfClaimed(realm)
            return targets.load(key, realm, claims: &claims)
        }
    }

    /// The next element as its field holds it (Int varints decoded into a
    /// scratch this walker owns: valid until the next call); nil at the
    /// end, or once the list left the tree (`inTree` is then false).
    mutating func nextElementBytes() -> UnsafeRawBufferPointer? {
        guard index < end, let realmRef else { return nil }
        return realmRef._withUnsafeGuaranteedRef { realm in
            guard let stored = nextStored(realm), let encoding = marker?.encoding else { return nil }
            if encoding.isPlain { return bytes(of: stored) }
            if scratch == nil { scratch = ElementScratch() }
            return encoding.fieldBytes(bytes(of: stored), scratch: scratch.unsafelyUnwrapped.bytes)
        }
    }

    /// The stored bytes of element `index` (then the next one's position);
    /// nil at the end, or once the list left the tree.
    @inline(__always)
    private mutating func nextStored(_ realm: RealmCore) -> cs_val? {
        realm.verifyThread()
        if _fastPath(rowPosition < rowCount), realm.generation == generation, let values {
            let value = values[rowPosition]
            rowPosition += 1
            index += 1
            return value
        }
        return readAhead(realm)
    }

    /// nextStored() when no row read ahead is usable: after a write, a new
    /// snapshot or another cursor claim, or at a leaf's end.
    private mutating func readAhead(_ realm: RealmCore) -> cs_val? {
        if realm.generation != generation {
            rowCount = 0
            rowPosition = 0
            cursor = nil
            targets.forget()
            guard let current = field?.spilledList else {
                inTree = false
                readsObjects = false
                return nil
            }
            marker = current
            generation = realm.generation
        }
        guard let marker else { return nil }
        if index >= marker.count {
            end = index
            return nil
        }
        dropCursorsIfClaimed(realm)
        if let cursor {
            if rows == nil {
                let batch = RowBatch()
                rows = batch
                values = batch.values
            }
            // The list's entries are ranks base..<base + count: a batch of
            // at most the rest of them never reads another list's.
            let count = cursor.nextBatch(keys: nil, values: values.unsafelyUnwrapped,
                                         capacity: min(RowBatch.capacity, marker.count - index))
            guard count > 0 else { realmFatal(.invalidValue, "A list's elements are missing from the file.") }
            rowCount = count
            rowPosition = 1
            index += 1
            return values.unsafelyUnwrapped[0]
        }
        guard let fresh = realm.cursor(realm.listsTree()) else { realmFatal(.invalidValue, "A list's elements are missing from the file.") }
        let stored = realm.storedListElement(marker, index, positioning: fresh)
        listSeeks += 1
        cursor = fresh
        claims = realm.cursorClaims
        rowCount = 0
        rowPosition = 0
        index += 1
        return cs_val(data: stored.baseAddress, size: stored.count)
    }

    /// Forgets both cursors if anything else took a cursor since this
    /// walker did (each is taken again when next needed).
    private mutating func dropCursorsIfClaimed(_ realm: RealmCore) {
        guard realm.cursorClaims != claims else { return }
        cursor = nil
        targets.dropCursor()
    }
}
