import Foundation
import RealmLite

// RealmLite through its public API: an owner object with a List<Int>, a
// List of Items, a MutableSet<Int> and a Map<String, Int>.

final class BenchItem: Object {
    @Persisted var number = 0
    @Persisted var name = ""
}

final class BenchListOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var numbers: List<Int>
    @Persisted var items: List<BenchItem>
    @Persisted var tags: MutableSet<Int>
    @Persisted var scores: Map<String, Int>
}

final class RealmLiteCollections: CollectionEngine {
    static let name = "realmlite"
    static let settings = "RealmLite (this tree, release), public Swift API; in-memory Realm, or a file with full durability"

    /// Each in-memory engine gets a Realm of its own.
    nonisolated(unsafe) private static var opened = 0
    private let realm: Realm
    private let fileURL: URL?

    init(path: String?) throws {
        fileURL = path.map { URL(fileURLWithPath: $0) }
        Self.opened += 1
        let configuration = fileURL.map { Realm.Configuration(fileURL: $0, objectTypes: [BenchListOwner.self, BenchItem.self]) }
            ?? Realm.Configuration(inMemoryIdentifier: "collection-bench-\(Self.opened)",
                                   objectTypes: [BenchListOwner.self, BenchItem.self])
        realm = try Realm(configuration: configuration)
    }

    private func owner(_ id: Int) -> BenchListOwner { realm.object(ofType: BenchListOwner.self, forPrimaryKey: id)! }

    func createOwner(_ id: Int, ints size: Int, scale: Int) throws {
        let owner = try realm.write { realm.create(BenchListOwner.self, value: ["id": id]) }
        try inBatches(size) { range in
            try realm.write { owner.numbers.append(objectsIn: range.lazy.map { $0 &* scale }) }
        }
    }

    func appendInOwnWrites(_ owner: Int, _ values: Range<Int>) throws {
        let numbers = self.owner(owner).numbers
        for v in values { try realm.write { numbers.append(v) } }
    }

    func appendInOneWrite(_ owner: Int, _ values: Range<Int>) throws {
        let numbers = self.owner(owner).numbers
        try realm.write { for v in values { numbers.append(v) } }
    }

    func intsCountAndLast(_ owner: Int) throws -> (count: Int, last: Int?) {
        let numbers = self.owner(owner).numbers
        let count = numbers.count
        return (count, count > 0 ? numbers[count - 1] : nil)
    }

    func sumInts(_ owner: Int, at positions: [Int]) throws -> Int {
        let numbers = self.owner(owner).numbers
        var sum = 0
        for p in positions { sum &+= numbers[p] }
        return sum
    }

    func iterateInts(_ owner: Int) throws -> (count: Int, sum: Int) {
        var count = 0, sum = 0
        for n in self.owner(owner).numbers { count += 1; sum &+= n }
        return (count, sum)
    }

    func addItems(_ owner: Int, count: Int) throws {
        let items = self.owner(owner).items
        try inBatches(count) { range in
            try realm.write {
                items.append(objectsIn: range.map { i in
                    let item = BenchItem()
                    item.number = i
                    item.name = itemName(i)
                    return item
                })
            }
        }
    }

    func iterateItems(_ owner: Int) throws -> (count: Int, sum: Int) {
        var count = 0, sum = 0
        for item in self.owner(owner).items { count += 1; sum &+= item.number }
        return (count, sum)
    }

    func fillSetAndMap(_ owner: Int, count: Int) throws {
        let o = self.owner(owner)
        try inBatches(count) { range in
            try realm.write {
                o.tags.insert(objectsIn: range)
                for k in range { o.scores[mapKey(k)] = k }
            }
        }
    }

    func containsCount(_ owner: Int, _ probes: [Int]) throws -> Int {
        let tags = self.owner(owner).tags
        var found = 0
        for p in probes where tags.contains(p) { found += 1 }
        return found
    }

    func lookupSum(_ owner: Int, _ keys: [String]) throws -> Int {
        let scores = self.owner(owner).scores
        var sum = 0
        for k in keys { sum &+= scores[k]! }
        return sum
    }

    /// `writeCopy`: the file as compacting leaves it.
    func compactedFileBytes() throws -> Int {
        let copy = fileURL!.deletingPathExtension().appendingPathExtension("compact.realm")
        try realm.writeCopy(toFile: copy)
        return try FileManager.default.attributesOfItem(atPath: copy.path)[.size] as! Int
    }

    func close() throws { realm.invalidate() }
}
