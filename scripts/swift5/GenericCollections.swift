// A user's Swift 5 language-mode code against RealmLite (type-checked by
// scripts/check_swift5.sh): generic code over RealmCollection, the
// type-erased AnyRealmCollection, observation with captured mutable state.
import Foundation
import RealmLite

class Item: Object {
    @Persisted var name = ""
    @Persisted var value = 0
    @Persisted var tags: List<String>
    @Persisted var numbers: MutableSet<Int>
    @Persisted(originProperty: "items") var boxes: LinkingObjects<Box>
}

class Box: Object {
    @Persisted var items: List<Item>
}

func summary<C: RealmCollection>(_ items: C) -> String where C.Element == Item {
    let big = items.filter("value > %@", 10).sorted(byKeyPath: "name")
    let total: Int = items.sum(ofProperty: "value")
    let mean: Double? = items.average(of: \.value)
    let first = items.where { $0.name.starts(with: "a") }.first?.name ?? "-"
    return "\(items.count) \(big.count) \(total) \(mean ?? 0) \(first) \(items.isFrozen)"
}

final class Screen {
    var rows: AnyRealmCollection<Item>
    var token: NotificationToken?
    var updates = 0

    init(_ rows: AnyRealmCollection<Item>) { self.rows = rows }

    func start() {
        token = rows.observe { [weak self] change in
            if case .update = change { self?.updates += 1 }
        }
    }
}

func use(realm: Realm, box: Box) {
    _ = summary(realm.objects(Item.self))
    _ = summary(box.items)
    _ = summary(box.items.first!.boxes.first!.items)
    _ = summary(AnyRealmCollection(box.items))
    let screen = Screen(AnyRealmCollection(realm.objects(Item.self)))
    screen.start()
    let numbers = box.items.first!.numbers
    let smallest: Int? = numbers.min()
    let sum: Int = numbers.sum()
    _ = (smallest, sum, AnyRealmCollection(numbers).max())
    let names = box.items.observe(keyPaths: [\Item.name]) { _ in }
    names.invalidate()
    let frozen = AnyRealmCollection(box.items).freeze()
    print(frozen.count, frozen.isFrozen)
}
