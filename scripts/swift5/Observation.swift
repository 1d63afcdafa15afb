import Foundation
import RealmLite

// Swift 5-mode user code for the observation API: Object.observe typed by
// the block, Swift key paths, Map.observe, observe(on: actor) and `changes`.

class Walker: Object {
    @Persisted var name = ""
    @Persisted var steps = 0
    @Persisted var scores: Map<String, Int>
}

actor StepCounter {
    var total = 0
}

@MainActor
func observeEverything(realm: Realm, walker: Walker, counter: StepCounter) async -> [NotificationToken] {
    var tokens = [
        walker.observe { change in
            if case .change(let walker, let properties) = change { print(walker.name, properties.map(\.name)) }
        },
        walker.observe(keyPaths: [\Walker.steps]) { (change: ObjectChange<Walker>) in _ = change },
        walker.scores.observe { change in
            if case .update(_, let deletions, let insertions, let modifications) = change {
                print(deletions, insertions, modifications)
            }
        },
    ]
    tokens.append(await realm.objects(Walker.self).observe(keyPaths: [\Walker.steps], on: counter) { counter, change in
        if case .update(let walkers, _, _, _) = change { counter.total = walkers.count }
    })
    tokens.append(await walker.observe(on: counter) { counter, change in
        if case .change(let walker, _) = change { counter.total = walker.steps }
    })
    tokens.append(await realm.observe(on: counter) { counter, _, _ in counter.total += 1 })
    return tokens
}

@MainActor
func readChanges(realm: Realm, walker: Walker) async {
    for await change in realm.objects(Walker.self).changes {
        if case .update(let walkers, _, let insertions, _) = change { print(walkers.count, insertions) }
    }
    for await change in walker.changes(keyPaths: ["steps"]) {
        if case .deleted = change { break }
    }
    for await _ in realm.changes { break }
}

/// Generic code: every RealmCollection has `changes` and the actor form.
func firstUpdate<C: RealmCollection>(of collection: C, on counter: StepCounter) async -> NotificationToken {
    await collection.observe(on: counter) { counter, change in
        if case .update(let items, _, _, _) = change { counter.total = items.count }
    }
}
