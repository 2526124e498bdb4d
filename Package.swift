// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Sluice",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "sluice", targets: ["sluice"]),
        .library(name: "Sluice", targets: ["Sluice"]),
        .library(name: "SluiceRun", targets: ["SluiceRun"]),
        .library(name: "SluiceMeasure", targets: ["SluiceMeasure"]),
        .library(name: "SluiceLoad", targets: ["SluiceLoad"]),
        .library(name: "SluiceTransports", targets: ["SluiceTransports"]),
        .library(name: "GStreamer", targets: ["GStreamer"]),
        .library(name: "SluiceFilterKit", targets: ["SluiceFilterKit"]),
        .library(name: "SluiceSignalling", targets: ["SluiceSignalling"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0")
    ],
    targets: [
        // Layer 1: the C libraries, as pkg-config sees them.
        .systemLibrary(
            name: "CGStreamer",
            pkgConfig:
                "gstreamer-webrtc-1.0 gstreamer-webrtc-nice-1.0 gstreamer-sdp-1.0 gstreamer-rtp-1.0 gstreamer-video-1.0 gstreamer-audio-1.0 gstreamer-app-1.0 gstreamer-base-1.0 gstreamer-1.0 nice",
            providers: [
                .apt([
                    "libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev",
                    "libgstreamer-plugins-bad1.0-dev", "libnice-dev"
                ])
            ]
        ),
        // Layer 1b: what Swift cannot call directly (variadics, cast macros). No logic.
        .target(name: "CGStreamerShim", dependencies: ["CGStreamer"]),
        // The API frame filters and sources are written against; no GStreamer. Built-in
        // plugins and third-party dynamic plugins depend on this only.
        .target(name: "SluiceFilterKit", dependencies: ["CSluicePluginABI"]),
        // The versioned C interface of dynamic filter plugins (header only).
        .target(name: "CSluicePluginABI"),
        // Signalling protocols as text (SDP, AppRTC rooms, WHIP/WHEP, camera API): no GStreamer,
        // testable alone; the server and the client transports build on it.
        // The room client speaks WebSocket through WSClient (SwiftNIO), not Hummingbird.
        .target(
            name: "SluiceSignalling",
            dependencies: [
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // CASTV2: the generated CastMessage code (Protos/, Scripts/generate-protos.sh).
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // XMPP: STARTTLS on the client stream, SCRAM's hashes.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto")
            ]),
        // What Swift cannot call to attach to a TUN device (ioctl is variadic). No logic; the
        // netem relay around it is the library's (Sources/SluiceMeasure/Netem).
        .target(name: "CSluiceTUN"),
        // Layer 2: safe Swift bindings.
        .target(name: "GStreamer", dependencies: ["CGStreamer", "CGStreamerShim"]),
        // Layer 3: the product, in modules whose dependencies point one way (docs/architecture.md
        // draws this graph from this file): the file model, graph and run; measuring above it;
        // load above that; `Sluice` re-exports them all.
        .target(
            name: "SluiceRun",
            dependencies: [
                "GStreamer",
                "SluiceFilterKit",
                "SluiceSignalling",
                "CSluicePluginABI",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
                // DTLS certificates (ECDSA P-256) for webrtcbin.
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                // `/metrics` in Prometheus text format, and swift-metrics (what Hummingbird
                // reports per route) fed into the same registry.
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics")
            ]
        ),
        // `sluice measure`: the two-process plan, reports and plots, the netem relay.
        .target(name: "SluiceMeasure", dependencies: ["SluiceRun", "GStreamer", "SluiceFilterKit", "CSluiceTUN"]),
        // `sluice load`: clients, adapters per transport kind, reports that merge across shards.
        .target(
            name: "SluiceLoad",
            dependencies: [
                "SluiceMeasure", "SluiceRun", "GStreamer", "SluiceSignalling", "SluiceFilterKit",
                // Distributions across clients that merge exactly across shards.
                .product(name: "Histogram", package: "hdrhistogram-swift")
            ]
        ),
        // The transport kinds that speak to other services (WHEP, WHIP, AppRTC, LAN, XMPP,
        // Janus, Cast, camera): one folder per kind with its transport, session, settings and
        // load adapter; a program registers them with `SluiceTransports.registerBuiltIns()`.
        .target(
            name: "SluiceTransports",
            dependencies: [
                "SluiceLoad", "SluiceMeasure", "SluiceRun", "GStreamer", "SluiceSignalling",
                .product(name: "Logging", package: "swift-log")
            ]
        ),
        .target(name: "Sluice", dependencies: ["SluiceRun", "SluiceMeasure", "SluiceLoad", "SluiceTransports"]),
        // Filters and sources that ship with Sluice (Plugins/), against SluiceFilterKit only.
        .target(name: "SluiceGrayscale", dependencies: ["SluiceFilterKit"], path: "Plugins/grayscale"),
        .target(name: "SluiceInvert", dependencies: ["SluiceFilterKit"], path: "Plugins/invert"),
        .target(name: "SluicePixelate", dependencies: ["SluiceFilterKit"], path: "Plugins/pixelate"),
        .target(name: "SluiceMotion", dependencies: ["SluiceFilterKit"], path: "Plugins/motion"),
        .target(name: "SluiceFramestamp", dependencies: ["SluiceFilterKit"], path: "Plugins/framestamp"),
        .target(name: "SluiceScene", dependencies: ["SluiceFilterKit"], path: "Plugins/scene"),
        .target(name: "SluiceText", dependencies: ["SluiceFilterKit"], path: "Plugins/text"),
        .target(name: "SluiceGain", dependencies: ["SluiceFilterKit"], path: "Plugins/gain"),
        .target(name: "SluiceLevel", dependencies: ["SluiceFilterKit"], path: "Plugins/level"),
        .target(name: "SluiceTone", dependencies: ["SluiceFilterKit"], path: "Plugins/tone"),
        .target(name: "SluiceAudioStamp", dependencies: ["SluiceFilterKit"], path: "Plugins/audiostamp"),
        .target(name: "SluiceFaults", dependencies: ["SluiceFilterKit"], path: "Plugins/faults"),
        .target(name: "SluiceSEI", dependencies: ["SluiceFilterKit"], path: "Plugins/sei"),
        // End-to-end encryption in LiveKit's frame format (AES-GCM, PBKDF2/HKDF from swift-crypto).
        .target(
            name: "SluiceE2EE",
            dependencies: [
                "SluiceFilterKit", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto")
            ], path: "Plugins/e2ee"),
        .target(
            name: "SluiceBuiltInPlugins",
            dependencies: [
                "SluiceGrayscale", "SluiceInvert", "SluicePixelate", "SluiceMotion",
                "SluiceFramestamp", "SluiceScene", "SluiceText", "SluiceGain", "SluiceLevel", "SluiceTone", "SluiceAudioStamp",
                "SluiceFaults", "SluiceE2EE", "SluiceSEI", "SluiceFilterKit"
            ],
            path: "Plugins/builtin"),
        // The HTTP/WebSocket server (`sluice serve`): rooms, WHIP/WHEP, camera API. Above the
        // library, so the core builds and tests without Hummingbird.
        // The control API: types and server stubs generated from openapi.yaml by
        // swift-openapi-generator (Scripts/generate-api.sh; the generated code is committed).
        .target(
            name: "SluiceControlAPI",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"]
        ),
        .target(
            name: "SluiceServer",
            dependencies: [
                "Sluice", "SluiceSignalling", "SluiceControlAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio")
            ]
        ),
        // Layer 4: the command line. It imports no C module and no bindings: GStreamer is
        // reached through the library. Every module it imports is listed here.
        .executableTarget(
            name: "sluice",
            dependencies: [
                "Sluice",
                "SluiceSignalling",
                "SluiceServer",
                "SluiceBuiltInPlugins",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log")
            ],
            // Not Sources/sluice: it and Sources/Sluice are one folder on a case-insensitive disk.
            path: "Sources/SluiceCLI",
            plugins: ["BuildInfo"]
        ),
        // The git commit `sluice --version` names (BuildTools/BuildInfo/plugin.swift).
        .plugin(name: "BuildInfo", capability: .buildTool(), path: "BuildTools/BuildInfo"),
        // Benchmarks (Benchmarks/README in the main README): filter cost against C and GStreamer.
        .target(name: "BenchCFilters", dependencies: ["CGStreamer"], path: "Benchmarks/CFilters"),
        .executableTarget(
            name: "sluice-filter-bench",
            dependencies: ["Sluice", "SluiceBuiltInPlugins", "GStreamer", "SluiceFilterKit", "BenchCFilters"],
            path: "Benchmarks/FilterBench"),
        .executableTarget(
            name: "sluice-audio-filter-bench",
            dependencies: ["Sluice", "SluiceBuiltInPlugins", "GStreamer", "SluiceFilterKit"],
            path: "Benchmarks/AudioFilterBench"),
        .executableTarget(
            name: "sluice-e2ee-bench",
            dependencies: ["Sluice", "SluiceBuiltInPlugins", "GStreamer", "SluiceFilterKit"],
            path: "Benchmarks/E2EEBench"),
        // Fixtures more than one test target uses (Tests/SluiceTestSupport): the repository
        // and built-binary locators, process running, loopback-only network namespaces, the
        // throwaway Prosody and Janus servers, RGB recordings. Foundation and XCTest only, so
        // a test target below the library (SluiceSignallingTests) takes no GStreamer with it.
        .target(name: "SluiceTestSupport", path: "Tests/SluiceTestSupport"),
        .testTarget(name: "GStreamerTests", dependencies: ["GStreamer", "CGStreamer"]),
        .testTarget(name: "SluiceFilterKitTests", dependencies: ["SluiceFilterKit", "CSluicePluginABI"]),
        .testTarget(name: "SluiceSignallingTests", dependencies: ["SluiceSignalling", "SluiceTestSupport"]),
        .testTarget(
            name: "SluiceServerTests",
            dependencies: [
                "SluiceServer", "SluiceSignalling", "Sluice", "GStreamer",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "JWTKit", package: "jwt-kit")
            ]
        ),
        .testTarget(
            name: "PluginTests",
            dependencies: [
                "SluiceBuiltInPlugins", "SluiceFilterKit", "SluiceGrayscale", "SluiceInvert", "SluicePixelate", "SluiceMotion",
                "SluiceFramestamp", "SluiceScene", "SluiceText", "SluiceGain", "SluiceLevel", "SluiceTone", "SluiceAudioStamp",
                "SluiceFaults", "SluiceE2EE", "SluiceSEI"
            ]),
        // Fixtures the library's test targets share: loading pipeline text (with the shipped
        // transport kinds registered), a fixed element catalog.
        .target(name: "SluiceRunTestSupport", dependencies: ["SluiceRun", "SluiceTransports"], path: "Tests/SluiceRunTestSupport"),
        .testTarget(
            name: "SluiceRunTests",
            dependencies: [
                "SluiceRun", "SluiceBuiltInPlugins", "SluiceTestSupport", "SluiceRunTestSupport", "GStreamer",
                "SluiceFilterKit", "SluiceSignalling", "SluiceTransports"
            ]),
        .testTarget(
            name: "SluiceMeasureTests",
            dependencies: ["SluiceMeasure", "SluiceRun", "SluiceTestSupport", "SluiceRunTestSupport", "GStreamer"]),
        .testTarget(
            name: "SluiceLoadTests",
            dependencies: [
                "SluiceLoad", "SluiceMeasure", "SluiceRun", "SluiceBuiltInPlugins", "SluiceTestSupport", "SluiceRunTestSupport",
                "GStreamer", "SluiceSignalling", "SluiceFilterKit", "SluiceTransports"
            ]),
        .testTarget(
            name: "SluiceTransportsTests",
            dependencies: ["SluiceTransports", "SluiceLoad", "SluiceRun", "SluiceRunTestSupport"]),
        // End-to-end: runs the built `sluice` binary, each run in its own network namespace.
        .testTarget(name: "SluiceCLITests", dependencies: ["sluice", "SluiceTestSupport"])
    ]
)
