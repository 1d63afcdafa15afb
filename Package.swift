// swift-tools-version: 6.2
import PackageDescription

// One product, RealmLite, with no dependency beyond the Swift toolchain.
// CLMDB (the reference backend) is used by tests only.
// The `realmlite` command-line tool is an executable target of this package
// but not a product, and parses its own arguments: a package dependency here
// (swift-argument-parser was tried) is fetched and built by every app that
// depends on RealmLite, and so is an executable product. Build it with
// `swift build --product realmlite` or `make install`.
let package = Package(
    name: "RealmLite",
    products: [
        .library(name: "RealmLite", targets: ["RealmLite"]),
    ],
    targets: [
        .target(
            name: "CStorage",
            path: "Sources/CStorage",
            cSettings: [
                .define("_GNU_SOURCE"),
                .unsafeFlags(["-Wall", "-Wextra", "-Werror", "-O2"]),
            ]
        ),
        .systemLibrary(
            name: "CLMDB",
            path: "Sources/CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        .target(
            name: "RealmLite",
            dependencies: ["CStorage"],
            path: "Sources/RealmLite"
        ),
        .executableTarget(
            name: "RealmLiteDemo",
            dependencies: ["RealmLite"],
            path: "Examples/Demo"
        ),
        // The command-line tool (README, "Command-line tool"): info, check,
        // schema, dump, copy, compact, import. Calls CStorage directly (import
        // writes records in the object layer's format: RecordEncoder.swift).
        .executableTarget(
            name: "realmlite",
            dependencies: ["CStorage"],
            path: "Sources/realmlite"
        ),
        // The object-level fuzz harness (fuzz/Makefile `fuzz-objects` builds
        // it with libFuzzer; `make test` replays its corpus). Not a product.
        .executableTarget(
            name: "objectfuzz",
            dependencies: ["RealmLite", "CStorage"],
            path: "fuzz/objects"
        ),
        .testTarget(
            name: "CStorageTests",
            dependencies: ["CStorage", "CLMDB"],
            path: "Tests/CStorageTests"
        ),
        .testTarget(
            name: "RealmLiteTests",
            dependencies: ["RealmLite", "CStorage"],
            path: "Tests/RealmLiteTests"
        ),
        // Runs the built realmlite executable on files made with RealmLite.
        .testTarget(
            name: "RealmLiteCLITests",
            dependencies: ["RealmLite", "CStorage", "realmlite"],
            path: "Tests/RealmLiteCLITests"
        ),
    ],
    swiftLanguageModes: [.v6],
    cLanguageStandard: .c11
)
