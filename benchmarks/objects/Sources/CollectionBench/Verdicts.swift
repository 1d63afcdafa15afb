import Foundation

// Issue 16's bars for collections, judged on RealmLite's wall-time results
// (CPU time alongside): one line each, "met" or "missed", with the numbers.

func verdicts(_ results: Results, big: Int, quick: Bool) -> [String] {
    let rl = RealmLiteCollections.name
    let atSize = quick ? " — quick run: at \(big), not the bar's 1M" : ""
    var lines = ["Issue 16's bars (RealmLite, wall time):"]
    func bar(_ name: String, _ met: Bool, _ text: String) {
        lines.append("- \(name): " + (met ? "met: " : "**missed**: ") + text)
    }
    func both(_ m: Measured, _ unit: RowUnit) -> String {
        m.cpu.map { "\(unit.text(m.wall)) (cpu \(unit.text($0)))" } ?? unit.text(m.wall)
    }

    if let small = results.value(singleLabel(10), rl), let large = results.value(singleLabel(100_000), rl) {
        let r = large.wall / small.wall
        bar("one append in its own write on a List of 100k ≤ 2× on a List of 10", r <= 2,
            "\(String(format: "%.2f×", r)): \(both(large, .micros)) at 100k, \(both(small, .micros)) at 10")
    }
    let many = results.rows.filter { $0.label.hasPrefix(manyLabel(0).dropLast()) }
        .compactMap { row in results.value(row.label, rl).map { (row.label, $0) } }
    if let slowest = many.min(by: { $0.1.wall < $1.1.wall }) {
        bar("one append among many in one write ≥ 1M elements/s at any size", slowest.1.wall >= 1e6,
            "slowest \(both(slowest.1, .perSecond("elements"))) (\(slowest.0))")
    }
    if let access = results.value(indexLabel, rl) {
        bar("List index access ≤ 1 µs at 1M elements", access.wall <= 1, both(access, .micros) + atSize)
    }
    if let iterate = results.value(iterateObjectsLabel, rl) {
        bar("iterating a List of 1M objects ≥ 10M objects/s", iterate.wall >= 10e6,
            both(iterate, .perSecond("objects")) + atSize)
    }
    if let bytes = results.value(bytesLabel, rl) {
        bar("a List<Int> costs ≤ 12 bytes per element in the file", bytes.wall <= 12,
            String(format: "%.2f bytes (values 0…%d)", bytes.wall, big - 1) + atSize)
    }
    for (label, what) in [(containsLabel(big), "MutableSet contains"), (lookupLabel(big), "Map lookup")] {
        if let m = results.value(label, rl) {
            bar("\(what) at 1M entries ≥ 1M/s", m.wall >= 1e6, both(m, .perSecond("")) + atSize)
        }
    }
    return lines
}
