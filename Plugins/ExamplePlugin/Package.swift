// swift-tools-version: 6.0
// An example third-party filter plugin for Sluice: a package of its own, built as a shared
// library that Sluice loads at run time (`plugins: [path/to/libSluiceExampleFilters.so]`).
import PackageDescription

let package = Package(
    name: "SluiceExamplePlugin",
    products: [
        .library(name: "SluiceExampleFilters", type: .dynamic, targets: ["SluiceExampleFilters"])
    ],
    dependencies: [
        // A real plugin would depend on Sluice's repository at a version; this one sits inside it.
        .package(name: "Sluice", path: "../..")
    ],
    targets: [
        .target(name: "SluiceExampleFilters", dependencies: [.product(name: "SluiceFilterKit", package: "Sluice")])
    ]
)
