import Foundation
@testable import RealmLite

/// Int collections of every width and kind: the class of
/// Tests/Fixtures/pre-orderedints.realm (make-pre-orderedints.swift.txt),
/// written while new tree collections stored Int elements as zigzag varints.
final class TreeIntWidths: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var ints: List<Int>
    @Persisted var small: List<Int8>
    @Persisted var optionals: List<Int?>
    @Persisted var set: MutableSet<Int>
    @Persisted var smallSet: MutableSet<Int8>
    @Persisted var optionalSet: MutableSet<Int?>
    @Persisted var map: Map<String, Int>
    @Persisted var smallMap: Map<String, Int8>
    @Persisted var optionalMap: Map<String, Int?>
}

/// The values TreeIntWidths collections hold.
enum TreeIntValues {
    /// Both sides of every length of the ordered encoding (a first byte
    /// -32...206 by itself, then 1 to 8 more bytes, each length covering
    /// 256 times the values of the one before), computed without it.
    static let orderedEdges: [Int] = {
        var out: [Int] = [-33, -32, 206, 207]
        var high = 206, low = -32
        for bytes in 1...7 {
            let span = 1 << (8 * bytes)
            high += span
            low -= span
            out += [high, high + 1, low, low - 1]
        }
        return out
    }()
    /// Every edge of both varint forms and of Int itself.
    static let edges: [Int] = IntEdges.values + orderedEdges
    static let smallEdges: [Int8] = IntEdges.small + [-33, -32]

    /// Object `id`'s elements: 0 and 2 hold more than the tree threshold
    /// (64), 1 is small (in its record).
    static func ints(_ id: Int) -> [Int] {
        id == 1 ? [.min, -33, 207, .max] : edges + (0..<(40 + id)).map { $0 * 7_777_777 - 150_000_000 }
    }
    static func smalls(_ id: Int) -> [Int8] {
        id == 1 ? [-32, 127] : smallEdges + (0..<(80 + id)).map { Int8(truncatingIfNeeded: $0 * 3 - id) }
    }
    static func optionals(_ id: Int) -> [Int?] {
        ints(id).enumerated().map { $0.offset % 7 == 3 ? nil : $0.element }
    }
    static func keyed<Value>(_ values: [Value]) -> [String: Value] {
        Dictionary(uniqueKeysWithValues: values.enumerated().map { ("k\($0.offset)", $0.element) })
    }

    /// Fills a managed owner (changes move big collections to the tree).
    static func fill(_ owner: TreeIntWidths) {
        let id = owner.id
        owner.ints.append(objectsIn: ints(id))
        owner.small.append(objectsIn: smalls(id))
        owner.optionals.append(objectsIn: optionals(id))
        owner.set.insert(objectsIn: ints(id))
        owner.smallSet.insert(objectsIn: smalls(id))
        owner.optionalSet.insert(objectsIn: optionals(id))
        for (key, value) in keyed(ints(id)) { owner.map[key] = value }
        for (key, value) in keyed(smalls(id)) { owner.smallMap[key] = value }
        for (key, value) in keyed(optionals(id)) { owner.optionalMap[key] = value }
    }
}

/// A TreeIntWidths as Swift collections.
struct TreeIntWidthsModel: Equatable {
    var ints: [Int]
    var small: [Int8]
    var optionals: [Int?]
    var set: Set<Int>
    var smallSet: Set<Int8>
    var optionalSet: Set<Int?>
    var map: [String: Int]
    var smallMap: [String: Int8]
    var optionalMap: [String: Int?]

    init(id: Int) {
        ints = TreeIntValues.ints(id)
        small = TreeIntValues.smalls(id)
        optionals = TreeIntValues.optionals(id)
        set = Set(ints)
        smallSet = Set(small)
        optionalSet = Set(optionals)
        map = TreeIntValues.keyed(ints)
        smallMap = TreeIntValues.keyed(small)
        optionalMap = TreeIntValues.keyed(optionals)
    }

    init(_ owner: TreeIntWidths) {
        ints = Array(owner.ints)
        small = Array(owner.small)
        optionals = Array(owner.optionals)
        set = Set(owner.set)
        smallSet = Set(owner.smallSet)
        optionalSet = Set(owner.optionalSet)
        map = Dictionary(uniqueKeysWithValues: owner.map.asKeyValueSequence().map { ($0.key, $0.value) })
        smallMap = Dictionary(uniqueKeysWithValues: owner.smallMap.asKeyValueSequence().map { ($0.key, $0.value) })
        optionalMap = Dictionary(uniqueKeysWithValues: owner.optionalMap.asKeyValueSequence().map { ($0.key, $0.value) })
    }

    /// Change `n` (any Int): appends, inserts, removes, set inserts and removes, map sets and removes.
    mutating func change(_ n: Int) {
        let byte = Int8(truncatingIfNeeded: n)
        ints.append(n); ints.insert(~n, at: 1); ints.remove(at: ints.count / 3)
        small.insert(byte, at: 0); small.removeLast()
        optionals.append(nil); optionals.insert(n, at: 2); optionals.remove(at: 0)
        set.insert(n); set.insert(~n); set.remove(-33)
        smallSet.insert(byte); smallSet.remove(-32)
        optionalSet.insert(nil); optionalSet.insert(n); optionalSet.remove(207)
        map["n\(n)"] = n; map["k3"] = nil; map["k4"] = ~n
        smallMap["n\(n)"] = byte; smallMap["k5"] = nil
        optionalMap["n\(n)"] = .some(nil); optionalMap["k6"] = .some(n); optionalMap["k7"] = nil
    }

    /// The same changes made to a managed owner (in a write).
    static func change(_ owner: TreeIntWidths, _ n: Int) {
        let byte = Int8(truncatingIfNeeded: n)
        owner.ints.append(n); owner.ints.insert(~n, at: 1); owner.ints.remove(at: owner.ints.count / 3)
        owner.small.insert(byte, at: 0); owner.small.removeLast()
        owner.optionals.append(nil); owner.optionals.insert(n, at: 2); owner.optionals.remove(at: 0)
        owner.set.insert(n); owner.set.insert(~n); owner.set.remove(-33)
        owner.smallSet.insert(byte); owner.smallSet.remove(-32)
        owner.optionalSet.insert(nil); owner.optionalSet.insert(n); owner.optionalSet.remove(207)
        owner.map["n\(n)"] = n; owner.map.removeObject(for: "k3"); owner.map["k4"] = ~n
        owner.smallMap["n\(n)"] = byte; owner.smallMap.removeObject(for: "k5")
        owner.optionalMap.updateValue(nil, forKey: "n\(n)"); owner.optionalMap["k6"] = n; owner.optionalMap.removeObject(for: "k7")
    }
}
