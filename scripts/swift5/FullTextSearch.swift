import RealmLite

// Full-text indexes and TEXT queries as Swift 5 mode code writes them.
final class Swift5Article: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: .fullText) var body = ""
    @Persisted(indexed: .fullText) var summary: String?
    @Persisted(indexed: .general) var title = ""
    @Persisted(indexed: true) var tag = ""
}

func swift5FullText(_ realm: Realm) -> Int {
    let a = realm.objects(Swift5Article.self).filter("body TEXT %@", "quick fox -lazy data*")
    let b = realm.objects(Swift5Article.self).where { $0.body.fullTextSearch("fox") && $0.summary.fullTextSearch("x") }
    let indexed = realm.schema["Swift5Article"]?.properties.filter { $0.isFullTextIndexed }.count ?? 0
    return a.count + b.count + indexed
}
