// RealmLite demo: the Person/Dog model from RealmSwift's docs, end to end.
// Run with `make demo`.
import Foundation
import RealmLite

class Dog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
}

class Person: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name = ""
    @Persisted var dogs: List<Dog>
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("realmlite-demo-\(getpid())")
try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("demo.realm"),
                                        objectTypes: [Person.self, Dog.self])

do {
    let realm = try Realm(configuration: configuration)

    // Create: unmanaged objects are plain Swift objects until added.
    let ann = Person()
    ann.name = "Ann"
    let rex = Dog()
    rex.name = "Rex"
    rex.age = 3
    ann.dogs.append(rex)
    try realm.write {
        realm.add(ann)
        realm.create(Dog.self, value: ["name": "Fido", "age": 1])
    }
    print("Added \(ann.name) (id \(ann._id)) with \(ann.dogs.count) dog; the Realm holds \(realm.objects(Dog.self).count) dogs")

    // Read: objects(_:) is live and reads every property from the file.
    for dog in realm.objects(Dog.self) {
        print("  \(dog.name), age \(dog.age), owned by \(dog.owners.map(\.name))")
    }

    // Update inside a write transaction.
    try realm.write {
        rex.age += 1
        if let fido = realm.objects(Dog.self).last { ann.dogs.append(fido) }
    }
    print("Rex is now \(rex.age); Ann has \(ann.dogs.map(\.name))")

    // Errors are typed: a duplicate primary key cancels the write and throws.
    do {
        try realm.write {
            let twin = Person()
            twin._id = ann._id
            realm.add(twin)
        }
    } catch let error as Realm.Error {
        print("As expected: \(error.code) — \(error.message)")
    }

    // Delete: links to the deleted dog disappear from Ann's list.
    try realm.write {
        realm.delete(rex)
    }
    print("Deleted Rex; Ann's dogs: \(ann.dogs.map(\.name)); rex.isInvalidated = \(rex.isInvalidated)")
} catch {
    print("Demo failed: \(error)")
    exit(1)
}

// Reopen: everything is in the file.
do {
    let realm = try Realm(configuration: configuration)
    let people = realm.objects(Person.self)
    print("Reopened: \(people.count) person, \(realm.objects(Dog.self).count) dog")
    if let ann = people.first, let found = realm.object(ofType: Person.self, forPrimaryKey: ann._id) {
        print("  found by primary key: \(found.name) with dogs \(found.dogs.map(\.name))")
    }
} catch {
    print("Reopening failed: \(error)")
    exit(1)
}

// Threads: a live Results with a change notification, a background thread
// that receives Ann through a ThreadSafeReference, a frozen snapshot, and an
// async write whose block and completion run here, on the main thread.
do {
    let realm = try Realm(configuration: configuration)
    let dogs = realm.objects(Dog.self).sorted(byKeyPath: "name")
    let token = dogs.observe { change in
        switch change {
        case .initial(let dogs):
            print("Observing \(dogs.count) dog(s)")
        case .update(let dogs, let deletions, let insertions, let modifications):
            print("Dogs changed: now \(dogs.map(\.name)); deleted \(deletions), inserted \(insertions), modified \(modifications)")
        case .error(let error):
            print("Notification error: \(error)")
        }
    }
    let snapshot = dogs.freeze()
    let reference = ThreadSafeReference(to: realm.objects(Person.self).first!)
    let handedOver = DispatchSemaphore(value: 0)
    Thread {
        do {
            let background = try Realm(configuration: configuration)
            if let ann = background.resolve(reference) {
                try background.write { ann.dogs.append(Dog(value: ["name": "Bella", "age": 2])) }
                print("Background thread added Bella to \(ann.name)'s dogs")
            }
        } catch {
            print("Background write failed: \(error)")
        }
        handedOver.signal()
    }.start()
    handedOver.wait()
    RunLoop.main.run(until: Date().addingTimeInterval(0.1)) // autorefresh + notification

    var done = false
    realm.writeAsync({
        realm.create(Dog.self, value: ["name": "Ace", "age": 5])
    }, onComplete: { error in
        print("Async write \(error.map { "failed: \($0)" } ?? "is durable"); frozen snapshot still has \(snapshot.map(\.name))")
        done = true
    })
    while !done { RunLoop.main.run(until: Date().addingTimeInterval(0.05)) }
    RunLoop.main.run(until: Date().addingTimeInterval(0.1)) // the last notification
    token.invalidate()
} catch {
    print("Threading demo failed: \(error)")
    exit(1)
}
