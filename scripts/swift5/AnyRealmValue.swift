// A user's Swift 5 language-mode code using AnyRealmValue as RealmSwift's
// (type-checked by scripts/check_swift5.sh).
import Foundation
import RealmLite

class Setting: Object {
    @Persisted(primaryKey: true) var key = ""
    @Persisted(indexed: true) var value: AnyRealmValue
    @Persisted var history: List<AnyRealmValue>
    @Persisted var extras: Map<String, AnyRealmValue>
    @Persisted var seen: MutableSet<AnyRealmValue>
}

func describe(_ value: AnyRealmValue) -> String {
    switch value {
    case .none: return "nil"
    case .int(let i): return "int \(i)"
    case .string(let s): return s
    case .object(let o): return "object \(o.objectSchema.className)"
    case .list(let l): return "list of \(l.count)"
    case .dictionary(let d): return "dictionary of \(d.count)"
    default: return value.doubleValue.map { "\($0)" } ?? "other"
    }
}

func settings(_ realm: Realm) throws -> Int {
    try realm.write {
        let setting = Setting()
        setting.key = "volume"
        setting.value = .int(7)
        setting.history.append(objectsIn: [.double(0.5), .fromArray([.bool(true)])])
        setting.extras["labels"] = .fromDictionary(["low": .int(1)])
        setting.seen.insert(.string("x"))
        realm.add(setting, update: .modified)
        setting.value.listValue?.append(.none)
    }
    let loud = realm.objects(Setting.self).filter("value > 5 AND value.@type == 'numeric'")
    let same = realm.objects(Setting.self).where { $0.value == .int(7) || $0.value > .double(5) || $0.value[0] == .none }
    let nested = realm.objects(Setting.self).where { $0.value["labels"].any == .string("low") }
    _ = nested.count
    _ = describe(loud.first?.value ?? .none)
    _ = realm.objects(Setting.self).first?.value.object(Setting.self)?.key
    return loud.count + same.count
}
