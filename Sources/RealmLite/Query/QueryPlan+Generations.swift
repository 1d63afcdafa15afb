import CStorage

// The engine's filters over a class whose records span generations
// (RecordGenerations.swift): one RecordTest per generation, each reading
// the columns where that generation's layout has them (RecordTest.forGeneration),
// so that a query after a migration that kept the records stays in C
// instead of upgrading every record it looks at.

/// The RecordTest of each generation of a class, by generation byte.
struct GenerationTests {
    let tests: [RecordTest]

    init(_ test: RecordTest, _ generations: RecordGenerations) {
        let current = generations.layouts.last!
        tests = generations.layouts.indices.map { g in
            g == generations.layouts.count - 1 ? test
                : test.forGeneration(UInt8(g), generations.layouts[g], current: current, defaults: generations.defaults)
        }
    }

    /// Indexes (ascending) of the values of `values[0..<count]` that pass,
    /// into `matches`; nil if a value is one no filter can read.
    func match(_ values: UnsafePointer<cs_val>, _ count: Int, into matches: UnsafeMutablePointer<UInt32>) -> Int? {
        // Most batches hold one generation: one engine call.
        let first = values[0].size > 0 ? values[0].data!.load(as: UInt8.self) : 0
        var uniform = true
        for i in 0..<count where values[i].size == 0 || values[i].data!.load(as: UInt8.self) != first {
            uniform = false
            break
        }
        if uniform {
            guard Int(first) < tests.count else { return nil }
            return tests[Int(first)].withFilter { filterRecords($0, values, count, matches) }
        }
        // Mixed: each generation's values through its own test.
        var found: [UInt32] = []
        var members: [cs_val] = [], positions: [UInt32] = []
        members.reserveCapacity(count)
        positions.reserveCapacity(count)
        var local = [UInt32](repeating: 0, count: count)
        var covered = 0
        for g in tests.indices {
            members.removeAll(keepingCapacity: true)
            positions.removeAll(keepingCapacity: true)
            for i in 0..<count where values[i].size > 0 && Int(values[i].data!.load(as: UInt8.self)) == g {
                members.append(values[i])
                positions.append(UInt32(i))
            }
            if members.isEmpty { continue }
            covered += members.count
            let matched = members.withUnsafeBufferPointer { buffer in
                local.withUnsafeMutableBufferPointer { out in
                    tests[g].withFilter { filterRecords($0, buffer.baseAddress!, buffer.count, out.baseAddress!) }
                }
            }
            guard let matched else { return nil }
            for m in local.prefix(matched) { found.append(positions[Int(m)]) }
        }
        guard covered == count else { return nil } // a generation the class does not have
        found.sort()
        for (k, index) in found.enumerated() { matches[k] = index }
        return found.count
    }
}
