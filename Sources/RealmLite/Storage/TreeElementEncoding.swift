// Int elements (every width, optional or not) of Lists, MutableSets and Map
// values in the collections tree are stored as short variable-length
// numbers, not the 8 bytes LE their fields hold: a List<Int> element of
// small magnitude then costs about 5 bytes less of the file. Two forms,
// named by the collection's id (never converted, so a file is read as it
// was written):
//
//   ids                               Int elements
//   below compactIDBase (2^63)        the field's bytes (8 LE, optional: tag byte first)
//   compactIDBase..<orderedIDBase     zigzag varints, nil 0x80 (object format 8)
//   orderedIDBase (2^63 + 2^62) up    OrderedVarint.swift, nil 0x00 (object format 9)
//
// The ordered form sorts as the numbers, so a set's entries (keyed by their
// element) follow its values: one filled in increasing order grows at its
// tree's right edge, and iterates in numeric order. Lists and map values
// use it too (one form for every new collection; it is as short as the
// zigzag one within a byte and decodes without a loop). Both forms have one
// encoding per value, so set membership still compares stored bytes. Any
// reader of the tree sees the id in every key and can tell them apart.
// Everything above the tree sees the field's bytes: the helpers of
// ListTree.swift and SetMapTree.swift encode on the way in and decode on
// the way out.

/// How a tree collection's entries store its elements (or map values).
struct TreeElementEncoding: Equatable {
    enum Ints: Equatable { case required, optional }
    /// Which varint: by the collection's id.
    enum Form: Equatable { case zigzag, ordered }

    /// Int elements as varints (nil: the field's bytes).
    var ints: Ints?
    var form = Form.ordered
    /// Map entries: the value after the entry's key is encoded.
    var isMap = false

    static let plain = TreeElementEncoding(ints: nil)

    init(ints: Ints?, form: Form = .ordered, isMap: Bool = false) {
        self.ints = ints
        self.form = form
        self.isMap = isMap
    }

    /// What a collection of this type stores when its id is a new one (from orderedIDBase).
    init(type: PropertyType, optional: Bool, collection: _CollectionKind) {
        ints = type == .int && collection != .none ? (optional ? .optional : .required) : nil
        isMap = collection == .map
    }

    init(_ column: Column) {
        self = column.treeElements
    }

    init(_ property: StoredProperty) {
        self.init(type: property.type, optional: property.optional, collection: property.collection)
    }

    /// This encoding for the collection `id` names: the field's bytes for
    /// ids older than compact ones, zigzag varints for those before ordered ones.
    func forID(_ id: UInt64) -> TreeElementEncoding {
        guard ints != nil, id < ListTree.orderedIDBase else { return self }
        guard id >= ListTree.compactIDBase else { return .plain }
        var zigzag = self
        zigzag.form = .zigzag
        return zigzag
    }

    var isPlain: Bool { ints == nil }

    static let zigzagNilByte: UInt8 = 0x80
    /// The stored form of an optional's nil.
    var nilByte: UInt8 { form == .ordered ? OrderedVarint.nilByte : Self.zigzagNilByte }

    /// Writes `value` in this form at the start of `out` (10 bytes of room); returns its length.
    @inline(__always)
    private func store(_ value: Int64, into out: UnsafeMutableRawBufferPointer) -> Int {
        form == .ordered ? OrderedVarint.store(value, into: out) : ZigzagVarint.store(value, into: out)
    }

    /// The stored form of element (or map entry) bytes as a field holds them.
    func stored(_ element: UnsafeRawBufferPointer) -> [UInt8] {
        guard let ints else { return Array(element) }
        var out: [UInt8] = []
        out.reserveCapacity(isMap ? element.count + 2 : 10)
        var value = element
        if isMap {
            let split = MapEntry.split(element)
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: element[..<(element.count - split.value.count)]))
            value = split.value
        }
        if ints == .optional {
            guard value.first == 1, value.count == 9 else {
                out.append(nilByte)
                return out
            }
            value = UnsafeRawBufferPointer(rebasing: value[1...])
        }
        let number = Int64(littleEndian: value.loadUnaligned(as: Int64.self))
        withUnsafeTemporaryAllocation(byteCount: 10, alignment: 1) { buffer in
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<store(number, into: buffer)]))
        }
        return out
    }

    /// stored() of an element (not a map entry) lent to `body`, built on the stack.
    @inline(__always)
    func withStoredElement<R>(_ element: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard let ints, !isMap else { return body(element) }
        // A tuple, not withUnsafeTemporaryAllocation: that instantiates
        // generic metadata per call when the caller is unspecialized.
        var out: (UInt64, UInt64) = (0, 0)
        let count = withUnsafeMutableBytes(of: &out) { out -> Int in
            if ints == .optional, element.first != 1 {
                out[0] = nilByte
                return 1
            }
            let value = Int64(littleEndian: element.loadUnaligned(fromByteOffset: ints == .optional ? 1 : 0, as: Int64.self))
            return store(value, into: out)
        }
        return withUnsafeBytes(of: &out) { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    func stored(_ element: [UInt8]) -> [UInt8] {
        isPlain ? element : element.withUnsafeBytes { stored($0) }
    }

    /// The field's bytes of a stored element lent to `body` (decoded on the
    /// stack); a damaged element stops, as reads of a damaged file do.
    @inline(__always)
    func withField<R>(_ stored: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard ints != nil else { return body(stored) }
        if isMap { return withMapEntryField(stored, body) }
        var out: (UInt64, UInt64) = (0, 0)
        let count = withUnsafeMutableBytes(of: &out) { decode(stored, into: $0) }
        return withUnsafeBytes(of: &out) { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// The field's bytes of a stored element (not a map entry): itself when
    /// plain, else decoded into `scratch` (16 bytes). For loops in generic
    /// code, where withField's closure would not be specialized.
    @inline(__always)
    func fieldBytes(_ stored: UnsafeRawBufferPointer, scratch: UnsafeMutableRawPointer) -> UnsafeRawBufferPointer {
        guard ints != nil, !isMap else { return stored }
        return UnsafeRawBufferPointer(start: scratch, count: decode(stored, into: UnsafeMutableRawBufferPointer(start: scratch, count: 16)))
    }

    /// withField() of a map entry: its key as it is, then the value decoded.
    private func withMapEntryField<R>(_ stored: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let value = MapEntry.split(stored).value
        let head = UnsafeRawBufferPointer(rebasing: stored[..<(stored.count - value.count)])
        // Entries with short keys are built on the stack.
        var out: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        guard head.count + 9 <= MemoryLayout.size(ofValue: out) else {
            var entry = Array(head) + [UInt8](repeating: 0, count: 9)
            let count = entry.withUnsafeMutableBytes { decode(value, into: UnsafeMutableRawBufferPointer(rebasing: $0[head.count...])) }
            return entry.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[..<(head.count + count)])) }
        }
        let count = withUnsafeMutableBytes(of: &out) { out in
            out.baseAddress!.copyMemory(from: head.baseAddress!, byteCount: head.count)
            return head.count + decode(value, into: UnsafeMutableRawBufferPointer(rebasing: out[head.count...]))
        }
        return withUnsafeBytes(of: &out) { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// Writes the field form of a stored Int element (not a map entry) at
    /// the start of `out` (9 bytes of room); returns its length.
    @inline(__always)
    private func decode(_ stored: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) -> Int {
        let optional = ints == .optional
        if optional, stored.count == 1, stored[0] == nilByte {
            out[0] = 0
            return 1
        }
        let value: Int64
        if form == .ordered, stored.count == 1, stored[0] >= OrderedVarint.firstDirect, stored[0] <= OrderedVarint.lastDirect {
            value = Int64(stored[0] &- OrderedVarint.firstDirect) &+ OrderedVarint.directMin
        } else if form == .zigzag, stored.count == 1, stored[0] < 0x80 {
            let zigzag = Int64(stored[0])
            value = (zigzag >> 1) ^ -(zigzag & 1)
        } else {
            guard let decoded = form == .ordered ? OrderedVarint.decode(stored) : ZigzagVarint.decode(stored) else {
                realmFatal(.invalidValue, "An element of a collection in the file is damaged (not a varint); restore the file from a copy.")
            }
            value = decoded
        }
        if optional { out[0] = 1 }
        out.storeBytes(of: value.littleEndian, toByteOffset: optional ? 1 : 0, as: Int64.self)
        return optional ? 9 : 8
    }

    /// withField() copied out.
    func field(_ stored: UnsafeRawBufferPointer) -> [UInt8] {
        isPlain ? Array(stored) : withField(stored) { Array($0) }
    }
}

/// Room for one decoded element, owned by an iterator.
final class ElementScratch {
    let bytes = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 8)
    deinit { bytes.deallocate() }
}

/// Canonical zigzag LEB128 (one encoding per value).
enum ZigzagVarint {
    static func append(_ value: Int64, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(byteCount: 10, alignment: 1) { buffer in
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<store(value, into: buffer)]))
        }
    }

    /// Writes `value` at the start of `out` (10 bytes of room); returns its length.
    @inline(__always)
    static func store(_ value: Int64, into out: UnsafeMutableRawBufferPointer) -> Int {
        var zigzag = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        var n = 0
        while zigzag >= 0x80 {
            out[n] = UInt8(truncatingIfNeeded: zigzag) | 0x80
            zigzag >>= 7
            n += 1
        }
        out[n] = UInt8(zigzag)
        return n + 1
    }

    /// The value of `bytes` if they are exactly one canonical varint.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard !bytes.isEmpty, bytes.count <= 10, bytes[bytes.count - 1] & 0x80 == 0 else { return nil }
        // Canonical: no high zero group, and the tenth byte holds one bit.
        if bytes.count > 1, bytes[bytes.count - 1] == 0 { return nil }
        if bytes.count == 10, bytes[9] > 1 { return nil }
        var zigzag: UInt64 = 0
        for i in 0..<bytes.count {
            let byte = bytes[i]
            if i < bytes.count - 1, byte & 0x80 == 0 { return nil }
            zigzag |= UInt64(byte & 0x7F) << (7 * UInt64(i))
        }
        return Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
    }
}
