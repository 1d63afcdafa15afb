// swift-tools-version: 6.2
import PackageDescription

// The library product, RealmLite, has no dependency beyond the Swift
// toolchain. CLMDB (the reference backend) is used by tests only.
// swift-argument-parser is used only by the `realmlite` command-line tool
// (its own executable target, which reads files through CStorage directly):
// no target of the RealmLite product depends on it, and SwiftPM resolves a
// client's dependencies by the targets it uses, so an app that depends on
// RealmLite never fetches or builds it.
let package = Package(
    name: "RealmLite",
    products: [
        .library(name: "RealmLite", targets: ["RealmLite"]),
        .executable(name: "realmlite", targets: ["realmlite"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
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
        // schema, dump. Reads files read-only through CStorage.
        .executableTarget(
            name: "realmlite",
            dependencies: [
                "CStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/realmlite"
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
