import Foundation
import RealmLite

// notify-bench: how long a commit takes to reach an observer, from another
// thread of this process and from another process (benchmarks/README.md,
// "Notifications").
//
//   notify-bench [--quick] [--ticks N] [--dir DIR]
//   notify-bench --child FILE N      (internal: the other process's writer)
//
// A Realm on the main thread observes a Results of Tick objects. A writer
// (a thread of this process, then a child process) commits N ticks, each
// carrying the monotonic clock read just before its write began, 5 ms
// apart; the observer notes, per tick it sees, the time from that stamp to
// its callback. The writer also times its own commits (durable: each one
// flushes), so "delivery" (latency minus the commit) is what the
// notification path adds. Nothing is checked but that every tick arrives.
//
// Then the cost of one one-object commit to an observer of a large Results
// (N objects, N growing): the CPU time the observer's thread spends per
// commit (refresh, delivery, the block) and the CPU time spent elsewhere in
// the process (the notifier computing the change), for a Results in key
// order (the change comes from the snapshot diff; a filtered one also gets
// its new rows from the notifier, which evaluates the query again for them)
// and a sorted one (the query runs again, the change is an element diff).
// Last, the same for a List of N Ints observed while each commit appends one
// element, and a MutableSet of N Ints and a Map of N entries while each
// commit inserts one: the change is folded from the commit's edits, so the
// notifier's cost should not grow with N.

final class Tick: Object {
    @Persisted var seq = 0
    @Persisted var startedAt = 0 // DispatchTime uptime nanoseconds, system-wide
}

final class TickList: Object {
    @Persisted var numbers: List<Int>
}

final class TickSet: Object {
    @Persisted var numbers: MutableSet<Int>
}

final class TickMap: Object {
    @Persisted var numbers: Map<String, Int>
}

func nowNanos() -> Int { Int(DispatchTime.now().uptimeNanoseconds) }

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("notify-bench: \(message)\n".utf8))
    exit(1)
}

/// Commits `count` ticks to `url`, 5 ms apart; returns each commit's duration (ns).
func writeTicks(_ url: URL, _ count: Int) throws -> [Int] {
    let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Tick.self]))
    var durations: [Int] = []
    for seq in 1...count {
        let start = nowNanos()
        try realm.write { realm.create(Tick.self, value: ["seq": seq, "startedAt": start]) }
        durations.append(nowNanos() - start)
        usleep(5000)
    }
    return durations
}

var arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--child" {
    guard arguments.count == 3, let count = Int(arguments.last!) else { fail("usage: --child FILE N") }
    let durations = try writeTicks(URL(fileURLWithPath: Array(arguments)[1]), count)
    print(durations.map(String.init).joined(separator: " "))
    exit(0)
}
var ticks = 200
var sizes = [5_000, 50_000, 500_000]
var dir = FileManager.default.temporaryDirectory
var quick = false
while let argument = arguments.popFirst() {
    switch argument {
    case "--quick":
        ticks = 20
        sizes = [5_000, 50_000]
        quick = true
    case "--ticks": ticks = Int(arguments.popFirst() ?? "") ?? ticks
    case "--dir": dir = URL(fileURLWithPath: arguments.popFirst() ?? ".")
    default: fail("unknown argument \(argument)")
    }
}
let url = dir.appendingPathComponent("notify-bench-\(getpid()).realm")
defer { _ = try? Realm.deleteFiles(for: Realm.Configuration(fileURL: url)) }

func percentile(_ values: [Int], _ p: Double) -> Double {
    let sorted = values.sorted()
    return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1e6
}

/// Observes the file on the main thread while `start` makes a writer commit
/// `ticks` ticks; returns the latency (ns) of each tick seen, and the
/// writer's commit durations.
@MainActor
func measure(_ label: String, _ start: @escaping @Sendable () throws -> [Int]) throws -> (latencies: [Int], commits: [Int]) {
    let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Tick.self]))
    try realm.write { realm.delete(realm.objects(Tick.self)) }
    let all = realm.objects(Tick.self).sorted(byKeyPath: "seq")
    var latencies: [Int] = []
    var lastSeen = 0
    let token = all.observe { change in
        guard case let .update(results, _, _, _) = change else { return }
        let arrived = nowNanos()
        for tick in results.filter("seq > %@", lastSeen) {
            latencies.append(arrived - tick.startedAt)
            lastSeen = max(lastSeen, tick.seq)
        }
    }
    defer { token.invalidate() }
    RunLoop.main.run(until: Date().addingTimeInterval(0.05)) // the initial call
    let box = LockedResult()
    Thread.detachNewThread { box.set(Result { try start() }) }
    let deadline = Date().addingTimeInterval(120)
    while lastSeen < ticks && Date() < deadline { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
    while box.get() == nil && Date() < deadline { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
    guard lastSeen == ticks, let commits = try box.get()?.get() else { fail("\(label): saw \(lastSeen) of \(ticks) ticks") }
    return (latencies, commits)
}

final class LockedResult: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Result<[Int], any Error>?
    func set(_ result: Result<[Int], any Error>) { lock.withLock { value = result } }
    func get() -> Result<[Int], any Error>? { lock.withLock { value } }
}

func report(_ label: String, _ m: (latencies: [Int], commits: [Int])) {
    let latency = (percentile(m.latencies, 0.5), percentile(m.latencies, 0.99))
    let commit = (percentile(m.commits, 0.5), percentile(m.commits, 0.99))
    print(String(format: "%-16@ ticks %4d | commit→callback p50 %6.2f ms  p99 %6.2f ms | the commit itself p50 %6.2f ms  p99 %6.2f ms",
                 label as NSString, m.latencies.count, latency.0, latency.1, commit.0, commit.1))
}

print("notify-bench: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ticks) durable one-object commits 5 ms apart")
let count = ticks, file = url
let sameProcess = try MainActor.assumeIsolated { try measure("same process") { try writeTicks(file, count) } }
report("same process", sameProcess)
let otherProcess = try MainActor.assumeIsolated {
    try measure("other process") {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--child", file.path, String(count)]
        let pipe = Pipe()
        child.standardOutput = pipe
        try child.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        guard child.terminationStatus == 0 else { fail("the child process failed") }
        return output.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}
report("other process", otherProcess)

func threadCPU() -> Int {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return t.tv_sec * 1_000_000_000 + t.tv_nsec
}

func processCPU() -> Int {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return t.tv_sec * 1_000_000_000 + t.tv_nsec
}

/// CPU ms per commit while a writer thread makes `ticks / 4` commits, each
/// waited for by the observer on the main thread (nothing coalesces): on
/// the observer's thread (refresh, delivery, the block), and elsewhere but
/// the writer (the notifier computing the change). `observe(initial,
/// updated)` starts the observer, whose block calls `initial` on its first
/// call and `updated` on each change; `commit(writer, i)` makes commit i.
@MainActor
func commitCost(_ label: String, _ configuration: Realm.Configuration,
                observe: (_ initial: @escaping () -> Void, _ updated: @escaping () -> Void) throws -> NotificationToken,
                commit: @escaping @Sendable (Realm, Int) throws -> Void) throws -> (observer: Double, offThread: Double) {
    let acknowledged = DispatchSemaphore(value: 0)
    var initial = false, updates = 0
    let token = try observe({ initial = true }, {
        updates += 1
        acknowledged.signal()
    })
    defer { token.invalidate() }
    while !initial { RunLoop.main.run(until: Date().addingTimeInterval(0.001)) }
    let commits = ticks / 4
    let writerCPU = LockedResult()
    let mainStart = threadCPU(), processStart = processCPU()
    Thread.detachNewThread {
        writerCPU.set(Result {
            let writer = try Realm(configuration: configuration)
            let start = threadCPU()
            for i in 0..<commits {
                try commit(writer, i)
                acknowledged.wait() // one change per delivery: nothing coalesces
            }
            return [threadCPU() - start]
        })
    }
    let deadline = Date().addingTimeInterval(300)
    // Each wait returns when a main-queue block ran (or after 50 ms): the
    // observer's thread is idle between deliveries, not polling.
    while writerCPU.get() == nil && Date() < deadline { _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.05)) }
    let mainCPU = threadCPU() - mainStart, processTotal = processCPU() - processStart
    guard updates == commits, let writer = try writerCPU.get()?.get().first else {
        fail("\(label): saw \(updates) of \(commits) changes")
    }
    let perCommit = { (nanos: Int) in Double(nanos) / Double(commits) / 1e6 }
    return (perCommit(mainCPU), perCommit(processTotal - mainCPU - writer))
}

/// Per one-object commit to `n` objects observed through a Results (sorted
/// or in key order): CPU ms on the observer's thread, CPU ms elsewhere but
/// the writer, and the commit-to-callback latency (p50 ms).
@MainActor
func observerCost(_ n: Int, kind: ResultsKind) throws -> (observer: Double, offThread: Double, latency: Double) {
    let file = dir.appendingPathComponent("notify-cost-\(getpid()).realm")
    defer { _ = try? Realm.deleteFiles(for: Realm.Configuration(fileURL: file)) }
    let configuration = Realm.Configuration(fileURL: file, objectTypes: [Tick.self])
    let realm = try Realm(configuration: configuration)
    try realm.write {
        realm.delete(realm.objects(Tick.self))
        for seq in 0..<n { realm.create(Tick.self, value: ["seq": seq, "startedAt": 0]) }
    }
    let all = realm.objects(Tick.self), filtered = all.filter("seq >= 0")
    let results = kind == .all ? all : kind == .filtered ? filtered : filtered.sorted(byKeyPath: "seq", ascending: false)
    var latencies: [Int] = []
    let cost = try commitCost("observer cost at \(n)", configuration, observe: { initial, updated in
        results.observe { change in
            switch change {
            case .initial: initial()
            case .update(_, _, _, let modifications):
                if modifications.count == 1 { latencies.append(nowNanos() - results[modifications[0]].startedAt) }
                updated()
            case .error: break
            }
        }
    }, commit: { writer, i in
        let target = writer.objects(Tick.self).filter("seq == %@", (i * 7919) % n).first!
        try writer.write { target.startedAt = nowNanos() }
    })
    guard latencies.count == ticks / 4 else { fail("observer cost at \(n): \(latencies.count) changes of one object") }
    return (cost.observer, cost.offThread, percentile(latencies, 0.5))
}

print("one-object commits observed through a Results of N objects (CPU ms per commit: the observer's thread | elsewhere, the notifier | commit→callback p50)")
enum ResultsKind: String, CaseIterable {
    case all = "every object", filtered = "filtered (key order)", sorted = "filtered and sorted"
}

for kind in ResultsKind.allCases {
    for n in sizes {
        let cost = try MainActor.assumeIsolated { try observerCost(n, kind: kind) }
        print(String(format: "%-22@ N %8d | observer thread %7.3f ms | elsewhere %8.3f ms | latency p50 %8.2f ms",
                     kind.rawValue as NSString, n, cost.observer, cost.offThread, cost.latency))
    }
}

/// The collections whose one-element commits are timed.
enum CollectionKind: String, CaseIterable {
    case list = "List<Int> append", set = "MutableSet<Int> insert", map = "Map<String, Int> insert"
}

/// Per one-element commit (an append, or an insert of a new element or
/// key) to a collection of `n` elements: CPU ms on the observer's thread,
/// CPU ms elsewhere but the writer (the notifier).
@MainActor
func collectionObserverCost(_ n: Int, _ kind: CollectionKind) throws -> (observer: Double, offThread: Double) {
    let file = dir.appendingPathComponent("notify-collection-\(getpid()).realm")
    defer { _ = try? Realm.deleteFiles(for: Realm.Configuration(fileURL: file)) }
    let configuration = Realm.Configuration(fileURL: file, objectTypes: [TickList.self, TickSet.self, TickMap.self])
    let realm = try Realm(configuration: configuration)
    try realm.write {
        realm.deleteAll() // the file of the previous size may still be there
        switch kind {
        case .list: realm.create(TickList.self).numbers.append(objectsIn: 0..<n)
        case .set: realm.create(TickSet.self).numbers.insert(objectsIn: 0..<n)
        case .map:
            let map = realm.create(TickMap.self).numbers
            for i in 0..<n { map["k\(i)"] = i }
        }
    }
    var seen = 0
    let label = "\(kind.rawValue) at \(n)"
    let cost = try commitCost(label, configuration, observe: { initial, updated in
        func count(_ insertions: Int) {
            seen += insertions
            updated()
        }
        switch kind {
        case .list:
            return realm.objects(TickList.self).first!.numbers.observe { change in
                if case .initial = change { initial() } else if case .update(_, _, let insertions, _) = change { count(insertions.count) }
            }
        case .set:
            return realm.objects(TickSet.self).first!.numbers.observe { change in
                if case .initial = change { initial() } else if case .update(_, _, let insertions, _) = change { count(insertions.count) }
            }
        case .map:
            return realm.objects(TickMap.self).first!.numbers.observe { change in
                if case .initial = change { initial() } else if case .update(_, _, let insertions, _) = change { count(insertions.count) }
            }
        }
    }, commit: { writer, i in
        switch kind {
        case .list:
            let numbers = writer.objects(TickList.self).first!.numbers
            try writer.write { numbers.append(i) }
        case .set:
            let numbers = writer.objects(TickSet.self).first!.numbers
            try writer.write { numbers.insert(n + i) }
        case .map:
            let numbers = writer.objects(TickMap.self).first!.numbers
            try writer.write { numbers["new\(i)"] = i }
        }
    })
    guard seen == ticks / 4 else { fail("\(label): saw \(seen) insertions") }
    return cost
}

print("one-element commits observed through a collection of N elements (CPU ms per commit: the observer's thread | elsewhere, the notifier)")
for kind in CollectionKind.allCases {
    for n in quick ? [1_000, 100_000] : [1_000, 100_000, 1_000_000] {
        let cost = try MainActor.assumeIsolated { try collectionObserverCost(n, kind) }
        print(String(format: "%-24@ N %8d | observer thread %7.3f ms | elsewhere %8.3f ms",
                     kind.rawValue as NSString, n, cost.observer, cost.offThread))
    }
}
