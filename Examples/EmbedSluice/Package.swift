// swift-tools-version: 6.0
// A program that embeds Sluice: its own package, depending on the repository's by path. It
// adds a capture kind and a transport kind of its own through Sluice's public API, builds its
// pipelines in code, and runs a call between two processes (README.md here).
import PackageDescription

let package = Package(
    name: "EmbedSluice",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Sluice", path: "../..")],
    targets: [
        .target(
            name: "EmbedKinds",
            dependencies: [.product(name: "SluiceRun", package: "Sluice"), .product(name: "GStreamer", package: "Sluice")]),
        .executableTarget(name: "embed-call", dependencies: ["EmbedKinds", .product(name: "SluiceRun", package: "Sluice")]),
        .testTarget(name: "EmbedKindsTests", dependencies: ["EmbedKinds", .product(name: "SluiceRun", package: "Sluice")])
    ]
)
