import CStorage
import Foundation
@testable import RealmLite

// The object-level fuzz harness: a byte string is read as a program of
// collection and object operations on a file-backed Realm, which runs
// against a plain Swift model of the same data. After every commit, cancel
// and reopen, and at the end, the Realm must equal the model, every
// backlink must be counted once per link, and the engine's checker must
// be clean. Any difference stops the process (libFuzzer keeps the input).
//
// Collections cross the size at which they leave the record (the first
// byte picks the threshold), so both storage forms and the moves between
// them are exercised.

final class FuzzOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var ints: List<Int>
    @Persisted var names: List<String?>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var pets: List<FuzzPet>
    // Record integers, packed 1 to 8 bytes by the record's widest value:
    // set as side effects of the ops below, so inputs keep their meaning.
    @Persisted var level = 0
    @Persisted var mark: Int? = nil
    // A Bool held in its null bit, beside the packed integers' width code.
    @Persisted var even = true
}

final class FuzzPet: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(originProperty: "pets") var owners: LinkingObjects<FuzzOwner>
}

/// The model of one owner.
struct OwnerModel: Equatable {
    var ints: [Int] = []
    var names: [String?] = []
    var tags: Set<String> = []
    var scores: [String: Int] = [:]
    var pets: [Int] = []
    var level = 0
    var mark: Int?
    var even = true
}

/// Reads operands from the input; past its end every read is 0, so each
/// program ends.
struct ByteReader {
    let bytes: [UInt8]
    var offset = 0
    var atEnd: Bool { offset >= bytes.count }
    mutating func byte() -> Int {
        defer { offset += 1 }
        return offset < bytes.count ? Int(bytes[offset]) : 0
    }
    /// 0 ..< bound (bound > 0).
    mutating func below(_ bound: Int) -> Int { bound <= 256 ? byte() % bound : (byte() << 8 | byte()) % bound }
}

struct FuzzFailure: Error, CustomStringConvertible {
    let description: String
}

final class ObjectOpsRun {
    static let owners = 6
    static let petIds = 12
    static let maxElements = 3000
    let url: URL
    var realm: Realm?
    var model: [Int: OwnerModel] = [:]
    var pets: Set<Int> = []
    /// The model as of the last commit, restored by a cancel.
    var committed: ([Int: OwnerModel], Set<Int>) = ([:], [])
    var reader: ByteReader

    init(_ bytes: [UInt8], url: URL) {
        reader = ByteReader(bytes: bytes)
        self.url = url
    }

    static let thresholds = [0, 1, 4, 64]

    func configuration() -> Realm.Configuration {
        Realm.Configuration(fileURL: url, objectTypes: [FuzzOwner.self, FuzzPet.self])
    }

    func run() throws {
        for suffix in ["", ".lock"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        ListTree.setThreshold(Self.thresholds[reader.byte() % Self.thresholds.count])
        realm = try Realm(configuration: configuration())
        var steps = 0
        while !reader.atEnd && steps < 4000 {
            steps += 1
            try step()
        }
        if let realm, realm.isInWriteTransaction { try commit() }
        try verify("end")
        try reopen()
        try verify("end, reopened")
        realm = nil
    }

    static let trace = ProcessInfo.processInfo.environment["OBJECTFUZZ_TRACE"] != nil

    func step() throws {
        let op = reader.byte() % 32
        if Self.trace { print("op \(op) at \(reader.offset)") }
        switch op {
        case 0: if let realm, realm.isInWriteTransaction { try commit() }
        case 1: cancel()
        case 2:
            if let realm, realm.isInWriteTransaction { try commit() }
            try reopen()
            try verify("reopened")
        case 3: try verify("step")
        default: try mutate(op)
        }
    }

    func ensureWrite() throws -> Realm {
        guard let realm else { throw FuzzFailure(description: "no realm") }
        if !realm.isInWriteTransaction {
            realm.beginWrite()
            committed = (model, pets)
        }
        return realm
    }

    func commit() throws {
        try realm?.commitWrite()
        committed = (model, pets)
        try verify("commit")
    }

    func cancel() {
        guard let realm, realm.isInWriteTransaction else { return }
        realm.cancelWrite()
        (model, pets) = committed
    }

    func reopen() throws {
        cancel()
        realm = nil
        realm = try Realm(configuration: configuration())
    }

    /// An owner (created if absent, so that most operations act).
    func owner(_ realm: Realm) -> (Int, FuzzOwner) {
        let id = reader.below(Self.owners)
        if let owner = realm.object(ofType: FuzzOwner.self, forPrimaryKey: id) { return (id, owner) }
        let owner = realm.create(FuzzOwner.self, value: ["id": id])
        model[id] = OwnerModel()
        return (id, owner)
    }

    func pet(_ realm: Realm) -> FuzzPet {
        let id = reader.below(Self.petIds)
        if let pet = realm.object(ofType: FuzzPet.self, forPrimaryKey: id) { return pet }
        pets.insert(id)
        return realm.create(FuzzPet.self, value: ["id": id])
    }

    /// Mostly small; the top bytes give values whose varints (tree Ints) are long.
    func value() -> Int {
        let b = reader.byte()
        return b < 250 ? b - 128 : [Int.min, Int.max, 1 << 40, -(1 << 40) - 1, 8192, -8193][b - 250]
    }
    func name() -> String? {
        let b = reader.byte()
        return b == 0 ? nil : "n\(b % 40)"
    }
    func tag() -> String { "t\(reader.below(60))" }

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    func mutate(_ op: Int) throws {
        let realm = try ensureWrite()
        let (id, owner) = owner(realm)
        var m = model[id]!
        defer { if model[id] != nil { model[id] = m } }
        let n = m.ints.count
        switch op {
        case 4: let v = value(); owner.ints.append(v); m.ints.append(v); owner.level = v; m.level = v
            owner.even = v % 2 == 0; m.even = v % 2 == 0
        case 5:
            let count = min(reader.byte() * 4, Self.maxElements - n)
            guard count > 0 else { return }
            let start = value()
            let items = (0..<count).map { start &+ $0 }
            owner.ints.append(objectsIn: items); m.ints.append(contentsOf: items)
        case 6:
            let i = reader.below(n + 1), v = value()
            owner.ints.insert(v, at: i); m.ints.insert(v, at: i)
        case 7: guard n > 0 else { return }; let i = reader.below(n); owner.ints.remove(at: i); m.ints.remove(at: i)
        case 8:
            guard n > 0 else { return }
            let from = reader.below(n), to = reader.below(n)
            owner.ints.move(from: from, to: to)
            m.ints.insert(m.ints.remove(at: from), at: to)
        case 9: guard n > 0 else { return }; let i = reader.below(n), j = reader.below(n); owner.ints.swapAt(i, j); m.ints.swapAt(i, j)
        case 10:
            guard n > 0 else { return }
            let i = reader.below(n), v = value()
            owner.ints[i] = v; m.ints[i] = v; owner.mark = v; m.mark = v
        case 11:
            let a = reader.below(n + 1), b = reader.below(n + 1)
            let range = min(a, b)..<max(a, b)
            let items = (0..<min(reader.byte() % 80, Self.maxElements - n)).map { _ in value() }
            owner.ints.replaceSubrange(range, with: items); m.ints.replaceSubrange(range, with: items)
        case 12: owner.ints.removeAll(); m.ints.removeAll()
        case 13: guard n > 0 else { return }; owner.ints.removeLast(); m.ints.removeLast(); owner.mark = nil; m.mark = nil
        case 14:
            let k = name()
            if reader.byte() % 2 == 0 || m.names.isEmpty { owner.names.append(k); m.names.append(k) } else {
                let i = reader.below(m.names.count); owner.names.remove(at: i); m.names.remove(at: i)
            }
        case 15:
            let count = min(reader.byte(), Self.maxElements - m.names.count)
            let items = (0..<count).map { _ in name() }
            owner.names.append(objectsIn: items); m.names.append(contentsOf: items)
        case 16: let t = tag(); owner.tags.insert(t); m.tags.insert(t)
        case 17: let t = tag(); owner.tags.remove(t); m.tags.remove(t)
        case 18:
            let items = (0..<reader.byte() % 64).map { _ in tag() }
            owner.tags.formUnion(items); m.tags.formUnion(items)
        case 19:
            let items = (0..<reader.byte() % 64).map { _ in tag() }
            if reader.byte() % 2 == 0 {
                owner.tags.formIntersection(items); m.tags.formIntersection(items)
            } else {
                owner.tags.subtract(items); m.tags.subtract(items)
            }
        case 20: owner.tags.removeAll(); m.tags.removeAll()
        case 21: let k = tag(), v = value(); owner.scores[k] = v; m.scores[k] = v
        case 22: let k = tag(); owner.scores.removeObject(for: k); m.scores[k] = nil
        case 23:
            for _ in 0..<reader.byte() % 64 { let k = tag(), v = value(); owner.scores.updateValue(v, forKey: k); m.scores[k] = v }
        case 24: owner.scores.removeAll(); m.scores.removeAll()
        case 25:
            let p = pet(realm)
            let i = reader.below(m.pets.count + 1)
            owner.pets.insert(p, at: i); m.pets.insert(p.id, at: i)
        case 26:
            guard !m.pets.isEmpty else { return }
            let i = reader.below(m.pets.count); owner.pets.remove(at: i); m.pets.remove(at: i)
        case 27:
            // Deleting a pet removes it from every List that holds it.
            guard let p = realm.object(ofType: FuzzPet.self, forPrimaryKey: reader.below(Self.petIds)) else { return }
            let pid = p.id
            realm.delete(p)
            pets.remove(pid)
            m.pets.removeAll { $0 == pid }
            for key in model.keys where key != id { model[key]!.pets.removeAll { $0 == pid } }
        case 28:
            realm.delete(owner)
            model[id] = nil
        case 29:
            for _ in 0..<reader.byte() % 32 { let p = pet(realm); owner.pets.append(p); m.pets.append(p.id) }
        case 30:
            guard !m.pets.isEmpty else { return }
            let from = reader.below(m.pets.count), to = reader.below(m.pets.count)
            owner.pets.move(from: from, to: to); m.pets.insert(m.pets.remove(at: from), at: to)
        default:
            // A whole owner replaced by an update-add of new contents.
            let items = (0..<reader.byte() % 100).map { _ in value() }
            let tags = Set((0..<reader.byte() % 20).map { _ in tag() })
            realm.create(FuzzOwner.self, value: ["id": id, "ints": items, "tags": Array(tags), "level": items.last ?? 0,
                                                 "even": (items.last ?? 0) % 2 == 0], update: .modified)
            m.ints = items; m.tags = tags; m.level = items.last ?? 0; m.even = (items.last ?? 0) % 2 == 0
        }
    }

    func verify(_ label: String) throws {
        guard let realm else { return }
        func fail(_ what: String) -> FuzzFailure { FuzzFailure(description: "\(label): \(what)") }
        let owners = realm.objects(FuzzOwner.self)
        guard Set(owners.map(\.id)) == Set(model.keys) else { throw fail("owners \(owners.map(\.id)) vs \(model.keys.sorted())") }
        guard Set(realm.objects(FuzzPet.self).map(\.id)) == pets else { throw fail("pets differ") }
        var links: [Int: Int] = [:]
        for owner in owners {
            let m = model[owner.id]!
            guard owner.ints.count == m.ints.count, Array(owner.ints) == m.ints else { throw fail("owner \(owner.id) ints: \(owner.ints.count) vs \(m.ints.count)") }
            for _ in 0..<min(8, m.ints.count) {
                let i = reader.offset % m.ints.count
                guard owner.ints[i] == m.ints[i] else { throw fail("owner \(owner.id) ints[\(i)]") }
            }
            guard Array(owner.names) == m.names else { throw fail("owner \(owner.id) names") }
            guard owner.tags.count == m.tags.count, Set(owner.tags) == m.tags else { throw fail("owner \(owner.id) tags") }
            for t in m.tags.prefix(8) where !owner.tags.contains(t) { throw fail("owner \(owner.id) tags.contains(\(t))") }
            var scores: [String: Int] = [:]
            for entry in owner.scores { scores[entry.key] = entry.value }
            guard owner.scores.count == m.scores.count, scores == m.scores else { throw fail("owner \(owner.id) scores") }
            for (k, v) in m.scores.prefix(8) where owner.scores[k] != v { throw fail("owner \(owner.id) scores[\(k)]") }
            guard owner.pets.map(\.id) == m.pets else { throw fail("owner \(owner.id) pets") }
            guard owner.level == m.level, owner.mark == m.mark, owner.even == m.even else { throw fail("owner \(owner.id) level/mark/even") }
            for p in m.pets { links[p, default: 0] += 1 }
        }
        // The engine's filter reads the packed integers.
        for level in Set(model.values.map(\.level)).prefix(4) {
            let count = owners.filter("level == %@", level).count
            guard count == model.values.filter({ $0.level == level }).count else { throw fail("level == \(level) counts \(count)") }
        }
        // And the Bool held in its bit.
        let evens = owners.filter("even == true").count
        guard evens == model.values.filter(\.even).count else { throw fail("even == true counts \(evens)") }
        for pet in realm.objects(FuzzPet.self) where pet.owners.count != links[pet.id, default: 0] {
            throw fail("pet \(pet.id) has \(pet.owners.count) backlinks, \(links[pet.id, default: 0]) links")
        }
        if !realm.isInWriteTransaction {
            var report = cs_check_report()
            if cs_check(realm.core.env.handle, &report) != 0 {
                let message = withUnsafeBytes(of: report.first_error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                throw fail("checker: \(message)")
            }
        }
    }
}
