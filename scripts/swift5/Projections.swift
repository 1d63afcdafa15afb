import Foundation
import RealmLite

// Swift 5-mode user code for projections, as RealmSwift's documentation
// writes it: @Projected renaming, through a link, a computed value and
// `projectTo`; Results of projections; observe with names and key paths.

class Hiker: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var base: Camp?
    @Persisted var partners: List<Hiker>
}

class Camp: Object {
    @Persisted var city = ""
}

class HikerProjection: Projection<Hiker> {
    @Projected(\Hiker.firstName) var name
    @Projected(\Hiker.lastName.localizedUppercase) var lastNameCaps
    @Projected(\Hiker.base?.city) var homeCity
    @Projected(\Hiker.partners.projectTo.firstName) var partnerNames: ProjectedCollection<String>
}

actor HikeLog {
    var names: [String] = []
}

@MainActor
func useProjections(realm: Realm, log: HikeLog) async throws -> [NotificationToken] {
    let hikers: Results<HikerProjection> = realm.objects(HikerProjection.self)
        .filter("lastName == %@", "Snow")
        .sorted(byKeyPath: "firstName")
    guard let first = hikers.first else { return [] }
    print(first.name, first.lastNameCaps, first.homeCity ?? "-", Array(first.partnerNames), first.rootObject.id)
    try realm.write {
        first.name = "Jon"
        first.partnerNames[0] = "Sam"
    }
    let manual = HikerProjection(projecting: first.rootObject)
    print(manual == first, manual.description, manual.isInvalidated, manual.realm != nil)
    let frozen = first.freeze()
    print(frozen.isFrozen, frozen.thaw()?.name ?? "deleted")
    print(hikers.sorted(by: \HikerProjection.name).count, hikers.distinct(by: [\HikerProjection.name]).count, _name(for: \HikerProjection.homeCity))
    var tokens = [
        first.observe { change in
            switch change {
            case .change(let projection, let properties):
                print(projection.name, properties.map { "\($0.name): \($0.oldValue ?? "-") -> \($0.newValue ?? "-")" })
            case .deleted: print("deleted")
            case .error(let error): print(error)
            }
        },
        first.observe(keyPaths: ["homeCity"]) { _ in },
        first.observe(keyPaths: [\HikerProjection.partnerNames]) { (change: ObjectChange<HikerProjection>) in _ = change },
        first.partnerNames.observe { change in
            if case .update(let names, _, let insertions, _) = change { print(Array(names), insertions) }
        },
        hikers.observe { change in
            if case .initial(let projections) = change { print(projections.map(\.name)) }
        },
    ]
    tokens.append(await first.observe(keyPaths: [\HikerProjection.name], on: log) { log, change in
        if case .change(let projection, _) = change { log.names.append(projection.name) }
    })
    return tokens
}
