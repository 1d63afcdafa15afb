// A user's Swift 5 language-mode code against RealmLite (type-checked by
// scripts/check_swift5.sh): Map queries and aggregates as RealmSwift code
// writes them, and code generic over RealmKeyedCollection.
import Foundation
import RealmLite

class Kid: Object {
    @Persisted var name = ""
    @Persisted var age = 0
}

class School: Object {
    @Persisted var kids: Map<String, Kid?>
    @Persisted var grades: Map<String, Int>
    @Persisted var heights: Map<String, Double>
    @Persisted var scores: Map<String, Int?>
}

func keyedSummary<C: RealmKeyedCollection>(_ map: C) -> String where C.Key == String {
    let total: Int = map.sum(ofProperty: "self")
    let hasA = map.contains { key, _ in key.hasPrefix("a") }
    return "\(map.count) \(map.keys) \(total) \(hasA) \(map.isFrozen) \(map.description)"
}

func oldest<C: RealmKeyedCollection>(_ kids: C) -> String? where C.Value == Kid? {
    kids.sorted(byKeyPath: "age", ascending: false).first??.name
}

final class KidsScreen {
    var token: NotificationToken?
    var changed: [String] = []

    func start<C: RealmKeyedCollection>(_ map: C) where C.Key == String {
        token = map.observe { [weak self] change in
            if case .update(_, let deletions, let insertions, let modifications) = change {
                self?.changed += deletions + insertions + modifications
            }
        }
    }
}

func mapQueries(_ school: School) {
    let older: Results<Kid?> = school.kids.filter("age > %@", 6)
    let young: Results<Kid?> = school.kids.where { $0.age < 6 }
    let byName: Results<Kid?> = school.kids.sorted(by: \.name, ascending: true)
    let byAge = school.kids.sorted(by: [SortDescriptor(keyPath: "age", ascending: false)])
    let youngest = school.kids.min(of: \.age)
    let eldest = school.kids.max(of: \.age)
    let years = school.kids.sum(of: \.age)
    let meanAge: Double? = school.kids.average(of: \.age)
    let meanByName: Double? = school.kids.average(ofProperty: "age")
    let low = school.grades.min()
    let high = school.grades.max()
    let sum = school.grades.sum()
    let mean: Double? = school.grades.average()
    let tallest = school.heights.max()
    let bestScore: Int?? = school.scores.max()
    let scoreSum: Int? = school.scores.sum()
    let meanScore: Double? = school.scores.average()
    print((bestScore ?? nil) ?? 0, scoreSum ?? 0, meanScore ?? 0)
    school.grades.merge(school.grades) { old, _ in old }
    print(older.count, young.count, byName.count, byAge.count, youngest ?? 0, eldest ?? 0, years,
          meanAge ?? 0, meanByName ?? 0, low ?? 0, high ?? 0, sum, mean ?? 0, tallest ?? 0,
          keyedSummary(school.grades), oldest(school.kids) ?? "-")
}
