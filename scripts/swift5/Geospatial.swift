// A user's Swift 5 language-mode code against RealmLite (type-checked by
// scripts/check_swift5.sh): geospatial queries as RealmSwift's
// documentation writes them.
import Foundation
import RealmLite

public class Location: EmbeddedObject {
    @Persisted private var coordinates: List<Double>
    @Persisted private var type: String = "Point"

    public var latitude: Double { return coordinates[1] }
    public var longitude: Double { return coordinates[0] }

    convenience init(_ latitude: Double, _ longitude: Double) {
        self.init()
        coordinates.append(objectsIn: [longitude, latitude])
    }
}

class Store: Object {
    @Persisted var name = ""
    @Persisted var location: Location?
}

func storesNearby(_ realm: Realm) -> [String] {
    let box = GeoBox(bottomLeft: (55.6281, 12.0826), topRight: (55.6762, 12.5684))!
    let polygon = GeoPolygon(outerRing: [(55.6281, 12.0826), (55.6761, 12.0826), (55.6761, 12.5684), (55.6281, 12.0826)],
                             holes: [(55.64, 12.1), (55.65, 12.1), (55.65, 12.2), (55.64, 12.1)])!
    let circle = GeoCircle(center: (55.67, 12.56), radius: .kilometers(10)!)!
    let inBox = realm.objects(Store.self).where { $0.location.geoWithin(box) }
    let inPolygon = realm.objects(Store.self).filter("location IN %@", polygon)
    let inCircle = realm.objects(Store.self).filter("location GEOWITHIN %@", circle)
    let literal = realm.objects(Store.self).filter("location GEOWITHIN geoCircle([12.56, 55.67], 0.001)")
    let point: GeoPoint? = GeoPoint(latitude: 1, longitude: 2)
    let miles = Distance.miles(5)?.asKilometers() ?? 0
    let custom = GeoCircle(center: point!, radiusInRadians: 0.1)
    return (inBox.map(\.name) + inPolygon.map(\.name) + inCircle.map(\.name) + literal.map(\.name))
        + ["\(miles)", "\(custom == nil)", "\(GeoPolygon(outerRing: [GeoPoint(latitude: 0, longitude: 0)!]) == nil)"]
}
