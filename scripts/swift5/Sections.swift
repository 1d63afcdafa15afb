import Foundation
import RealmLite

// Sectioned results as RealmSwift code writes them, in Swift 5 mode.

class Swift5Contact: Object {
    @Persisted var name = ""
    @Persisted var group = 0
}

func swift5Sections(_ realm: Realm) -> NotificationToken {
    let sections = realm.objects(Swift5Contact.self).sectioned(by: \.group, ascending: true)
    let byLetter = realm.objects(Swift5Contact.self).sectioned(by: { String($0.name.prefix(1)) },
                                                               sortDescriptors: [SortDescriptor(keyPath: "name")])
    _ = byLetter.allKeys
    return sections.observe { change in
        switch change {
        case .initial(let all): _ = all.count
        case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
            _ = (deletions, insertions, modifications, sectionsToInsert, sectionsToDelete)
        }
    }
}
