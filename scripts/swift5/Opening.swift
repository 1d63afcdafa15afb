import Foundation
import RealmLite

// Swift 5-mode user code for opening and logging, written as for
// RealmSwift: Realm.open with downloadBeforeOpen, asyncOpen with a callback
// that captures non-Sendable state, asyncRefresh, Logger.shared.

class Note: Object {
    @Persisted var text = ""
}

final class NotesScreen {
    var realm: Realm?
    var failure: Error?
    var task: Realm.AsyncOpenTask?

    func load(_ configuration: Realm.Configuration) {
        task = Realm.asyncOpen(configuration: configuration, callbackQueue: .main) { result in
            switch result {
            case .success(let realm): self.realm = realm
            case .failure(let error): self.failure = error
            }
        }
    }

    func stop() { task?.cancel() }
}

@MainActor
func openNotes(_ url: URL) async throws -> Int {
    var configuration = Realm.Configuration(fileURL: url, encryptionKey: nil, schemaVersion: 1)
    configuration.objectTypes = nil
    let realm = try await Realm.open(configuration: configuration, downloadBeforeOpen: .always)
    let again = try await Realm(configuration: configuration, downloadBeforeOpen: .once)
    let changed = await realm.asyncRefresh()
    return realm.objects(Note.self).count + again.objects(Note.self).count + (changed ? 1 : 0)
}

func installLogger() {
    Logger.shared = Logger(level: .info) { level, message in
        print("Realm Log - \(level): \(message)")
    }
    Logger.shared.level = .debug
    let categorized = Logger(level: .detail) { level, category, message in
        print(category.rawValue, level, message)
    }
    if Logger.shared.level == .all { Logger.shared = categorized }
    let behaviours: [Realm.OpenBehavior] = [.never, .always, .once]
    _ = behaviours
}
