import Foundation
import RealmLite

// A Codable model as RealmSwift code writes it, in Swift 5 mode.

class Swift5CodableDog: Object, Codable {
    @Persisted var name = ""
    @Persisted var nickname: String?
    @Persisted var toys: List<String>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
}

func swift5Codable() throws -> Swift5CodableDog {
    let dog = Swift5CodableDog()
    let json = try JSONEncoder().encode(dog)
    return try JSONDecoder().decode(Swift5CodableDog.self, from: json)
}
