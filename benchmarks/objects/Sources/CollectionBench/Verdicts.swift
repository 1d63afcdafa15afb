import Foundation

// Issue 16's bars for collections, judged on RealmLite's wall-time results
// (CPU time alongside): one line each, "met" or "missed", with the numbers.

/// The rows' labels: how the table names them and the bars find them.
enum RowLabel {
    static func single(_ size: Int) -> String { "one append in its own write, List of \(size)" }
    static let manyPrefix = "appends one at a time in one write, to "
    static func many(_ size: Int) -> String { manyPrefix + "\(size)" }
    static func notLast(_ size: Int) -> String { many(size) + ", not the last list" }
    static func index(_ size: Int) -> String { "index access, List of \(size)" }
    static func iterateInts(_ size: Int) -> String { "iterate a List<Int> of \(size)" }
    static func iterateObjects(_ size: Int) -> String { "iterate a List of \(size) objects, reading one property" }
    static func contains(_ size: Int) -> String { "MutableSet<Int> contains, \(size) elements" }
    static func lookup(_ size: Int) -> String { "Map<String, Int> lookup, \(size) entries" }
    static func bytes(_ size: Int) -> String { "file bytes per List<Int> element (\(size), compacted)" }
    static func largeBytes(_ size: Int) -> String { "… elements i × (2^48 + 12345), wrapping (\(size), compacted)" }
}

func verdicts(_ results: Results, big: Int, singleBig: Int, quick: Bool) -> [String] {
    let rl = RealmLiteCollections.name
    let atSize = quick ? " — quick run: at \(big), not the bar's 1M" : ""
    var lines = ["Issue 16's bars (RealmLite, wall time):"]
    func bar(_ name: String, _ met: Bool, _ text: String) {
        lines.append("- \(name): " + (met ? "met: " : "**missed**: ") + text)
    }
    func both(_ m: Measured, _ unit: RowUnit) -> String {
        m.cpu.map { "\(unit.text(m.wall)) (cpu \(unit.text($0)))" } ?? unit.text(m.wall)
    }

    if let small = results.value(RowLabel.single(10), rl), let large = results.value(RowLabel.single(singleBig), rl) {
        let r = large.wall / small.wall
        bar("one append in its own write on a List of 100k ≤ 2× on a List of 10", r <= 2,
            "\(String(format: "%.2f×", r)): \(both(large, .micros)) at \(singleBig), \(both(small, .micros)) at 10"
                + (singleBig == 100_000 ? "" : " — quick run: not the bar's 100k"))
    }
    let many = results.rows.filter { $0.label.hasPrefix(RowLabel.manyPrefix) }
        .compactMap { row in results.value(row.label, rl).map { (row.label, $0) } }
    if let slowest = many.min(by: { $0.1.wall < $1.1.wall }) {
        bar("one append among many in one write ≥ 1M elements/s at any size", slowest.1.wall >= 1e6,
            "slowest \(both(slowest.1, .perSecond("elements"))) (\(slowest.0))")
    }
    if let access = results.value(RowLabel.index(big), rl) {
        bar("List index access ≤ 1 µs at 1M elements", access.wall <= 1, both(access, .micros) + atSize)
    }
    if let iterate = results.value(RowLabel.iterateObjects(big), rl) {
        bar("iterating a List of 1M objects ≥ 10M objects/s", iterate.wall >= 10e6,
            both(iterate, .perSecond("objects")) + atSize)
    }
    if let bytes = results.value(RowLabel.bytes(big), rl) {
        bar("a List<Int> costs ≤ 12 bytes per element in the file", bytes.wall <= 12,
            String(format: "%.2f bytes (values 0…%d)", bytes.wall, big - 1) + atSize)
    }
    for (label, what) in [(RowLabel.contains(big), "MutableSet contains"), (RowLabel.lookup(big), "Map lookup")] {
        if let m = results.value(label, rl) {
            bar("\(what) at 1M entries ≥ 1M/s", m.wall >= 1e6, both(m, .perSecond("")) + atSize)
        }
    }
    return lines.count > 1 ? lines : []
}
