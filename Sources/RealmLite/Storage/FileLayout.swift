import CStorage

// The object layer's file layout, in one place. A Realm file is a set of
// CStorage named B+ trees (memcmp-ordered byte keys -> byte values). For a
// class C with properties p:
//
//   tree            key                                    value
//   --------------  -------------------------------------  ---------------------
//   obj:C           object key (u64 BE)                    the record (Record.swift)
//   pk:C            encoded primary key (KeyEncoding)      object key (u64 BE)
//   del:C           object key (u64 BE), or [0] = "all"    delete stamp (Incarnation.swift)
//   idx:C.p         encoded value ++ object key (u64 BE)   empty
//   fts:C.p         token ++ 0x00 ++ object key (u64 BE)   empty (full-text index, CStorage fts.c)
//   bl:C.p          target key (BE) ++ source key (BE)     link count (u32 LE)
//   realm:meta      "schema", "nextkey:C"                  stored schema JSON, u64 BE
//   realm:lists     list id (u64 BE) ++ order key          element (ListTree.swift)
//                   set id (u64 BE) ++ element bytes       element (SetMapTree.swift)
//                   map id (u64 BE) ++ key UTF-8           map entry (SetMapTree.swift)
//                   (ids from 2^63: Int elements as zigzag varints, from
//                   2^63 + 2^62 as ordered ones, TreeElementEncoding.swift)
//
// Object keys are per class, increasing, never reused (the counter lives in
// realm:meta), so a stale accessor never sees another object. A class keyed
// by its Int primary key has no pk: tree: its object key is the key with the
// sign bit flipped (objectKey(primaryKey:)), and its record has no slot for
// that column.
//
// A record (Record.swift), one value per object:
//
//   [generation: u8] [null bitmap: ceil(n/8)] [fixed slots] [LE end offset x nvar] [var bytes]
//
// End offsets are u32, or 1/2/4 bytes by the record's size in classes
// stored since object format 7 (Record.swift). Classes stored since format
// 10 pack their integer slots after the other fixed slots, 1/2/4/8 bytes by
// the record's widest integer (width code: top two bits of the null bitmap's
// last byte); since format 12, a non-optional Bool is its null bit (no slot).
//
// Fixed slots are little-endian scalars and link keys; var fields hold
// strings, data, decimals and collections (CollectionCodec.swift). Slot
// offsets come from the stored schema (ClassInfo.swift). docs/OBJECTS.md
// says why each choice was made. The realmlite tool reads and writes this
// layout from the stored schema alone (Sources/realmlite/Records.swift,
// RecordEncoder.swift, Import.swift): a change here changes it there too.

/// Tree names. Short prefixes keep keys small.
enum TreeName {
    static let meta = "realm:meta"
    static func objects(_ cls: String) -> String { "obj:" + cls }
    static func primaryKey(_ cls: String) -> String { "pk:" + cls }
    static func deleted(_ cls: String) -> String { "del:" + cls }
    static func index(_ cls: String, _ prop: String) -> String { "idx:" + cls + "." + prop }
    static func fullText(_ cls: String, _ prop: String) -> String { "fts:" + cls + "." + prop }
    static func backlinks(_ cls: String, _ prop: String) -> String { "bl:" + cls + "." + prop }
}

/// Keys in the meta tree.
enum MetaKey {
    static let schema = "schema"
    static func nextObjectKey(_ cls: String) -> String { "nextkey:" + cls }
}

/// Tree handle meaning "this tree does not exist in the file" (read-only
/// Realm opened on a file that lacks a class): reads see it empty.
let absentTree: cs_tree = .max

/// The object key of a class keyed by its Int primary key: the value with
/// its sign bit flipped, so that key order (unsigned, big-endian in the
/// tree) is the primary key's order.
@inlinable @inline(__always)
func objectKey(primaryKey: Int64) -> UInt64 { UInt64(bitPattern: primaryKey) ^ (1 << 63) }

@inlinable @inline(__always)
func primaryKey(objectKey key: UInt64) -> Int64 { Int64(bitPattern: key ^ (1 << 63)) }

/// Calls body with the stored bytes (little-endian Int64) of the primary key
/// that `key` is, as a record's fixed slot would hold them.
@inlinable @inline(__always)
func withPrimaryKeyBytes<R>(objectKey key: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try withUnsafeBytes(of: primaryKey(objectKey: key).littleEndian, body)
}

/// A key of a bl: tree: target key then source key, both big-endian.
func backlinkKey(_ target: UInt64, _ source: UInt64) -> [UInt8] {
    var key: [UInt8] = []
    key.reserveCapacity(16)
    appendBigEndian(target, to: &key)
    appendBigEndian(source, to: &key)
    return key
}
