import BenchModels
import Foundation

// realmlite-open DIR ID: the memory/cold-open child for RealmLite, a binary
// with nothing but RealmLite in it, so that its peak RSS is what an app
// opening the big database would see.
// realmlite-open --people DIR N LOOKUPS: the scale tier's child, the same
// for N Person objects and LOOKUPS primary-key lookups.
let arguments = CommandLine.arguments
if arguments.count == 5, arguments[1] == "--people", let n = Int(arguments[3]), let lookups = Int(arguments[4]) {
    reportPersonLookups(directory: URL(fileURLWithPath: arguments[2]), count: n, lookups: lookups)
}
guard arguments.count == 3, let id = Int(arguments[2]) else {
    FileHandle.standardError.write("usage: realmlite-open DIR ID | realmlite-open --people DIR N LOOKUPS\n".data(using: .utf8)!)
    exit(2)
}
// The directory's URL is made before the clock starts, as the peers' child
// (objects-bench --child) makes it: a process's first URL costs a third of
// a millisecond of one-time set-up that is not the database's.
let directory = URL(fileURLWithPath: arguments[1])
reportOpen { try Profile.openAndLookup(directory, id: id) }
