// The object keys of an unsorted Results as the notifier last reported
// them, in key order, with the rank of a key (its index in the Results)
// and single-key inserts and removals that cost the same at 500 keys and
// at 5 million: what lets a one-object commit's changeset cost follow the
// change, not the collection.
//
// Invariants:
//  R1. Keys ascend across the chunks; no chunk is empty.
//  R2. No chunk holds more than `maxChunk` keys (split on insert), so an
//      insert or removal moves at most `maxChunk` keys.
// A rank sums the chunk sizes before the key's chunk: a few hundred adds
// even at millions of keys, far below the cost of reading one changed
// record.

struct KeyRanks {
    static let maxChunk = 2048
    private var chunks: [[UInt64]] = []

    /// `keys` must ascend.
    init(_ keys: [UInt64]) {
        var start = 0
        while start < keys.count {
            let end = min(start + Self.maxChunk / 2, keys.count)
            chunks.append(Array(keys[start..<end]))
            start = end
        }
    }

    var count: Int { chunks.reduce(0) { $0 + $1.count } }

    /// The chunk that holds `key` or would hold it (R1): the first whose
    /// last key is not below it, else the last.
    private func chunkIndex(_ key: UInt64) -> Int {
        var low = 0, high = chunks.count - 1
        while low < high {
            let mid = (low + high) / 2
            if chunks[mid].last! < key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The index of `key` in the Results if it is there, else the index it
    /// would be inserted at.
    func rank(of key: UInt64) -> (index: Int, found: Bool) {
        guard !chunks.isEmpty else { return (0, false) }
        let c = chunkIndex(key)
        let (offset, found) = Self.search(chunks[c], key)
        var before = 0
        for i in 0..<c { before += chunks[i].count }
        return (before + offset, found)
    }

    func contains(_ key: UInt64) -> Bool {
        guard !chunks.isEmpty else { return false }
        return Self.search(chunks[chunkIndex(key)], key).found
    }

    mutating func insert(_ key: UInt64) {
        guard !chunks.isEmpty else { return chunks = [[key]] }
        let c = chunkIndex(key)
        let (offset, found) = Self.search(chunks[c], key)
        if found { return }
        chunks[c].insert(key, at: offset)
        if chunks[c].count > Self.maxChunk { // R2
            let upper = Array(chunks[c][(Self.maxChunk / 2)...])
            chunks[c].removeSubrange((Self.maxChunk / 2)...)
            chunks.insert(upper, at: c + 1)
        }
    }

    mutating func remove(_ key: UInt64) {
        guard !chunks.isEmpty else { return }
        let c = chunkIndex(key)
        let (offset, found) = Self.search(chunks[c], key)
        guard found else { return }
        chunks[c].remove(at: offset)
        if chunks[c].isEmpty { chunks.remove(at: c) } // R1
    }

    /// The first index in `chunk` whose key is not below `key`.
    private static func search(_ chunk: [UInt64], _ key: UInt64) -> (Int, found: Bool) {
        var low = 0, high = chunk.count
        while low < high {
            let mid = (low + high) / 2
            if chunk[mid] < key { low = mid + 1 } else { high = mid }
        }
        return (low, low < chunk.count && chunk[low] == key)
    }
}
