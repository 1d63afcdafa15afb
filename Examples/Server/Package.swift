// swift-tools-version: 6.2
import PackageDescription

// A separate package so that Hummingbird and SwiftNIO never become
// dependencies of RealmLite itself: RealmLite is referenced by path.
let package = Package(
    name: "NotesServer",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "RealmLite", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
    ],
    targets: [
        // The HTTP JSON API.
        .executableTarget(
            name: "NotesServer",
            dependencies: [
                .product(name: "RealmLite", package: "RealmLite"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        // The load generator: raw NIO HTTP/1.1 keep-alive connections, so
        // the client spends as little of the two cores as it can.
        .executableTarget(
            name: "NotesLoad",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
