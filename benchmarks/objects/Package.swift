// swift-tools-version: 6.1
import Foundation
import PackageDescription

// The root package's identity is its directory's name (a clone may be
// called anything).
let rootPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

// The objects-tier benchmark: RealmLite (the root package, by path) against
// GRDB 7 and raw SQLite (GRDB's GRDBSQLite module: the system libsqlite3).
// A package of its own, so that the RealmLite product never depends on GRDB.
let package = Package(
    name: "ObjectsBench",
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // Bytes written and flushes of the process (libc wrappers), shared
        // with the engine tier's C harness.
        .target(name: "IOCount"),
        .target(name: "BenchModels", dependencies: [.product(name: "RealmLite", package: rootPackage)]),
        // The peers' connections as every bench here opens them (GRDB's
        // queue, raw SQLite's prepared statements): apart from BenchModels,
        // so that realmlite-open links RealmLite alone.
        .target(
            name: "PeerDatabases",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")]
        ),
        .executableTarget(name: "realmlite-open", dependencies: ["BenchModels"], path: "Sources/RealmLiteOpen"),
        // RealmLite's query paths against each other (no other engine).
        .executableTarget(
            name: "query-bench",
            dependencies: ["BenchModels", .product(name: "RealmLite", package: rootPackage)],
            path: "Sources/QueryBench"
        ),
        // What geoWithin costs over many points.
        .executableTarget(
            name: "geo-bench",
            dependencies: ["BenchModels", .product(name: "RealmLite", package: rootPackage)],
            path: "Sources/GeoBench"
        ),
        // How long a commit takes to reach an observer (this process, another one).
        .executableTarget(
            name: "notify-bench",
            dependencies: [.product(name: "RealmLite", package: rootPackage)],
            path: "Sources/NotifyBench"
        ),
        // What a schema change costs as the data grows, beside SQLite's.
        .executableTarget(
            name: "migration-bench",
            dependencies: [
                "BenchModels",
                .product(name: "RealmLite", package: rootPackage),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Sources/MigrationBench"
        ),
        // Full-text search beside SQLite's FTS5 on the same documents.
        .executableTarget(
            name: "fts-bench",
            dependencies: [
                "BenchModels",
                .product(name: "RealmLite", package: rootPackage),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Sources/FullTextBench"
        ),
        // What List / MutableSet / Map changes and reads cost as they grow,
        // beside GRDB and raw SQLite with join tables.
        .executableTarget(
            name: "collection-bench",
            dependencies: [
                "BenchModels",
                "PeerDatabases",
                .product(name: "RealmLite", package: rootPackage),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Sources/CollectionBench"
        ),
        .executableTarget(
            name: "objects-bench",
            dependencies: [
                "BenchModels",
                "IOCount",
                "PeerDatabases",
                .product(name: "RealmLite", package: rootPackage),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Sources/ObjectsBench"
        ),
    ]
)
