// swift-tools-version: 6.1
import PackageDescription

/// Settings every Swift target shares: Swift 6 language mode, strict concurrency.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "Courier",
    products: [
        .library(name: "CourierCore", targets: ["CourierCore"]),
        .library(name: "CourierHTTP1", targets: ["CourierHTTP1"]),
    ],
    targets: [
        // C system modules: module maps and headers only, nothing compiled.
        .systemLibrary(
            name: "CCourierOpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CCourierZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(name: "CCourierLinux"),

        // Library modules.
        .target(
            name: "CourierCore",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CourierHTTP1",
            dependencies: ["CourierCore", "CCourierZlib"],
            swiftSettings: swiftSettings
        ),

        // A tiny consumer used by `make test` to prove the lower layers do not link Foundation.
        .executableTarget(
            name: "CourierLinkageProbe",
            dependencies: ["CourierCore", "CourierHTTP1"],
            swiftSettings: swiftSettings
        ),

        // Tests (Swift Testing).
        .testTarget(
            name: "CourierCoreTests",
            dependencies: ["CourierCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CourierHTTP1Tests",
            dependencies: ["CourierHTTP1", "CourierCore"],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
    ]
)
