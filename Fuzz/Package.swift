// swift-tools-version: 6.1
//
// libFuzzer targets for Courier's parsers, decoders and encoder. A separate package so that
// neither `swift build` nor `swift test` in the root package ever sees them.
//
// Build (the only flag combination that reliably gives coverage *and* ASan; see README.md):
//   swift build -c release --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address
import Foundation
import PackageDescription

/// The identity of a path dependency is the last component of its directory, lowercased. The
/// root checkout lives in directories with different names (a developer's checkout, a worktree, CI's clone),
/// so the identity is computed from where this manifest is rather than written down.
let rootIdentity = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Fuzz/
    .deletingLastPathComponent()  // the root package
    .lastPathComponent
    .lowercased()

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let courier: [Target.Dependency] = [
    .product(name: "CourierHTTP1", package: rootIdentity),
    .product(name: "CourierCore", package: rootIdentity),
]

let package = Package(
    name: "CourierFuzz",
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        // Helpers every fuzzer shares: reading configuration bytes, cutting input into pieces,
        // rendering events into comparable logs, reporting a failed property before trapping.
        .target(
            name: "FuzzSupport",
            dependencies: courier,
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzResponseParser",
            dependencies: ["FuzzSupport"] + courier,
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzChunkedDecoder",
            dependencies: ["FuzzSupport"] + courier,
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzContentDecoder",
            dependencies: ["FuzzSupport"] + courier,
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzRequestRoundTrip",
            dependencies: ["FuzzSupport"] + courier,
            swiftSettings: swiftSettings
        ),
        // The client layer: URL parsing, resolution and redirect decisions; the connection state
        // machine driven by bytes and events.
        .executableTarget(
            name: "FuzzURL",
            dependencies: ["FuzzSupport", .product(name: "CourierClient", package: rootIdentity)] + courier,
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzConnection",
            dependencies: ["FuzzSupport", .product(name: "CourierClient", package: rootIdentity)] + courier,
            swiftSettings: swiftSettings
        ),
        // The client layer: the SOCKS5 handshake against hostile proxy replies.
        .executableTarget(
            name: "FuzzSOCKSReply",
            dependencies: ["FuzzSupport", .product(name: "CourierClient", package: rootIdentity)] + courier,
            swiftSettings: swiftSettings
        ),
        // The Courier layer: Server-Sent Events (the text/event-stream parser), fed whole and cut.
        .executableTarget(
            name: "FuzzEventStream",
            dependencies: ["FuzzSupport", .product(name: "Courier", package: rootIdentity)],
            swiftSettings: swiftSettings
        ),
        // The Courier layer: the Set-Cookie parser and storage model, and curl's cookie files.
        .executableTarget(
            name: "FuzzCookies",
            dependencies: ["FuzzSupport", .product(name: "Courier", package: rootIdentity)],
            swiftSettings: swiftSettings
        ),
        // The Courier layer: response header values and bodies through every response serializer.
        .executableTarget(
            name: "FuzzResponseSerializers",
            dependencies: ["FuzzSupport", .product(name: "Courier", package: rootIdentity)],
            swiftSettings: swiftSettings
        ),
        // The Courier layer's HTTP cache: Cache-Control values from the network, and the disk
        // cache's entry files (which a crash may tear or a disk corrupt).
        .executableTarget(
            name: "FuzzCacheControl",
            dependencies: ["FuzzSupport", .product(name: "Courier", package: rootIdentity)],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzDiskCacheEntry",
            dependencies: ["FuzzSupport", .product(name: "Courier", package: rootIdentity)],
            swiftSettings: swiftSettings
        ),
    ]
)
