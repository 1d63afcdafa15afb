import Foundation
import XCTest
@testable import RealmLite

/// Timings of query evaluation (run with QUERY_BENCH=1, ideally
/// `swift test -c release --filter QueryBenchmark`); skipped otherwise.
final class QueryBenchmarkTests: QueryTestCase {
    func testQueryTimings() throws {
        guard ProcessInfo.processInfo.environment["QUERY_BENCH"] != nil else { return }
        let n = Int(ProcessInfo.processInfo.environment["QUERY_BENCH_N"] ?? "") ?? 200_000
        let realm = try openQueryRealm()
        try realm.write {
            for i in 0..<n {
                let item = QItem()
                item.name = "name-\(i % 1000)"
                item.tag = "tag-\(i % 5000)"
                item.plainTag = item.tag
                item.rank = i % 10_000
                item.plainRank = item.rank
                item.score = Double(i % 777)
                realm.add(item)
            }
        }
        func time(_ label: String, _ body: () -> Int) {
            let start = DispatchTime.now().uptimeNanoseconds
            let count = body()
            let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            print(String(format: "QUERY_BENCH %-44@ %9.2f ms  (%d rows of %d)", label as NSString, ms, count, n))
        }
        let items = realm.objects(QItem.self)
        time("plainTag == 'tag-42' (scan, bytes)") { items.filter("plainTag == 'tag-42'").count }
        time("tag == 'tag-42' (index)") { items.filter("tag == 'tag-42'").count }
        time("plainRank IN {1,2,3} (scan)") { items.filter("plainRank IN {1, 2, 3}").count }
        time("rank IN {1,2,3} (index)") { items.filter("rank IN {1, 2, 3}").count }
        time("rank > 9990 (index range)") { items.filter("rank > 9990").count }
        time("plainRank > 9990 (scan)") { items.filter("plainRank > 9990").count }
        time("score > 500 AND name BEGINSWITH 'name-9'") { items.filter("score > 500 AND name BEGINSWITH 'name-9'").count }
        time("name ==[c] 'NAME-7' (folding)") { items.filter("name ==[c] 'NAME-7'").count }
        time("where { plainTag == 'tag-42' }") { items.where { $0.plainTag == "tag-42" }.count }
        time("Swift filter { $0.plainTag == 'tag-42' }") { items.filter { $0.plainTag == "tag-42" }.count }
        time("sorted(byKeyPath: score).first") { items.sorted(byKeyPath: "score").first == nil ? 0 : n }
        time("sum(ofProperty: score)") { Int(items.sum(ofProperty: "score") as Double) }
    }
}
