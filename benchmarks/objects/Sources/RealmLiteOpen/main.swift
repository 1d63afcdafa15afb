import BenchModels
import Foundation

// realmlite-open DIR ID: the memory/cold-open child for RealmLite, a binary
// with nothing but RealmLite in it, so that its peak RSS is what an app
// opening the big database would see.
let arguments = CommandLine.arguments
guard arguments.count == 3, let id = Int(arguments[2]) else {
    FileHandle.standardError.write("usage: realmlite-open DIR ID\n".data(using: .utf8)!)
    exit(2)
}
reportOpen { try Profile.openAndLookup(URL(fileURLWithPath: arguments[1]), id: id) }
