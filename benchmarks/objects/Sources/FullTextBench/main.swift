import BenchModels
import Foundation
import GRDBSQLite
import RealmLite

// fts-bench: full-text search, RealmLite's TEXT over `@Persisted(indexed:
// .fullText)` beside SQLite's FTS5 on the same documents (benchmarks/README.md,
// "Full-text search").
//
//   fts-bench [--quick] [--docs 100000] [--queries 2000] [--dir DIR]
//
// Documents: 10-60 words each drawn from a 20,000-word vocabulary with Zipf
// frequencies (s = 1), with capitals and punctuation now and then. Measures,
// for each engine:
//   build      inserting every document in one transaction, with the index
//              and without it (the index's cost is the difference)
//   bytes/doc  file size with the index less without it, per document
//   one word   queries/s counting the documents that hold one word, words
//              drawn uniformly from the 5,000 commonest
//   two words  the same with two such words (both must be present)
//   read ids   one-word queries that read every match's id (RealmLite:
//              iterating the Results; SQLite: stepping `SELECT rowid`)
// Each query's count must be the same in both engines (a fast wrong answer
// stops the run); timings are printed, never checked.

final class FTSDoc: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: .fullText) var body = ""
}

final class PlainDoc: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var body = ""
}


func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fts-bench: \(message)\n".utf8))
    exit(1)
}

/// splitmix64, so every run has the same documents and queries.
struct Random {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9e3779b97f4a7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58476d1ce4e5b9
        z = (z ^ (z >> 27)) &* 0x94d049bb133111eb
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

struct Corpus {
    let vocabulary: [String]
    let documents: [String]

    init(documents count: Int, vocabularySize: Int = 20_000) {
        var rng = Random(state: 18)
        let letters = Array("etaoinshrdlcumwfgypbvkjxqz")
        var words = Set<String>()
        var vocabulary: [String] = []
        while vocabulary.count < vocabularySize {
            let length = 2 + rng.below(4) + rng.below(6)
            // Frequent letters more often, as in English text.
            let word = String((0..<length).map { _ in letters[min(rng.below(26), rng.below(26))] })
            if words.insert(word).inserted { vocabulary.append(word) }
        }
        // Zipf (s = 1): rank r with probability proportional to 1 / r.
        var cumulative: [Double] = []
        var total = 0.0
        for r in 1...vocabularySize {
            total += 1 / Double(r)
            cumulative.append(total)
        }
        func draw(_ rng: inout Random) -> String {
            let x = rng.unit() * total
            var lo = 0, hi = cumulative.count - 1
            while lo < hi {
                let mid = (lo + hi) / 2
                if cumulative[mid] < x { lo = mid + 1 } else { hi = mid }
            }
            return vocabulary[lo]
        }
        var documents: [String] = []
        documents.reserveCapacity(count)
        for _ in 0..<count {
            var text = ""
            let n = 10 + rng.below(51)
            for k in 0..<n {
                var word = draw(&rng)
                if k == 0 || rng.below(12) == 0 { word = word.prefix(1).uppercased() + word.dropFirst() }
                text += word
                text += k == n - 1 ? "." : rng.below(10) == 0 ? ", " : " "
            }
            documents.append(text)
        }
        self.vocabulary = vocabulary
        self.documents = documents
    }
}

struct Options {
    var docs = 100_000, queries = 2_000
    var directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("tmp")

    init(_ arguments: [String]) {
        parseArguments(arguments) { flag, value in
            switch flag {
            case "--quick": docs = 5_000; queries = 200
            case "--docs": docs = Int(value()) ?? docs
            case "--queries": queries = Int(value()) ?? queries
            case "--dir": directory = URL(fileURLWithPath: value())
            default: return false
            }
            return true
        }
    }
}

func fileBytes(_ paths: [String]) -> Int {
    paths.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0) }
}

// MARK: - RealmLite

/// Pages in use (the file grows in steps; a compact copy gives what is used).
func realmBytes(_ url: URL, _ type: Object.Type) throws -> Int {
    let copy = url.deletingLastPathComponent().appendingPathComponent("copy-" + url.lastPathComponent)
    try? FileManager.default.removeItem(at: copy)
    try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [type])).writeCopy(toFile: copy)
    defer { try? FileManager.default.removeItem(at: copy) }
    return fileBytes([copy.path])
}

func realmBuild<T: Object>(_ type: T.Type, _ corpus: Corpus, at url: URL) throws -> Double {
    let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [type]))
    let start = now()
    try realm.write {
        for (i, text) in corpus.documents.enumerated() {
            realm.create(type, value: ["id": i, "body": text])
        }
    }
    return now() - start
}

// MARK: - SQLite FTS5

final class SQLite {
    let db: OpaquePointer

    init(_ path: String) {
        var handle: OpaquePointer?
        guard sqlite3_open(path, &handle) == SQLITE_OK, let handle else { fail("open \(path)") }
        db = handle
        exec("PRAGMA journal_mode=WAL")
        exec("PRAGMA synchronous=NORMAL")
    }

    deinit { sqlite3_close(db) }

    func exec(_ sql: String) {
        if sqlite3_exec(db, sql, nil, nil, nil) != SQLITE_OK { fail("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
    }

    func prepare(_ sql: String) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            fail("\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        return statement
    }

    func insert(_ table: String, _ corpus: Corpus) -> Double {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let start = now()
        exec("BEGIN")
        let insert = prepare("INSERT INTO \(table) (rowid, body) VALUES (?, ?)")
        for (i, text) in corpus.documents.enumerated() {
            sqlite3_reset(insert)
            sqlite3_bind_int64(insert, 1, Int64(i))
            sqlite3_bind_text(insert, 2, text, -1, transient)
            if sqlite3_step(insert) != SQLITE_DONE { fail("insert: \(String(cString: sqlite3_errmsg(db)))") }
        }
        sqlite3_finalize(insert)
        exec("COMMIT")
        let elapsed = now() - start
        exec("PRAGMA wal_checkpoint(TRUNCATE)")
        return elapsed
    }
}

// MARK: - Run

let options = Options(CommandLine.arguments)
let directory = options.directory.appendingPathComponent("fts-\(getpid())")
try? FileManager.default.removeItem(at: directory)
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

let corpusStart = now()
let corpus = Corpus(documents: options.docs)
let words = corpus.documents.reduce(0) { $0 + $1.split(separator: " ").count }
print(String(format: "fts-bench: %d documents, %.1f words each on average, %d-word Zipf vocabulary (made in %.1f s)",
             options.docs, Double(words) / Double(options.docs), corpus.vocabulary.count, now() - corpusStart))
print("sqlite \(String(cString: sqlite3_libversion())) (FTS5, unicode61 tokenizer)")

var rng = Random(state: 7)
let common = Array(corpus.vocabulary.prefix(5_000))
let oneWord = (0..<options.queries).map { _ in common[rng.below(common.count)] }
let twoWords = (0..<options.queries).map { _ in common[rng.below(common.count)] + " " + common[rng.below(common.count)] }

// Build: with and without the index, each on a fresh file.
let realmURL = directory.appendingPathComponent("fts.realm"), plainURL = directory.appendingPathComponent("plain.realm")
let realmBuildSecs = try realmBuild(FTSDoc.self, corpus, at: realmURL)
let realmPlainSecs = try realmBuild(PlainDoc.self, corpus, at: plainURL)
let realmIndexBytes = try realmBytes(realmURL, FTSDoc.self) - realmBytes(plainURL, PlainDoc.self)

let sqlitePath = directory.appendingPathComponent("fts.sqlite").path, sqlitePlainPath = directory.appendingPathComponent("plain.sqlite").path
let sqlite = SQLite(sqlitePath)
sqlite.exec("CREATE VIRTUAL TABLE docs USING fts5(body)")
let sqliteBuildSecs = sqlite.insert("docs", corpus)
let sqlitePlain = SQLite(sqlitePlainPath)
sqlitePlain.exec("CREATE TABLE docs (rowid INTEGER PRIMARY KEY, body TEXT)")
let sqlitePlainSecs = sqlitePlain.insert("docs", corpus)
let sqliteIndexBytes = fileBytes([sqlitePath]) - fileBytes([sqlitePlainPath])

// Queries.
let realm = try Realm(configuration: Realm.Configuration(fileURL: realmURL, objectTypes: [FTSDoc.self]))
let docs = realm.objects(FTSDoc.self)
let match = sqlite.prepare("SELECT count(*) FROM docs WHERE docs MATCH ?")
let select = sqlite.prepare("SELECT rowid FROM docs WHERE docs MATCH ?")

/// Seconds for the queries and each one's count.
func realmQueries(_ docs: Results<FTSDoc>, _ queries: [String]) -> (Double, [Int]) {
    let start = now()
    let counts = queries.map { docs.filter("body TEXT %@", $0).count }
    return (now() - start, counts)
}

func sqliteQueries(_ sqlite: SQLite, _ match: OpaquePointer, _ queries: [String]) -> (Double, [Int]) {
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    let start = now()
    let counts = queries.map { query -> Int in
        sqlite3_reset(match)
        sqlite3_bind_text(match, 1, query, -1, transient)
        guard sqlite3_step(match) == SQLITE_ROW else { fail("MATCH \(query): \(String(cString: sqlite3_errmsg(sqlite.db)))") }
        return Int(sqlite3_column_int64(match, 0))
    }
    return (now() - start, counts)
}

/// Seconds for the queries and each one's sum of matching ids.
func realmReads(_ docs: Results<FTSDoc>, _ queries: [String]) -> (Double, [Int]) {
    let start = now()
    let sums = queries.map { query in docs.filter("body TEXT %@", query).reduce(0) { $0 + $1.id } }
    return (now() - start, sums)
}

func sqliteReads(_ sqlite: SQLite, _ select: OpaquePointer, _ queries: [String]) -> (Double, [Int]) {
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    let start = now()
    let sums = queries.map { query -> Int in
        sqlite3_reset(select)
        sqlite3_bind_text(select, 1, query, -1, transient)
        var sum = 0
        while sqlite3_step(select) == SQLITE_ROW { sum += Int(sqlite3_column_int64(select, 0)) }
        return sum
    }
    return (now() - start, sums)
}

/// The best of three passes.
func best(_ run: () -> (Double, [Int])) -> (Double, [Int]) {
    var result = run()
    for _ in 0..<2 {
        let next = run()
        if next.0 < result.0 { result = next }
    }
    return result
}

// Untimed first pass (both engines' pages in memory), then the timed passes.
_ = realmQueries(docs, Array(oneWord.prefix(200)))
_ = sqliteQueries(sqlite, match, Array(oneWord.prefix(200)))
let (realmOne, realmOneCounts) = best { realmQueries(docs, oneWord) }
let (sqliteOne, sqliteOneCounts) = best { sqliteQueries(sqlite, match, oneWord) }
let (realmTwo, realmTwoCounts) = best { realmQueries(docs, twoWords) }
let (sqliteTwo, sqliteTwoCounts) = best { sqliteQueries(sqlite, match, twoWords) }
let (realmRead, realmReadSums) = best { realmReads(docs, oneWord) }
let (sqliteRead, sqliteReadSums) = best { sqliteReads(sqlite, select, oneWord) }
if realmReadSums != sqliteReadSums { fail("one-word matches differ between RealmLite and SQLite FTS5") }
if realmOneCounts != sqliteOneCounts { fail("one-word counts differ between RealmLite and SQLite FTS5") }
if realmTwoCounts != sqliteTwoCounts { fail("two-word counts differ between RealmLite and SQLite FTS5") }
let meanOne = Double(realmOneCounts.reduce(0, +)) / Double(oneWord.count)
let meanTwo = Double(realmTwoCounts.reduce(0, +)) / Double(twoWords.count)

func rate(_ n: Int, _ secs: Double) -> String { String(format: "%10.0f", Double(n) / secs) }
func row(_ name: String, _ realm: String, _ sqlite: String, _ note: String = "") -> String {
    name.padding(toLength: 34, withPad: " ", startingAt: 0) + realm.padding(toLength: 14, withPad: " ", startingAt: 0)
        + sqlite.padding(toLength: 14, withPad: " ", startingAt: 0) + note
}
print()
print(row("", "RealmLite", "SQLite FTS5"))
print(row("one word, queries/s", rate(oneWord.count, realmOne), rate(oneWord.count, sqliteOne),
          String(format: "ratio %.2f; %.0f matches per query", sqliteOne / realmOne, meanOne)))
print(row("two words, queries/s", rate(twoWords.count, realmTwo), rate(twoWords.count, sqliteTwo),
          String(format: "ratio %.2f; %.0f matches per query", sqliteTwo / realmTwo, meanTwo)))
print(row("one word reading ids, queries/s", rate(oneWord.count, realmRead), rate(oneWord.count, sqliteRead),
          String(format: "ratio %.2f", sqliteRead / realmRead)))
print(row("build with index, docs/s", rate(options.docs, realmBuildSecs), rate(options.docs, sqliteBuildSecs)))
print(row("build without index, docs/s", rate(options.docs, realmPlainSecs), rate(options.docs, sqlitePlainSecs)))
print(row("index build cost, µs/doc", String(format: "%10.1f", (realmBuildSecs - realmPlainSecs) * 1e6 / Double(options.docs)),
          String(format: "%10.1f", (sqliteBuildSecs - sqlitePlainSecs) * 1e6 / Double(options.docs))))
print(row("index bytes/doc", String(format: "%10.0f", Double(realmIndexBytes) / Double(options.docs)),
          String(format: "%10.0f", Double(sqliteIndexBytes) / Double(options.docs))))
