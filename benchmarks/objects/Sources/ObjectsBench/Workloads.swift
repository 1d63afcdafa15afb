import Foundation

// What every engine runs, on the same data: the workloads of issue 8 (GRDB's
// own suite and Realm's own performance tests), each returning a checksum
// that must agree across engines.

/// Sizes of one run (`--quick` shrinks them for the smoke run in `make test`).
struct Sizes: Codable {
    var intsInsert = 50_000        // GRDB: insert rows of 10 Ints, one transaction
    var intsFetch = 200_000        // GRDB: fetch rows of 10 Ints, every field
    var people = 100_000           // Realm: Person objects
    var durableTransactions = 5_000
    var indexedLookups = 10_000
    var unindexedLookups = 100
    var countRepeats = 21          // filtered count: median over this many
    var bigObjects = 1_000_000     // memory and cold open
    var bioBytes = 480             // per big object: >= 500 MB in all

    static let quick = Sizes(intsInsert: 2_000, intsFetch: 5_000, people: 5_000, durableTransactions: 100,
                             indexedLookups: 1_000, unindexedLookups: 10, countRepeats: 3,
                             bigObjects: 20_000, bioBytes: 480)
}

/// The Person of Realm's performance tests: object i.
struct PersonValues {
    let id: Int, name: String, age: Int, score: Double, active: Bool
    init(_ i: Int) {
        id = i; name = "name\(i)"; age = i % 100; score = Double(i) * 0.5; active = i % 2 == 0
    }
}

/// Row i of GRDB's 10-Int table: i0 = i, i1 = i + 1, ...
func intsRow(_ i: Int) -> [Int] { (0..<10).map { i + $0 } }

/// The big database's object i: a Person-like record with a `bio` of
/// `bytes` characters, so that 1M objects make >= 500 MB.
func bio(_ i: Int, bytes: Int) -> String {
    let seed = "bio\(i)-"
    return String(repeating: seed, count: bytes / seed.count + 1).prefix(bytes).description
}

/// One engine behind the workloads. Each method does one workload on the
/// engine's open files and returns a checksum.
protocol Engine: AnyObject {
    static var name: String { get }
    static var settings: String { get }
    /// Opens fresh databases in `directory`.
    init(directory: URL) throws
    func insertInts(_ range: Range<Int>) throws
    func fetchInts() throws -> Int
    /// Persons `range` in one write transaction (the scale tier batches).
    func insertPeople(_ range: Range<Int>) throws
    /// Bytes of the person database's files as they would be after close.
    func peopleFileSize() throws -> Int
    func countAgeOver50Active() throws -> Int
    func enumeratePeople() throws -> Int
    func lookupNames(ids: [Int]) throws -> Int
    /// The NamedItem table: `count` rows, names "n<i>", indexed and not.
    func insertNamedItems(_ count: Int) throws
    func lookupNamed(_ names: [String], indexed: Bool) throws -> Int
    func sortByScore() throws -> Double
    /// One durable transaction each: even k inserts person `first + k`, odd
    /// k adds 1 to the score of person `updates[k]`.
    func durableTransactions(first: Int, updates: [Int]) throws
    func deleteAllPeople() throws -> Int
    func close() throws

    /// The big database for the memory and cold-open measurements.
    static func createBig(at directory: URL, count: Int, bioBytes: Int) throws
    /// In a child process: open the big database and read one name.
    static func openBigAndLookup(at directory: URL, id: Int) throws -> String
}

extension Engine {
    func insertPeople(_ count: Int) throws { try insertPeople(0..<count) }
}

/// The sort workload's check: scores come in ascending order; their sum.
struct SortedScores {
    private(set) var sum = 0.0
    private var previous = -Double.infinity

    mutating func add(_ score: Double) {
        precondition(score >= previous, "not sorted")
        previous = score
        sum += score
    }
}

/// Expected checksums, computed from the data definitions.
enum Expected {
    static func fetchInts(_ n: Int) -> Int { (0..<n).reduce(0) { $0 + intsRow($1).reduce(0, +) } }
    static func count(_ n: Int) -> Int { (0..<n).filter { let p = PersonValues($0); return p.age > 50 && p.active }.count }
    static func enumerate(_ n: Int) -> Int {
        (0..<n).reduce(0) { sum, i in
            let p = PersonValues(i)
            return sum &+ p.id &+ p.name.utf8.count &+ p.age &+ Int(p.score) &+ (p.active ? 1 : 0)
        }
    }
}
