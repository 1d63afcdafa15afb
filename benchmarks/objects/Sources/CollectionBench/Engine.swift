import Foundation

// What every engine of collection-bench does, on the same data. One engine
// value is one database: in memory for the timed rows (RealmLite's
// in-memory Realm, SQLite's ":memory:", GRDB's in-memory DatabaseQueue), a
// fresh file for the file-bytes rows. Collections belong to owners, by id:
//
// - a List<Int>: elements i × scale at positions 0, 1, 2, …
// - a List of objects: Items with number i and name "item<i>"
// - a MutableSet<Int> of 0..<n and a Map<String, Int> of "k<i>" → i.
//
// The peers keep a collection as join-table rows (docs in the README):
// appends land at MAX(position) + 1, read from the (owner, position) index
// in the same write, so positions stay dense because these rows only ever
// append (an insert or a removal in the middle would renumber every later
// row, O(n), which no row here does).
protocol CollectionEngine: AnyObject {
    static var name: String { get }
    /// The engine's setup, printed with the results.
    static var settings: String { get }
    /// A fresh database: in memory (nil), or a new file at `path`.
    init(path: String?) throws
    /// Creates owner `id` whose List<Int> holds `size` elements i × `scale`,
    /// appended in writes of 100k.
    func createOwner(_ id: Int, ints size: Int, scale: Int) throws
    /// Appends `values` to the owner's List<Int>, each in a write of its own.
    func appendInOwnWrites(_ owner: Int, _ values: Range<Int>) throws
    /// Appends `values` one at a time in one write.
    func appendInOneWrite(_ owner: Int, _ values: Range<Int>) throws
    /// The List<Int>'s count and last element (checks, untimed).
    func intsCountAndLast(_ owner: Int) throws -> (count: Int, last: Int?)
    /// The sum of the elements at `positions` (index access).
    func sumInts(_ owner: Int, at positions: [Int]) throws -> Int
    /// Iterates the List<Int>: its count and sum.
    func iterateInts(_ owner: Int) throws -> (count: Int, sum: Int)
    /// Appends Items 0..<count to the owner's List of objects (writes of 100k).
    func addItems(_ owner: Int, count: Int) throws
    /// Iterates the List of objects reading `number`: its count and sum.
    func iterateItems(_ owner: Int) throws -> (count: Int, sum: Int)
    /// Fills the owner's set with 0..<count and map with "k<i>" → i (writes of 100k).
    func fillSetAndMap(_ owner: Int, count: Int) throws
    /// How many of `probes` the set contains.
    func containsCount(_ owner: Int, _ probes: [Int]) throws -> Int
    /// The sum of the map's values at `keys` (all present).
    func lookupSum(_ owner: Int, _ keys: [String]) throws -> Int
    /// Bytes of the database file once compacted (a file database only).
    func compactedFileBytes() throws -> Int
    func close() throws
}

/// Writes of 100k, as an app filling a big collection would batch them.
let fillBatch = 100_000

/// Calls `body` with consecutive ranges of at most `fillBatch` covering 0..<count.
func inBatches(_ count: Int, _ body: (Range<Int>) throws -> Void) rethrows {
    for start in stride(from: 0, to: count, by: fillBatch) { try body(start..<min(count, start + fillBatch)) }
}

func itemName(_ i: Int) -> String { "item\(i)" }
func mapKey(_ i: Int) -> String { "k\(i)" }
