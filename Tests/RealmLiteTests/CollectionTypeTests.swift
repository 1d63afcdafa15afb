import Foundation
import XCTest
@testable import RealmLite

/// Collections of every element type round-trip boundary values.
final class CollectionTypeTests: RealmTestCase {
    let uuid = UUID()
    let objectId = ObjectId.generate()
    let big = String(repeating: "é", count: 100_000)

    func fill(_ o: EveryCollection) {
        o.bools.append(objectsIn: [true, false])
        o.int8s.append(objectsIn: [.min, 0, .max])
        o.int16s.append(objectsIn: [.min, .max])
        o.int32s.append(objectsIn: [.min, .max])
        o.int64s.append(objectsIn: [.min, -1, .max])
        o.floats.append(objectsIn: [.nan, -0.0, .infinity])
        o.doubles.append(objectsIn: [.nan, .leastNonzeroMagnitude, -.infinity])
        o.strings.append(objectsIn: ["", big, "\u{0}"])
        o.datas.append(objectsIn: [Data(), Data(repeating: 0, count: 70_000)])
        o.dates.append(objectsIn: [.distantPast, .distantFuture])
        o.uuids.append(uuid)
        o.objectIds.append(objectId)
        o.decimals.append(objectsIn: ["1e-30", Decimal128(Decimal.nan)])
        o.moods.append(objectsIn: [.sad, .sleepy])
        o.optInts.append(objectsIn: [nil, .min, nil])
        o.optUUIDs.append(objectsIn: [uuid, nil])
        o.optDatas.append(objectsIn: [nil, Data(), Data([1])])
        o.intSet.insert(objectsIn: [3, 1, 3, .max])
        o.optStringSet.insert(objectsIn: [nil, "", nil, "a"])
        o.dateSet.insert(.distantPast)
        o.decimalMap["pi"] = "3.14159"
        o.optDateMap["none"] = .some(nil)
        o.optDateMap["past"] = .distantPast
        o.boolMap["t"] = true
        let geo = Geo()
        geo.lat = -90
        o.embeddedList.append(geo)
        let other = Geo()
        other.lon = 180
        o.embeddedMap["x"] = other
    }

    func check(_ o: EveryCollection, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(Array(o.bools), [true, false], file: file, line: line)
        XCTAssertEqual(Array(o.int8s), [.min, 0, .max], file: file, line: line)
        XCTAssertEqual(Array(o.int16s), [.min, .max], file: file, line: line)
        XCTAssertEqual(Array(o.int32s), [.min, .max], file: file, line: line)
        XCTAssertEqual(Array(o.int64s), [.min, -1, .max], file: file, line: line)
        XCTAssertTrue(o.floats[0].isNaN, file: file, line: line)
        XCTAssertEqual(o.floats[1].sign, .minus, file: file, line: line)
        XCTAssertEqual(o.floats[2], .infinity, file: file, line: line)
        XCTAssertTrue(o.doubles[0].isNaN, file: file, line: line)
        XCTAssertEqual(Array(o.doubles.dropFirst()), [.leastNonzeroMagnitude, -.infinity], file: file, line: line)
        XCTAssertEqual(Array(o.strings), ["", big, "\u{0}"], file: file, line: line)
        XCTAssertEqual(Array(o.datas), [Data(), Data(repeating: 0, count: 70_000)], file: file, line: line)
        XCTAssertEqual(Array(o.dates), [.distantPast, .distantFuture], file: file, line: line)
        XCTAssertEqual(Array(o.uuids), [uuid], file: file, line: line)
        XCTAssertEqual(Array(o.objectIds), [objectId], file: file, line: line)
        XCTAssertEqual(o.decimals[0], "1e-30", file: file, line: line)
        XCTAssertTrue(o.decimals[1].isNaN, file: file, line: line)
        XCTAssertEqual(Array(o.moods), [.sad, .sleepy], file: file, line: line)
        XCTAssertEqual(Array(o.optInts), [nil, .min, nil], file: file, line: line)
        XCTAssertEqual(Array(o.optUUIDs), [uuid, nil], file: file, line: line)
        XCTAssertEqual(Array(o.optDatas), [nil, Data(), Data([1])], file: file, line: line)
        XCTAssertEqual(Set(o.intSet), [1, 3, .max], file: file, line: line)
        XCTAssertEqual(o.optStringSet.count, 3, file: file, line: line)
        XCTAssertTrue(o.optStringSet.contains(nil), file: file, line: line)
        XCTAssertEqual(Array(o.dateSet), [.distantPast], file: file, line: line)
        XCTAssertEqual(o.decimalMap["pi"], "3.14159", file: file, line: line)
        XCTAssertEqual(o.optDateMap["none"], .some(nil), file: file, line: line)
        XCTAssertEqual(o.optDateMap["past"], .distantPast, file: file, line: line)
        XCTAssertTrue(o.optDateMap["missing"] == nil, file: file, line: line)
        XCTAssertEqual(o.boolMap["t"], true, file: file, line: line)
        XCTAssertEqual(o.embeddedList.first?.lat, -90, file: file, line: line)
        XCTAssertEqual(o.embeddedMap["x"]??.lon, 180, file: file, line: line)
    }

    func testEveryElementTypeRoundTripsThroughReopen() throws {
        let types = allTestTypes + [EveryCollection.self]
        try withRealm(types) { realm in
            let unmanaged = EveryCollection()
            fill(unmanaged)
            check(unmanaged)
            try realm.write {
                realm.add(unmanaged)
                fill(realm.create(EveryCollection.self)) // filled through managed collections
            }
            check(unmanaged)
        }
        try withRealm(types) { realm in
            let all = realm.objects(EveryCollection.self)
            XCTAssertEqual(all.count, 2)
            check(all[0])
            check(all[1])
            try realm.write { realm.delete(all[0]) }
            XCTAssertEqual(realm.core.schemaState.byName["Geo"].map { realm.core.count(of: $0) }, 2, "embedded elements go with their owner")
        }
    }
}
