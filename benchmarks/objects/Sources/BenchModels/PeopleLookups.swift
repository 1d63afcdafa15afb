import Foundation
import RealmLite

// The scale tier's memory child: a fresh process opens a Person database
// whose page cache the parent has just dropped, then looks objects up by
// primary key. RealmLite's runs in realmlite-open (RealmLite alone), the
// peers' in objects-bench; both report through `reportLookups`.

extension Person {
    /// The objects tier's Person file in `directory` (RealmLiteEngine's).
    public static func peopleConfiguration(_ directory: URL) -> Realm.Configuration {
        .init(fileURL: directory.appendingPathComponent("people.realm"), objectTypes: [Person.self, NamedItem.self])
    }
}

/// The id of lookup `k` among `n` objects: a multiplicative hash, so that
/// parent and child agree on the keys without passing them, and
/// consecutive lookups land far apart in the file.
public func scaleLookupID(_ k: Int, below n: Int) -> Int {
    Int(((UInt64(k + 1) &* 0x9E37_79B9_7F4A_7C15) >> 11) % UInt64(n))
}

/// Runs `open`, then `lookups` primary-key lookups (`lookup` returns the
/// length of the name it read), and prints one JSON object: the open's and
/// the first lookup's time, the lookup rate, the checksum, RSS before, peak
/// (VmHWM) after the first lookup and at the end, and the end's resident
/// anonymous and file-mapped memory (a lookup maps file pages, which count
/// in RSS but are the page cache's, not the heap's). Exits.
public func reportLookups(count n: Int, lookups: Int, open: () throws -> Void, lookup: (Int) throws -> Int) -> Never {
    func clock() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
    var result: [String: Any] = ["rss_before_kib": processMemoryKiB("VmRSS")]
    do {
        let start = clock()
        try open()
        let opened = clock()
        var sum = try lookup(scaleLookupID(0, below: n))
        let first = clock()
        result["rss_first_kib"] = processMemoryKiB("VmHWM")
        for k in 1..<max(1, lookups) { sum &+= try lookup(scaleLookupID(k, below: n)) }
        let end = clock()
        result["open_ms"] = (opened - start) * 1000
        result["first_lookup_ms"] = (first - opened) * 1000
        result["lookups_per_s"] = Double(max(1, lookups - 1)) / max(end - first, 1e-9)
        result["checksum"] = sum
    } catch {
        FileHandle.standardError.write("lookup child: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
    for (key, field) in [("rss_kib", "VmHWM"), ("rss_anon_kib", "RssAnon"), ("rss_file_kib", "RssFile")] {
        result[key] = processMemoryKiB(field)
    }
    FileHandle.standardOutput.write(try! JSONSerialization.data(withJSONObject: result))
    exit(0)
}

/// realmlite-open's side of the scale tier's memory child.
public func reportPersonLookups(directory: URL, count n: Int, lookups: Int) -> Never {
    var realm: Realm?
    reportLookups(count: n, lookups: lookups,
                  open: { realm = try Realm(configuration: Person.peopleConfiguration(directory)) },
                  lookup: { realm!.object(ofType: Person.self, forPrimaryKey: $0)!.name.utf8.count })
}
