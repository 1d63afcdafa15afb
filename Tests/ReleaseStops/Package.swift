// swift-tools-version: 6.2
import PackageDescription

// The stop scenarios (StopScenarioTests) in a release build: -O builds
// behave differently (preconditionFailure drops its message there), and
// apps ship -O. A package of its own so that a release build compiles the
// library and these three test files (links to Tests/RealmLiteTests), not
// every test target: `make stops-release`.
let package = Package(
    name: "ReleaseStops",
    dependencies: [.package(name: "RealmLite", path: "../..")],
    targets: [
        .testTarget(
            name: "ReleaseStopTests",
            dependencies: [.product(name: "RealmLite", package: "RealmLite")],
            path: "Tests/ReleaseStopTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
