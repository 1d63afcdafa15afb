import Foundation
import XCTest
@testable import RealmLite

// Random predicates in Realm's query language over random people and pets
// (QueryLanguageTests' models), each compared with a plain Swift evaluation
// of the same predicate on the generated data (never read back through
// RealmLite): strings with [c]/[d], numbers, date literals, AnyRealmValue,
// lists, maps, links, backlinks, subqueries, string operators between
// properties, arithmetic, combined with AND / OR / NOT. Seeded and deterministic.

final class QueryLanguageRandomTests: RealmTestCase {
    /// A generated person as plain values; pets are indexes into `pets`.
    private struct PersonData {
        var name: String
        var nickname: String?
        var age: Int
        var birthday: Date
        var scores: [String: Int]
        var pets: [String: Int?]
        var ints: [Int]
        var tags: Set<String>
        var dogs: [Int]
        var best: Int?
        var value: AnyRealmValue
    }

    private struct PetData {
        var name: String
        var age: Int
    }

    private typealias Atom<D> = (String, (D) -> Bool)

    private var rng = SplitMix(seed: 0x5EED_0018)
    private var people: [PersonData] = []
    private var petData: [PetData] = []

    private let words = ["ann", "Ann", "ÁNN", "Ánn", "bob", "BOB", "Bób", "élo", "ELO", "Elo", "ñu", "Ñu", "", "x", "annex", "Bobby"]

    private func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    private func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
    private func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }

    // MARK: Data

    private func generate() {
        petData = (0..<12).map { PetData(name: pick(words), age: $0) }
        people = (0..<40).map { i in
            var scores: [String: Int] = [:]
            for key in ["a", "b", "c"] where chance(0.5) { scores[key] = int(0...9) }
            var pets: [String: Int?] = [:]
            for key in ["cat", "dog"] where chance(0.5) { pets[key] = chance(0.2) ? .some(nil) : .some(int(0...11)) }
            let values: [AnyRealmValue] = [.none, .int(int(0...5)), .double(Double(int(0...10)) / 2), .string(pick(words)), .bool(chance(0.5))]
            return PersonData(
                name: pick(words), nickname: chance(0.25) ? nil : pick(words), age: i,
                birthday: Date(timeIntervalSince1970: Double(int(0...1_900_000_000))),
                scores: scores, pets: pets, ints: (0..<int(0...4)).map { _ in int(0...9) },
                tags: Set((0..<int(0...3)).map { _ in pick(words) }), dogs: (0..<int(0...3)).map { _ in int(0...11) },
                best: chance(0.3) ? nil : int(0...11), value: pick(values))
        }
    }

    private func store(_ realm: Realm) throws {
        try realm.write {
            let pets = petData.map { RQLPet(value: ["name": $0.name, "age": $0.age]) }
            pets.forEach { realm.add($0) }
            for data in people {
                let person = RQLPerson(value: ["name": data.name, "age": data.age, "birthday": data.birthday])
                person.nickname = data.nickname
                for (key, value) in data.scores { person.scores[key] = value }
                for (key, pet) in data.pets { person.pets[key] = pet.map { pets[$0] } ?? .some(nil) }
                person.ints.append(objectsIn: data.ints)
                person.tags.insert(objectsIn: data.tags)
                person.dogs.append(objectsIn: data.dogs.map { pets[$0] })
                person.best = data.best.map { pets[$0] }
                person.value = data.value
                realm.add(person)
            }
        }
    }

    // MARK: Swift evaluation helpers

    /// [c]: lower case; [d]: diacritics folded by Foundation (an independent oracle).
    private func fold(_ s: String, _ options: String) -> String {
        var t = s
        if options.contains("d") { t = t.folding(options: .diacriticInsensitive, locale: nil) }
        if options.contains("c") { t = t.lowercased() }
        return t
    }

    private func stringOp(_ op: String, _ value: String?, _ constant: String?, _ options: String) -> Bool {
        guard let value, let constant else {
            let bothNil = value == nil && constant == nil
            return op == "==" ? bothNil : op == "!=" ? !bothNil : false
        }
        let v = fold(value, options), c = fold(constant, options)
        switch op {
        case "==": return v == c
        case "!=": return v != c
        case "BEGINSWITH": return c.isEmpty || v.utf8.starts(with: c.utf8)
        case "ENDSWITH": return c.isEmpty || v.utf8.reversed().starts(with: c.utf8.reversed())
        default: return c.isEmpty || v.contains(c)
        }
    }

    private func order(_ op: String, _ a: Double, _ b: Double) -> Bool {
        switch op {
        case "==": a == b
        case "!=": a != b
        case "<": a < b
        case "<=": a <= b
        case ">": a > b
        default: a >= b
        }
    }

    private func quote(_ s: String) -> String { "'\(s)'" }
    private var options: String { pick(["", "", "[c]", "[d]", "[cd]"]) }
    private var ordering: String { pick(["==", "!=", "<", "<=", ">", ">="]) }

    /// Every form realm-core lexes: T with or without signs, fields padded
    /// or not, with or without nanoseconds.
    private func dateLiteral(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970)
        if chance(0.5) {
            if chance(0.5) { return "T\(seconds):0" }
            return seconds >= 0 ? "T+\(seconds):+0" : "T\(seconds):-0"
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let pad = chance(0.5)
        func two(_ n: Int?) -> String { pad && n! < 10 ? "0\(n!)" : "\(n!)" }
        let nanos = chance(0.3) ? ":0" : ""
        return "\(c.year!)-\(two(c.month))-\(two(c.day))\(chance(0.5) ? "@" : "T")\(two(c.hour)):\(two(c.minute)):\(two(c.second))\(nanos)"
    }

    private func number(_ value: AnyRealmValue) -> Double? {
        switch value {
        case .int(let v): Double(v)
        case .double(let v): v
        default: nil
        }
    }

    // MARK: Atoms over people

    private func personAtom() -> Atom<PersonData> {
        let pets = petData
        switch int(0...25) {
        case 0:
            let op = pick(["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS"]), opts = options, w = pick(words)
            return ("name \(op)\(opts) \(quote(w))", { self.stringOp(op, $0.name, w, opts) })
        case 1:
            let op = pick(["==", "!=", "BEGINSWITH", "CONTAINS"]), opts = options
            if chance(0.2) { return ("nickname \(op == "!=" ? "!=" : "==") nil", { op == "!=" ? $0.nickname != nil : $0.nickname == nil }) }
            let w = pick(words)
            return ("nickname \(op)\(opts) \(quote(w))", { self.stringOp(op, $0.nickname, w, opts) })
        case 2:
            let op = pick(["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS"]), opts = options
            return ("name \(op)\(opts) nickname", { self.stringOp(op, $0.name, $0.nickname, opts) })
        case 3:
            let op = ordering, n = int(-1...41)
            if chance(0.3) {
                let low = int(0...40), high = int(0...40)
                return ("age BETWEEN {\(low), \(high)}", { $0.age >= low && $0.age <= high })
            }
            if chance(0.2) {
                let set = (0..<3).map { _ in int(0...40) }
                return ("age IN {\(set.map(String.init).joined(separator: ", "))}", { set.contains($0.age) })
            }
            return ("age \(op) \(n)", { self.order(op, Double($0.age), Double(n)) })
        case 4:
            let op = ordering, date = Date(timeIntervalSince1970: Double(int(0...1_900_000_000)))
            let literal = dateLiteral(date)
            return ("birthday \(op) \(literal)", { self.order(op, $0.birthday.timeIntervalSince1970, date.timeIntervalSince1970) })
        case 5:
            switch int(0...4) {
            case 0:
                let op = ordering, n = int(0...5)
                return ("value \(op) \(n)", { person in
                    guard let v = self.number(person.value) else { return op == "!=" }
                    return self.order(op, v, Double(n))
                })
            case 1:
                let type = pick(["int", "double", "string", "null", "bool", "numeric"])
                return ("value.@type == '\(type)'", { person in
                    switch person.value {
                    case .int: type == "int" || type == "numeric"
                    case .double: type == "double" || type == "numeric"
                    case .string: type == "string"
                    case .none: type == "null"
                    case .bool: type == "bool"
                    default: false
                    }
                })
            case 2:
                let op = pick(["==", "BEGINSWITH", "CONTAINS"]), opts = options, w = pick(words)
                return ("value \(op)\(opts) \(quote(w))", { person in
                    guard case .string(let s) = person.value else { return false }
                    return self.stringOp(op, s, w, opts)
                })
            case 3:
                return ("value == nil", { if case .none = $0.value { true } else { false } })
            default:
                let b = chance(0.5)
                return ("value == \(b)", { if case .bool(let v) = $0.value { v == b } else { false } })
            }
        case 6:
            let quantifier = pick(["", "ANY ", "ALL ", "NONE "]), op = ordering, n = int(0...9)
            return ("\(quantifier)ints \(op) \(n)", { person in
                let hits = person.ints.map { self.order(op, Double($0), Double(n)) }
                switch quantifier {
                case "ALL ": return hits.allSatisfy { $0 }
                case "NONE ": return !hits.contains(true)
                default: return hits.contains(true)
                }
            })
        case 7:
            let op = ordering, n = int(0...20)
            switch int(0...4) {
            case 0: return ("ints.@count \(op) \(n % 5)", { self.order(op, Double($0.ints.count), Double(n % 5)) })
            case 1: return ("ints.@sum \(op) \(n)", { self.order(op, Double($0.ints.reduce(0, +)), Double(n)) })
            case 2: return ("ints.@min \(op) \(n % 10)", { p in p.ints.min().map { self.order(op, Double($0), Double(n % 10)) } ?? (op == "!=") })
            case 3: return ("ints.@max \(op) \(n % 10)", { p in p.ints.max().map { self.order(op, Double($0), Double(n % 10)) } ?? (op == "!=") })
            default:
                let x = Double(n) / 3
                return ("ints.@avg \(op) \(x)", { p in
                    p.ints.isEmpty ? op == "!=" : self.order(op, Double(p.ints.reduce(0, +)) / Double(p.ints.count), x)
                })
            }
        case 8:
            let op = ordering, n = int(0...9)
            let (subscriptText, index): (String, ([Int]) -> Int?) = pick([
                ("[FIRST]", { $0.first }), ("[LAST]", { $0.last }), ("[0]", { $0.first }),
                ("[1]", { $0.count > 1 ? $0[1] : nil }), ("[first]", { $0.first }),
            ])
            if chance(0.2) { return ("ints\(subscriptText) == nil", { index($0.ints) == nil }) }
            return ("ints\(subscriptText) \(op) \(n)", { p in index(p.ints).map { self.order(op, Double($0), Double(n)) } ?? (op == "!=") })
        case 9:
            let n = int(0...9)
            return ("\(n) IN ints", { $0.ints.contains(n) })
        case 10:
            let opts = options, w = pick(words), quantifier = pick(["ANY ", "NONE "])
            return ("\(quantifier)tags ==\(opts) \(quote(w))", { p in
                let hit = p.tags.contains { self.stringOp("==", $0, w, opts) }
                return quantifier == "NONE " ? !hit : hit
            })
        case 11:
            let key = pick(["a", "b", "c"]), op = ordering, n = int(0...9)
            if chance(0.25) { return ("scores['\(key)'] == nil", { $0.scores[key] == nil }) }
            return ("scores['\(key)'] \(op) \(n)", { p in p.scores[key].map { self.order(op, Double($0), Double(n)) } ?? (op == "!=") })
        case 12:
            let key = pick(["a", "b", "c", "d"]), quantifier = pick(["", "ANY ", "NONE ", "ALL "]), opts = options
            let shown = chance(0.5) ? key : key.uppercased()
            return ("\(quantifier)scores.@keys ==\(opts) '\(shown)'", { p in
                let hits = p.scores.keys.map { self.stringOp("==", $0, shown, opts) }
                switch quantifier {
                case "ALL ": return hits.allSatisfy { $0 }
                case "NONE ": return !hits.contains(true)
                default: return hits.contains(true)
                }
            })
        case 13:
            let quantifier = pick(["", "ALL ", "NONE "]), op = ordering, n = int(0...9)
            return ("\(quantifier)scores.@values \(op) \(n)", { p in
                let hits = p.scores.values.map { self.order(op, Double($0), Double(n)) }
                switch quantifier {
                case "ALL ": return hits.allSatisfy { $0 }
                case "NONE ": return !hits.contains(true)
                default: return hits.contains(true)
                }
            })
        case 14:
            let op = ordering, n = int(0...4)
            if chance(0.5) { return ("scores.@count \(op) \(n)", { self.order(op, Double($0.scores.count), Double(n)) }) }
            return ("scores.@sum \(op) \(n * 4)", { self.order(op, Double($0.scores.values.reduce(0, +)), Double(n * 4)) })
        case 15:
            let key = pick(["cat", "dog"]), op = ordering, n = int(0...11)
            let petAge: (PersonData) -> Int? = { p in (p.pets[key] ?? nil).map { pets[$0].age } }
            if chance(0.25) { return ("pets['\(key)'] == nil", { petAge($0) == nil }) }
            if chance(0.3) { return ("pets.@values.age \(op) \(n)", { p in p.pets.values.compactMap { $0 }.contains { self.order(op, Double(pets[$0].age), Double(n)) } }) }
            if chance(0.3) { return ("pets.@count == \(n % 3)", { $0.pets.count == n % 3 }) }
            return ("pets['\(key)'].age \(op) \(n)", { p in petAge(p).map { self.order(op, Double($0), Double(n)) } ?? (op == "!=") })
        case 16:
            let quantifier = pick(["", "ANY ", "ALL ", "NONE "]), op = ordering, n = int(0...11)
            return ("\(quantifier)dogs.age \(op) \(n)", { p in
                let hits = p.dogs.map { self.order(op, Double(pets[$0].age), Double(n)) }
                switch quantifier {
                case "ALL ": return hits.allSatisfy { $0 }
                case "NONE ": return !hits.contains(true)
                default: return hits.contains(true)
                }
            })
        case 17:
            let op = ordering, n = int(0...11)
            switch int(0...3) {
            case 0: return ("dogs.@count \(op) \(n % 4)", { self.order(op, Double($0.dogs.count), Double(n % 4)) })
            case 1: return ("dogs.@max.age \(op) \(n)", { p in p.dogs.map { pets[$0].age }.max().map { self.order(op, Double($0), Double(n)) } ?? (op == "!=") })
            case 2: return ("best.age \(op) \(n)", { p in p.best.map { self.order(op, Double(pets[$0].age), Double(n)) } ?? (op == "!=") })
            default: return ("dogs[LAST].age \(op) \(n)", { p in p.dogs.last.map { self.order(op, Double(pets[$0].age), Double(n)) } ?? (op == "!=") })
            }
        case 18:
            let opts = options, w = pick(words), op = pick(["BEGINSWITH", "==", "CONTAINS"])
            return ("ANY dogs.name \(op)\(opts) \(quote(w))", { p in p.dogs.contains { self.stringOp(op, pets[$0].name, w, opts) } })
        case 19:
            let n = int(0...11), k = int(0...2), opts = options, w = pick(["a", "b", "o", "N", "é"])
            let variable = chance(0.5) ? "$d." : ""
            return ("SUBQUERY(dogs, $d, \(variable)age > \(n) AND \(variable)name CONTAINS\(opts) '\(w)').@count >= \(k)", { p in
                p.dogs.filter { pets[$0].age > n && self.stringOp("CONTAINS", pets[$0].name, w, opts) }.count >= k
            })
        case 20:
            let op = pick(["<", "<=", ">", ">=", "=="]), quantifier = pick(["ANY", "ALL", "NONE"])
            // `age op Q dogs.age` is `Q dogs.age flipped-op age`.
            return ("age \(op) \(quantifier) dogs.age", { p in
                let hits = p.dogs.map { self.order(op, Double(p.age), Double(pets[$0].age)) }
                switch quantifier {
                case "ALL": return hits.allSatisfy { $0 }
                case "NONE": return !hits.contains(true)
                default: return hits.contains(true)
                }
            })
        case 21:
            let op = ordering, k = int(1...3), j = int(-5...5), n = int(0...100)
            if chance(0.5) {
                let x = Double(int(-40...20)) / 2
                return ("(ints.@sum - age) / 2 \(op) \(x)", { self.order(op, Double(($0.ints.reduce(0, +) - $0.age) / 2), x) })
            }
            return ("age * \(k) + \(j) \(op) \(n)", { self.order(op, Double($0.age * k + j), Double(n)) })
        case 22:
            let q1 = pick(["ANY", "ALL", "NONE"]), q2 = pick(["", "ANY ", "ALL ", "NONE "]), op = pick(["IN", "==", "!=", "<", ">="])
            let constants = (0..<int(0...3)).map { _ in int(0...9) }
            let list = "{\(constants.map(String.init).joined(separator: ", "))}"
            if chance(0.4) {
                // The collection first: its quantifier is the outer one.
                return ("\(q2)ints \(op) \(q1) \(list)", { p in
                    let perElement = p.ints.map { v -> Bool in
                        let hits = constants.map { self.order(op == "IN" ? "==" : op, Double(v), Double($0)) }
                        switch q1 {
                        case "ALL": return hits.allSatisfy { $0 }
                        case "NONE": return !hits.contains(true)
                        default: return hits.contains(true)
                        }
                    }
                    switch q2 {
                    case "ALL ": return perElement.allSatisfy { $0 }
                    case "NONE ": return !perElement.contains(true)
                    default: return perElement.contains(true)
                    }
                })
            }
            return ("\(q1) \(list) \(op) \(q2)ints", { p in
                let perConstant = constants.map { c -> Bool in
                    let hits = p.ints.map { self.order(op == "IN" ? "==" : op, Double(c), Double($0)) }
                    switch q2 {
                    case "ALL ": return hits.allSatisfy { $0 }
                    case "NONE ": return !hits.contains(true)
                    default: return hits.contains(true)
                    }
                }
                switch q1 {
                case "ALL": return perConstant.allSatisfy { $0 }
                case "NONE": return !perConstant.contains(true)
                default: return perConstant.contains(true)
                }
            })
        case 24:
            // No quantifier on either side: element by element, realm-core's `!=` rule.
            let op = pick(["==", "!=", "IN", "<", ">="]), listFirst = chance(0.5)
            let constants = (0..<int(0...3)).map { _ in int(0...9) }
            let list = "{\(constants.map(String.init).joined(separator: ", "))}"
            let pairOp = op == "IN" ? "==" : op
            return (listFirst ? "\(list) \(op) ints" : "ints \(op) \(list)", { p in
                guard p.ints.count == constants.count else { return op == "!=" }
                return zip(p.ints, constants).allSatisfy { v, c in
                    listFirst ? self.order(pairOp, Double(c), Double(v)) : self.order(pairOp, Double(v), Double(c))
                }
            })
        case 25:
            // Arithmetic on a to-many path.
            let quantifier = pick(["", "ANY ", "ALL ", "NONE "]), op = ordering, k = int(-2...3), j = int(-5...5), n = int(0...20)
            return ("\(quantifier)ints * \(k) + \(j) \(op) \(n)", { person in
                let hits = person.ints.map { self.order(op, Double($0 * k + j), Double(n)) }
                switch quantifier {
                case "ALL ": return hits.allSatisfy { $0 }
                case "NONE ": return !hits.contains(true)
                default: return hits.contains(true)
                }
            })
        default:
            let op = ordering, n = int(0...8)
            return ("name.@size \(op) \(n)", { self.order(op, Double($0.name.utf8.count), Double(n)) })
        }
    }

    // MARK: Atoms over pets (backlinks)

    private func petAtom() -> Atom<(Int, PetData)> {
        let people = self.people
        let owners: (Int) -> [PersonData] = { pet in people.filter { $0.dogs.contains(pet) } }
        let op = ordering, n = int(0...4)
        switch int(0...5) {
        case 0:
            return ("@links.RQLPerson.dogs.@count \(op) \(n)", { self.order(op, Double(owners($0.0).count), Double(n)) })
        case 1:
            return ("@links.@count \(op) \(n * 2)", { pet in
                let viaDogs = owners(pet.0).count
                let viaPets = people.filter { $0.pets.values.contains { $0 == pet.0 } }.count
                let viaBest = people.filter { $0.best == pet.0 }.count
                return self.order(op, Double(viaDogs + viaPets + viaBest), Double(n * 2))
            })
        case 2:
            let age = int(0...40), quantifier = pick(["ANY ", "ALL ", "NONE "])
            return ("\(quantifier)@links.RQLPerson.dogs.age \(op) \(age)", { pet in
                let hits = owners(pet.0).map { self.order(op, Double($0.age), Double(age)) }
                switch quantifier {
                case "ALL ": return hits.allSatisfy { $0 }
                case "NONE ": return !hits.contains(true)
                default: return hits.contains(true)
                }
            })
        case 3:
            return ("@links.RQLPerson.best.@count \(op) \(n)", { pet in self.order(op, Double(people.filter { $0.best == pet.0 }.count), Double(n)) })
        case 4:
            let age = int(0...40)
            return ("SUBQUERY(@links.RQLPerson.dogs, $p, $p.age > \(age)).@count >= 1", { pet in owners(pet.0).contains { $0.age > age } })
        default:
            let opts = options, w = pick(words)
            return ("ANY owners.name ==\(opts) \(quote(w))", { pet in owners(pet.0).contains { self.stringOp("==", $0.name, w, opts) } })
        }
    }

    // MARK: Composition

    private func compound<D>(_ atom: () -> Atom<D>, depth: Int) -> Atom<D> {
        guard depth > 0, chance(0.5) else { return atom() }
        switch int(0...2) {
        case 0:
            let (a, fa) = compound(atom, depth: depth - 1), (b, fb) = compound(atom, depth: depth - 1)
            return ("(\(a)) AND (\(b))", { fa($0) && fb($0) })
        case 1:
            let (a, fa) = compound(atom, depth: depth - 1), (b, fb) = compound(atom, depth: depth - 1)
            return ("(\(a)) OR (\(b))", { fa($0) || fb($0) })
        default:
            let (a, fa) = compound(atom, depth: depth - 1)
            return ("NOT (\(a))", { !fa($0) })
        }
    }

    func testRandomPredicatesMatchSwiftEvaluation() throws {
        generate()
        let realm = try openRealm([RQLPerson.self, RQLPet.self])
        try store(realm)
        let allPeople = realm.objects(RQLPerson.self), allPets = realm.objects(RQLPet.self)
        var failures = 0
        for i in 0..<3000 {
            let (format, expected) = compound(personAtom, depth: 2)
            let want = people.filter(expected).map(\.age)
            do {
                let got = try allPeople.checkedFilter(format, arguments: []).map(\.age)
                if got != want {
                    failures += 1
                    XCTFail("#\(i) \(format): got ages \(got), expected \(want)")
                }
            } catch {
                failures += 1
                XCTFail("#\(i) \(format): \(error)")
            }
            if failures > 10 { return }
        }
        for i in 0..<600 {
            let (format, expected) = compound(petAtom, depth: 1)
            let want = petData.enumerated().filter { expected(($0.offset, $0.element)) }.map(\.element.age)
            do {
                let got = try allPets.checkedFilter(format, arguments: []).map(\.age)
                if got != want {
                    failures += 1
                    XCTFail("pets #\(i) \(format): got ages \(got), expected \(want)")
                }
            } catch {
                failures += 1
                XCTFail("pets #\(i) \(format): \(error)")
            }
            if failures > 10 { return }
        }
    }
}
