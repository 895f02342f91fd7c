// swift-tools-version: 6.1
// Courier's HTTP/1.1 response parser against llhttp (swift-nio's vendored copy, called through its
// C API), with package-benchmark. Run from the repository root: `make bench-parser`.
import Foundation
import PackageDescription

// A path dependency is identified by its directory's name, which is "main", a worktree's name or
// CI's clone name depending on where this package sits, so derive it from this file's location.
let rootIdentity = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .deletingLastPathComponent()
    .lastPathComponent
    .lowercased()

let package = Package(
    name: "CourierBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
        // "MallocInterposer" only: the default traits add the Swift runtime interposer, which
        // the local package mirror does not have (shared/research/feasibility.md §7).
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // For llhttp: CNIOLLHTTP is not a product, but depending on NIOHTTP1 builds and links it
        // and makes its module map visible, so `import CNIOLLHTTP` works.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The loopback client comparison (Client/README.md): AHCBench's peer.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
    ],
    targets: [
        // The corpus and the two parser drivers, shared by the benchmarks and the profiling driver.
        .target(
            name: "ParserCorpus",
            dependencies: [
                .product(name: "CourierHTTP1", package: rootIdentity),
                .product(name: "CourierCore", package: rootIdentity),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "ParserBenchmarks",
            dependencies: [
                "ParserCorpus",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ParserBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // A plain loop over one case for perf or callgrind (see README.md).
        .executableTarget(
            name: "ParserProfile",
            dependencies: ["ParserCorpus"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The loopback client comparison (Client/README.md, `make bench-client`): one driver
        // executable per client, all with the command line and JSON line in ClientBenchSupport.
        .target(
            name: "ClientBenchSupport",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "AHCBench",
            dependencies: [
                "ClientBenchSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "CourierBench",
            dependencies: ["ClientBenchSupport", .product(name: "CourierClient", package: rootIdentity)],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The 1 GiB body through the async `AsyncSequence` API and the delegate API, side by side.
        .executableTarget(
            name: "CourierStreamBench",
            dependencies: [
                .product(name: "CourierClient", package: rootIdentity),
                .product(name: "CourierCore", package: rootIdentity),
                .product(name: "CourierHTTP1", package: rootIdentity),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "CourierSessionBench",
            dependencies: ["ClientBenchSupport", .product(name: "Courier", package: rootIdentity)],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "URLSessionBench",
            dependencies: ["ClientBenchSupport"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // zlib's inflate alone on the W5 body, in memory: the ceiling for decoding clients.
        .executableTarget(
            name: "ZlibInflateBench",
            linkerSettings: [.linkedLibrary("z")]
        ),
        // Runs one client and reports its own rusage (its peak RSS without the runner's).
        .executableTarget(name: "RusageSpawn"),
    ]
)
