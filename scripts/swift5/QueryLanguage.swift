// A user's Swift 5 language-mode code against RealmLite (type-checked by
// scripts/check_swift5.sh): the query language's collection, map,
// property-to-property and subquery forms, in strings and in where {}.
import Foundation
import RealmLite

class Rambler: Object {
    @Persisted var name = ""
    @Persisted var nickname: String?
    @Persisted var age = 0
    @Persisted var steps: List<Int>
    @Persisted var ratings: Map<String, Int>
    @Persisted var hounds: Map<String, Beagle?>
    @Persisted var pack: List<Beagle>
}

class Beagle: Object {
    @Persisted var name = ""
    @Persisted var age = 0
}

func ramblerQueries(_ realm: Realm) -> [Int] {
    let ramblers = realm.objects(Rambler.self)
    let strings = [
        ramblers.filter("ratings['speed'] > 3 AND ANY ratings.@keys ==[c] 'SPEED'"),
        ramblers.filter("hounds['lead'].age > 2 OR hounds.@values.name BEGINSWITH 'R'"),
        ramblers.filter("steps[FIRST] == 1 AND steps[LAST] > steps[0] AND steps[SIZE] > 1"),
        ramblers.filter("name BEGINSWITH[cd] nickname AND name.@size > 3 AND age * 2 > %@", 40),
        ramblers.filter("SUBQUERY(pack, $h, age > 3).@count == 2 AND 'Rex' == ANY pack.name"),
    ]
    let built = [
        ramblers.where { $0.ratings["speed"] > 3 && $0.ratings.keys == "speed" && $0.ratings.values >= 1 },
        ramblers.where { $0.hounds["lead"].age > 2 && $0.hounds.values.name == "Rex" },
        ramblers.where { $0.steps > 100 || $0.steps.containsAny(in: [1, 2]) || $0.steps.contains(5...9) },
        ramblers.where { $0.name.starts(with: $0.nickname, options: [.caseInsensitive]) && $0.age > $0.steps.count },
        ramblers.where { ($0.pack.age > 3 && $0.pack.name.starts(with: "R")).count >= 2 },
    ]
    return (strings + built).map(\.count)
}
