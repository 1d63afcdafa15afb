// swift-tools-version: 6.2
import PackageDescription

// One product, RealmLite, with no dependency beyond the Swift toolchain.
// CLMDB (the reference backend) is used by tests only.
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
    ],
    swiftLanguageModes: [.v6],
    cLanguageStandard: .c11
)
