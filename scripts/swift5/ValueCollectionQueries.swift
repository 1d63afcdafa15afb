// A user's Swift 5 language-mode code against RealmLite (type-checked by
// scripts/check_swift5.sh): queries, sorting and distinct on collections of
// values as RealmSwift code writes them.
import Foundation
import RealmLite

enum Priority: Int, PersistableEnum { case low, high }

class Notebook: Object {
    @Persisted var pages: List<Int>
    @Persisted var ratings: List<Double?>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var anything: List<AnyRealmValue>
    @Persisted var priorities: List<Priority>
}

func valueQueries(_ notebook: Notebook) -> [String] {
    let big: Results<Int> = notebook.pages.filter("self > %@", 3)
    let typed = notebook.pages.where { $0 > 3 && $0 != 10 }
    let tagged = notebook.tags.where { $0.starts(with: "a", options: .caseInsensitive) }
    let named = notebook.tags.filter("self BEGINSWITH[c] 'a'").sorted(ascending: false)
    let rated = notebook.ratings.sorted(ascending: true).distinct()
    let ranked: Results<Int> = notebook.scores.sorted(ascending: false)
    let high = notebook.scores.filter("self IN %@", [1, 2]).sorted(byKeyPath: "self")
    let mixed = notebook.anything.filter("self.@type == 'string'").sorted()
    let urgent = notebook.priorities.where { $0 == .high }.distinct()
    let sections = notebook.tags.sectioned(by: { String($0.prefix(1)) }, ascending: true)
    let total: Int = big.sum()
    let mean: Double? = typed.average()
    var token: NotificationToken? = big.observe { change in
        if case .update(_, let deletions, let insertions, _) = change { print(deletions, insertions) }
    }
    token = nil
    return [big.description, "\(total) \(String(describing: mean)) \(tagged.count) \(named.first ?? "")",
            "\(rated.count) \(ranked.first ?? 0) \(high.count) \(mixed.count) \(urgent.count) \(sections.allKeys)",
            "\(big.freeze().isFrozen) \(big.index(of: 4) ?? -1) \(token == nil)"]
}
