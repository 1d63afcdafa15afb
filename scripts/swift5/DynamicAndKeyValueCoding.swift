// A user's Swift 5 language-mode code against RealmLite (type-checked by
// scripts/check_swift5.sh): key-value coding, the schema and the dynamic API,
// as RealmSwift apps write them.
import Foundation
import RealmLite

class Shelf: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var label = ""
    @Persisted var books: List<Book>
    @Persisted var byTitle: Map<String, Book?>
}

class Book: Object {
    @Persisted var title = ""
    @Persisted var pages = 0
}

func keyValueCoding(_ realm: Realm, _ shelf: Shelf) throws -> [Any?] {
    try realm.write {
        shelf.setValue("fiction", forKey: "label")
        shelf["label"] = "novels"
        shelf.books.setValue(100, forKey: "pages")
        shelf.byTitle.setValue(nil, forKey: "old")
    }
    let label = shelf.value(forKey: "label") as? String
    let pages = shelf.books.value(forKey: "pages") as? [Any?] ?? []
    let kept = shelf.byTitle.value(forKey: "new")
    return [label, shelf.value(forKeyPath: "books.title"), kept] + pages
}

func dynamic(_ realm: Realm) throws -> String {
    let schema: Schema = realm.schema
    var names: [String] = []
    for objectSchema in schema.objectSchema {
        let key: Property? = objectSchema.primaryKeyProperty
        names.append("\(objectSchema.className) \(key?.name ?? "-") \(objectSchema.properties.map(\.columnName)) \(objectSchema.isEmbedded)")
        for property in objectSchema.properties where property.type == .object {
            names.append("\(property.objectClassName ?? "") \(property.isArray) \(property.isSet) \(property.isMap) \(property.isOptional) \(property.isIndexed)")
        }
    }
    let shelves: Results<DynamicObject> = realm.dynamicObjects("Shelf")
    try realm.write {
        let shelf = realm.dynamicCreate("Shelf", value: ["id": 2, "label": "x"], update: .modified)
        shelf["label"] = "y"
        shelf.dynamicList("books").append(realm.dynamicCreate("Book", value: ["title": "t"]))
    }
    let one: DynamicObject? = realm.dynamicObject(ofType: "Shelf", forPrimaryKey: 2)
    let map: Map<String, DynamicObject?>? = one?.dynamicMap("byTitle")
    let label = one?.label as? String
    return "\(names) \(shelves.count) \(label ?? "") \(map?.count ?? 0) \(schema["Shelf"]?["books"]?.type == .object)"
}
