import Foundation
import RealmLite

// The RealmLite models of the objects tier, shared by objects-bench and the
// minimal realmlite-open binary that the memory measurement runs.

public final class Person: Object {
    @Persisted(primaryKey: true) public var id = 0
    @Persisted public var name = ""
    @Persisted public var age = 0
    @Persisted public var score = 0.0
    @Persisted public var active = false
}

public final class IntsItem: Object {
    @Persisted public var i0 = 0
    @Persisted public var i1 = 0
    @Persisted public var i2 = 0
    @Persisted public var i3 = 0
    @Persisted public var i4 = 0
    @Persisted public var i5 = 0
    @Persisted public var i6 = 0
    @Persisted public var i7 = 0
    @Persisted public var i8 = 0
    @Persisted public var i9 = 0
}

public final class NamedItem: Object {
    @Persisted(indexed: true) public var indexedName = ""
    @Persisted public var plainName = ""
}

public final class Profile: Object {
    @Persisted(primaryKey: true) public var id = 0
    @Persisted public var name = ""
    @Persisted public var age = 0
    @Persisted public var score = 0.0
    @Persisted public var active = false
    @Persisted public var bio = ""
}

extension Profile {
    public static func bigConfiguration(_ directory: URL) -> Realm.Configuration {
        .init(fileURL: directory.appendingPathComponent("big.realm"), objectTypes: [Profile.self])
    }

    /// Opens the big database and reads one object's name.
    public static func openAndLookup(_ directory: URL, id: Int) throws -> String {
        let realm = try Realm(configuration: bigConfiguration(directory))
        return realm.object(ofType: Profile.self, forPrimaryKey: id)?.name ?? "<missing>"
    }
}
