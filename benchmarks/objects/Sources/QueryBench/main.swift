import BenchModels
import Foundation
import RealmLite

// query-bench: RealmLite's query paths timed against each other (index vs
// scan, predicates, Swift filter, sort, aggregate) on one class; RealmLite
// alone, no other engine (benchmarks/README.md, "Query paths").
//
//   query-bench [--quick] [-n N] [--reps R] [--dir DIR]
//
// Inserts N QItem objects (default 200,000; --quick: 20,000 and one
// repetition) in one write, then runs each query R times (default 5). Prints
// per query the first run (query parsing and cold paths included) and the
// median (min) of all runs. Every query's result is checked against the
// data's definition, so a fast wrong answer stops the run; timings are
// never checked.

/// The query tests' QItem (Tests/RealmLiteTests/QueryTests.swift): indexed
/// and unindexed twins of the same values, so each query has both paths.
final class QItem: Object {
    @Persisted var name = ""
    @Persisted(indexed: true) var tag = ""
    @Persisted(indexed: true) var rank = 0
    @Persisted(indexed: true) var optRank: Int?
    @Persisted var plainTag = ""
    @Persisted var plainRank = 0
    @Persisted var score = 0.0
    @Persisted var optScore: Double?
    @Persisted var when = Date(timeIntervalSince1970: 0)
    @Persisted var flag = false
    @Persisted var owner: QOwner?
}

final class QOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var items: List<QItem>
    @Persisted(originProperty: "owner") var owned: LinkingObjects<QItem>
}

/// Object i's values (what the checks count against).
struct ItemValues {
    let name: String, tag: String, rank: Int, score: Double
    init(name: String, tag: String, rank: Int, score: Double) {
        (self.name, self.tag, self.rank, self.score) = (name, tag, rank, score)
    }
    init(_ i: Int) {
        name = "name-\(i % 1000)"
        tag = "tag-\(i % 5000)"
        rank = i % 10_000
        score = Double(i % 777)
    }
}

struct Options {
    var n = 200_000, reps = 5, quick = false
    var directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("tmp")

    init(_ arguments: [String]) {
        var explicitN: Int?, explicitReps: Int?
        parseArguments(arguments) { flag, value in
            switch flag {
            case "--quick": quick = true
            case "-n": explicitN = Int(value())
            case "--reps": explicitReps = Int(value())
            case "--dir": directory = URL(fileURLWithPath: value())
            default: return false
            }
            return true
        }
        if quick { n = 20_000; reps = 1 } // 20,000: every rank (i % 10,000) occurs
        n = max(explicitN ?? n, 1)
        reps = max(explicitReps ?? reps, 1)
    }
}

let options = Options(CommandLine.arguments)
let n = options.n
let directory = options.directory.appendingPathComponent("queries-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)

let realm = try Realm(configuration: .init(fileURL: directory.appendingPathComponent("queries.realm"),
                                           objectTypes: [QItem.self, QOwner.self]))
print("query paths: \(n) QItem, \(options.reps) run(s) per query")
let insertStart = now()
try realm.write {
    for i in 0..<n {
        let values = ItemValues(i)
        let item = QItem()
        item.name = values.name
        item.tag = values.tag
        item.plainTag = values.tag
        item.rank = values.rank
        item.plainRank = values.rank
        item.score = values.score
        realm.add(item)
    }
}
print("QUERY_BENCH \(pad("insert (one write)")) \(ms((now() - insertStart) * 1000)) ms")

/// Runs body `reps` times, checks each result against `expected`, prints
/// the first run and the median (min) of all; then, untimed, `verify` must
/// hold (e.g. every object counted matches: a count alone cannot tell
/// 'tag-42' from 'tag-43').
func time(_ label: String, expected: Int, _ body: () -> Int, verify: () -> Bool) {
    var runs: [Double] = []
    for _ in 0..<options.reps {
        let start = now()
        let result = body()
        runs.append((now() - start) * 1000)
        if result != expected { fatalError("\(label): gave \(result), expected \(expected)") }
    }
    if !verify() { fatalError("\(label): the objects found are not the ones that match") }
    let sorted = runs.sorted()
    print("QUERY_BENCH \(pad(label)) \(ms(runs[0])) ms first, \(ms(sorted[sorted.count / 2])) ms median"
          + " (min \(String(format: "%.2f", sorted[0])))  result \(expected)")
}

/// A query's count, timed; checked: the count is the number of objects
/// whose values satisfy `matches`, and every object the query finds does.
func timeCount(_ label: String, _ query: () -> Results<QItem>, matches: @escaping (ItemValues) -> Bool) {
    let expected = (0..<n).reduce(0) { $0 + (matches(ItemValues($1)) ? 1 : 0) }
    time(label, expected: expected, { query().count }, verify: {
        query().allSatisfy { item in
            let values = ItemValues(name: item.name, tag: item.tag, rank: item.rank, score: item.score)
            return matches(values) && item.plainTag == item.tag && item.plainRank == item.rank
        }
    })
}

func pad(_ label: String) -> String { label.padding(toLength: 44, withPad: " ", startingAt: 0) }
func ms(_ value: Double) -> String {
    let text = String(format: "%.2f", value)
    return String(repeating: " ", count: max(0, 9 - text.count)) + text
}

let items = realm.objects(QItem.self)
timeCount("plainTag == 'tag-42' (scan, bytes)", { items.filter("plainTag == 'tag-42'") }) { $0.tag == "tag-42" }
timeCount("tag == 'tag-42' (index)", { items.filter("tag == 'tag-42'") }) { $0.tag == "tag-42" }
timeCount("plainRank IN {1,2,3} (scan)", { items.filter("plainRank IN {1, 2, 3}") }) { (1...3).contains($0.rank) }
timeCount("rank IN {1,2,3} (index)", { items.filter("rank IN {1, 2, 3}") }) { (1...3).contains($0.rank) }
timeCount("rank > 9990 (index range)", { items.filter("rank > 9990") }) { $0.rank > 9990 }
timeCount("plainRank > 9990 (scan)", { items.filter("plainRank > 9990") }) { $0.rank > 9990 }
timeCount("score > 500 AND name BEGINSWITH 'name-9'", { items.filter("score > 500 AND name BEGINSWITH 'name-9'") }) {
    $0.score > 500 && $0.name.hasPrefix("name-9")
}
timeCount("name ==[c] 'NAME-7' (folding)", { items.filter("name ==[c] 'NAME-7'") }) { $0.name == "name-7" }
timeCount("score * 2 > 1000 (arithmetic)", { items.filter("score * 2 > 1000") }) { $0.score * 2 > 1000 }
timeCount("name.@size > 7 (string size)", { items.filter("name.@size > 7") }) { $0.name.utf8.count > 7 }
timeCount("plainTag ==[c] tag (two properties)", { items.filter("plainTag ==[c] tag") }) { _ in true }
timeCount("where { plainTag == 'tag-42' }", { items.where { $0.plainTag == "tag-42" } }) { $0.tag == "tag-42" }
let tag42 = (0..<n).filter { ItemValues($0).tag == "tag-42" }.count
time("Swift filter { $0.plainTag == 'tag-42' }", expected: tag42, { items.filter { $0.plainTag == "tag-42" }.count },
     verify: { items.filter { $0.plainTag == "tag-42" }.allSatisfy { $0.tag == "tag-42" } })
// The lowest score, as an integer (0 whenever n > 0); checked: the whole
// sort is in order.
time("sorted(byKeyPath: score).first", expected: Int((0..<n).map { ItemValues($0).score }.min()!),
     { Int(items.sorted(byKeyPath: "score").first?.score ?? -1) },
     verify: {
         let scores = items.sorted(byKeyPath: "score").map(\.score)
         return scores.count == n && zip(scores, scores.dropFirst()).allSatisfy { $0 <= $1 }
     })
time("sum(ofProperty: score)", expected: Int((0..<n).reduce(0.0) { $0 + ItemValues($1).score }),
     { Int(items.sum(ofProperty: "score") as Double) }, verify: { true })

realm.invalidate()
try? FileManager.default.removeItem(at: directory)
