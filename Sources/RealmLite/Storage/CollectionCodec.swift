// Byte layout of List / MutableSet / Map fields (one var field of the owner's
// record):
//
//   [u32 count][u32 end offset x count][element bytes ...]
//
// Element i is bytes[end(i-1) ..< end(i)] of the payload: O(1) access for
// every element type. An element is the value's stored bytes (objects: the
// 8-byte little-endian object key; optionals: a tag byte 0/1 then the bytes).
// A Map entry is [u32 key length][UTF-8 key][value element], entries sorted
// by key bytes (binary search). An empty field is an empty collection.
//
// Mutations rebuild the field: O(n) per change; big collections move to the
// collections tree instead (ListTree.swift, SetMapTree.swift).

extension Array where Element == UInt8 {
    /// A copy of raw bytes in one memcpy (Array(raw) and append(contentsOf:)
    /// of a raw buffer go byte by byte).
    init(copying raw: UnsafeRawBufferPointer) {
        self.init()
        appendRaw(raw)
    }

    @inline(__always)
    mutating func appendRaw(_ raw: UnsafeRawBufferPointer) {
        guard let base = raw.baseAddress, raw.count > 0 else { return }
        append(contentsOf: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: raw.count))
    }
}

struct ElementArrayView {
    let bytes: UnsafeRawBufferPointer
    /// Keeps materialized bytes alive (a list read from the lists tree).
    var owner: AnyObject?

    init(bytes: UnsafeRawBufferPointer, owner: AnyObject? = nil) {
        self.bytes = bytes
        self.owner = owner
    }

    var count: Int { bytes.count < 4 ? 0 : Int(bytes.loadUnaligned(as: UInt32.self)) }

    @inline(__always)
    func element(_ index: Int) -> UnsafeRawBufferPointer {
        let n = count
        let payload = 4 + 4 * n
        let end = Int(bytes.loadUnaligned(fromByteOffset: 4 + 4 * index, as: UInt32.self))
        let start = index == 0 ? 0 : Int(bytes.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self))
        return UnsafeRawBufferPointer(rebasing: bytes[(payload + start)..<(payload + end)])
    }

    var elements: [[UInt8]] { (0..<count).map { [UInt8](copying: element($0)) } }
}

/// `view` with elements `range` replaced by `newElements`: offsets are
/// shifted arithmetically and the untouched payload copied in two blocks,
/// so an append or removal costs one copy of the field, not one allocation
/// per element.
func spliceElementArray(_ view: ElementArrayView, _ range: Range<Int>, _ newElements: [[UInt8]]) -> [UInt8] {
    let n = view.count
    let m = n - range.count + newElements.count
    let payloadStart = 4 + 4 * n
    func end(_ i: Int) -> Int { Int(view.bytes.loadUnaligned(fromByteOffset: 4 + 4 * i, as: UInt32.self)) }
    let payloadCount = n == 0 ? 0 : end(n - 1)
    let cutStart = range.lowerBound == 0 ? 0 : end(range.lowerBound - 1)
    let cutEnd = range.upperBound == 0 ? 0 : end(range.upperBound - 1)
    let inserted = newElements.reduce(0) { $0 + $1.count }
    let delta = inserted - (cutEnd - cutStart)
    let total = 4 + 4 * m + payloadCount + delta
    return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
        let out = UnsafeMutableRawPointer(buffer.baseAddress!)
        out.storeBytes(of: UInt32(m).littleEndian, as: UInt32.self)
        var at = 4
        func offset(_ value: Int) {
            (out + at).storeBytes(of: UInt32(value).littleEndian, as: UInt32.self)
            at += 4
        }
        for i in 0..<range.lowerBound { offset(end(i)) }
        var running = cutStart
        for element in newElements {
            running += element.count
            offset(running)
        }
        for i in range.upperBound..<n { offset(end(i) + delta) }
        func copy(_ from: UnsafeRawPointer?, _ count: Int) {
            if count > 0, let from { (out + at).copyMemory(from: from, byteCount: count) }
            at += count
        }
        let payload = view.bytes.baseAddress.map { $0 + payloadStart }
        copy(payload, cutStart)
        for element in newElements { element.withUnsafeBytes { copy($0.baseAddress, $0.count) } }
        copy(payload.map { $0 + cutEnd }, payloadCount - cutEnd)
        initialized = at
    }
}

func encodeElementArray(_ elements: [[UInt8]]) -> [UInt8] {
    spliceElementArray(ElementArrayView(bytes: UnsafeRawBufferPointer(start: nil, count: 0)), 0..<0, elements)
}

@inline(__always)
func appendU32(_ value: UInt32, to out: inout [UInt8]) {
    var le = value.littleEndian
    withUnsafeBytes(of: &le) { out.append(contentsOf: $0) }
}

/// Map entries: split into key bytes and value element bytes.
struct MapEntry {
    var key: [UInt8]
    var value: [UInt8]

    init(key: [UInt8], value: [UInt8]) {
        self.key = key
        self.value = value
    }

    init(_ raw: UnsafeRawBufferPointer) {
        let length = Int(raw.loadUnaligned(as: UInt32.self))
        key = [UInt8](copying: UnsafeRawBufferPointer(rebasing: raw[4..<(4 + length)]))
        value = [UInt8](copying: UnsafeRawBufferPointer(rebasing: raw[(4 + length)...]))
    }

    var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4 + key.count + value.count)
        appendU32(UInt32(key.count), to: &out)
        out += key
        out += value
        return out
    }

    /// Key and value of a raw entry without copying.
    static func split(_ raw: UnsafeRawBufferPointer) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        let length = Int(raw.loadUnaligned(as: UInt32.self))
        return (UnsafeRawBufferPointer(rebasing: raw[4..<(4 + length)]), UnsafeRawBufferPointer(rebasing: raw[(4 + length)...]))
    }
}

/// Binary search of a map field: the entry index for key, or the insertion point.
func mapSearch(_ view: ElementArrayView, _ key: UnsafeRawBufferPointer) -> (index: Int, found: Bool) {
    var low = 0, high = view.count
    while low < high {
        let mid = (low + high) / 2
        let entryKey = MapEntry.split(view.element(mid)).key
        let order = compareBytes(entryKey, key)
        if order == 0 { return (mid, true) }
        if order < 0 { low = mid + 1 } else { high = mid }
    }
    // A map read out of the collections tree orders keys longer than
    // EntryKey.directLength by a hash after that prefix: look at each.
    if key.count > EntryKey.directLength,
       let index = (0..<view.count).first(where: { MapEntry.split(view.element($0)).key.elementsEqual(key) }) {
        return (index, true)
    }
    return (low, false)
}

func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let n = min(a.count, b.count)
    for i in 0..<n where a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
    return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
}

// MARK: - Links inside fields

/// The object key an element of a link collection refers to (nil for a nil
/// map value).
func linkTarget(ofElement element: UnsafeRawBufferPointer, _ collection: _CollectionKind) -> UInt64? {
    switch collection {
    case .none, .list, .set:
        return UInt64(littleEndian: element.loadUnaligned(as: UInt64.self))
    case .map:
        let value = MapEntry.split(element).value
        guard value.first == 1 else { return nil }
        return UInt64(littleEndian: value.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
    }
}

/// Object keys referenced by a link column's field (with multiplicity).
func linkTargets(_ column: Column, isNull: Bool, _ field: UnsafeRawBufferPointer) -> [UInt64] {
    switch column.collection {
    case .none:
        return isNull ? [] : [UInt64(littleEndian: field.loadUnaligned(as: UInt64.self))]
    case .list, .set:
        let view = ElementArrayView(bytes: field)
        return (0..<view.count).map { UInt64(littleEndian: view.element($0).loadUnaligned(as: UInt64.self)) }
    case .map:
        let view = ElementArrayView(bytes: field)
        return (0..<view.count).compactMap { i in
            let value = MapEntry.split(view.element(i)).value
            guard value.first == 1 else { return nil }
            return UInt64(littleEndian: value.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
        }
    }
}

/// The field with every link to `target` removed (lists/sets) or nulled
/// (to-one links, map values).
func removingLinks(to target: UInt64, _ column: Column, isNull: Bool, _ field: UnsafeRawBufferPointer) -> (isNull: Bool, bytes: [UInt8]) {
    switch column.collection {
    case .none:
        return (true, [])
    case .list, .set:
        let view = ElementArrayView(bytes: field)
        let kept = (0..<view.count).compactMap { i -> [UInt8]? in
            let element = view.element(i)
            return UInt64(littleEndian: element.loadUnaligned(as: UInt64.self)) == target ? nil : [UInt8](copying: element)
        }
        return (false, encodeElementArray(kept))
    case .map:
        let view = ElementArrayView(bytes: field)
        let entries = (0..<view.count).map { i -> [UInt8] in
            var entry = MapEntry(view.element(i))
            if entry.value.first == 1,
               entry.value.withUnsafeBytes({ UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 1, as: UInt64.self)) }) == target {
                entry.value = [0]
            }
            return entry.encoded
        }
        return (false, encodeElementArray(entries))
    }
}
