// swift-tools-version: 6.1
import PackageDescription

/// Settings every Swift target shares: Swift 6 language mode, strict concurrency.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

/// The release `courier` is linked by lld (the toolchain's) with four settings that halve the memory
/// the binary itself keeps resident (Benchmarks/RESULTS.md, "the third pass"):
/// - relative relocations packed (RELR, glibc 2.36+): 46,000 of them, 1.1 MB read at every start
///   as RELA, are 9 KB;
/// - the functions a run executes laid out first, in the order it first executes them
///   (Link/courier.order, written by scripts/courier-symbol-order.py): the kernel maps code in
///   64 KiB windows around each page touched, so scattered hot functions kept 8 MiB of text
///   resident, packed about 4. A stale or missing name is ignored.
/// - libstdc++, which the Swift runtime needs, linked from its static archive
///   (Link/static-libstdc++ holds a linker script named like the shared library): its 4,300
///   symbol relocations were a fifth of a start's instructions, and it kept 0.8 MiB resident.
/// - no dynamic symbol table of its own: the toolchain's static-stdlib link arguments export every
///   symbol of the program's own modules (`-export-dynamic`), 7,100 names that nothing loads
///   against, and the dynamic linker, which searches the executable first for every symbol a
///   library needs, kept 550 KiB of them resident (`.dynstr`, `.dynsym`, `.gnu.hash`).
///   `--no-export-dynamic` comes later on the link line and wins; 500 names are left, the ones
///   shared libraries need.
/// Debug builds (the tests' `courier`) link as usual.
let courierReleaseLink: [LinkerSetting] = [
    .unsafeFlags([
        "-use-ld=lld",
        "-L\(Context.packageDirectory)/Sources/CourierCLI/Link/static-libstdc++",
        "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
        "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/CourierCLI/Link/courier.order",
        "-Xlinker", "--no-warn-symbol-ordering",
        "-Xlinker", "--no-export-dynamic",
    ], .when(configuration: .release)),
]

let package = Package(
    name: "Courier",
    products: [
        .library(name: "CourierCore", targets: ["CourierCore"]),
        .library(name: "CourierHTTP1", targets: ["CourierHTTP1"]),
        .library(name: "CourierPosix", targets: ["CourierPosix"]),
        .library(name: "CourierTLS", targets: ["CourierTLS"]),
        .library(name: "CourierClient", targets: ["CourierClient"]),
        .library(name: "Courier", targets: ["Courier"]),
        // The command line: a curl-compatible client and `courier bench` (docs/CLI.md).
        .executable(name: "courier", targets: ["CourierCLI"]),
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

        .target(
            name: "CourierPosix",
            dependencies: ["CourierCore", "CCourierLinux"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CourierTLS",
            dependencies: ["CourierCore", "CCourierOpenSSL"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CourierClient",
            dependencies: ["CourierCore", "CourierHTTP1", "CourierPosix", "CourierTLS"],
            swiftSettings: swiftSettings
        ),

        // The AFNetworking layer: sessions, tasks, serializers, multipart, pinning. The only
        // module that may import FoundationEssentials (URL, Data, Codable), and nothing more.
        // It sees CourierClient's public API only (which re-exports the lower-layer types it is
        // made of); `make linkage` refuses an import of CourierHTTP1, CourierTLS or CourierPosix.
        .target(
            name: "Courier",
            dependencies: ["CourierClient", "CourierCore"],
            swiftSettings: swiftSettings
        ),

        // `make demo`: loopback servers of its own and the Courier layer's main jobs, with
        // readable output. The servers parse requests with CourierHTTP1 and speak TLS with
        // CourierTLS; zlib gzips their bodies and gunzips a download to check it.
        .executableTarget(
            name: "CourierDemo",
            dependencies: ["Courier", "CourierCore", "CourierHTTP1", "CourierTLS", "CCourierZlib"],
            exclude: ["Certificates"],
            swiftSettings: swiftSettings
        ),

        // `courier`: the command line, on the library's public API only (`Courier`, which
        // re-exports CourierClient's). Flags, exit codes and `-w` follow curl; `bench` follows
        // wrk and wrk2.
        .executableTarget(
            name: "CourierCLI",
            dependencies: [
                // No swift-argument-parser: both commands read their own arguments (curl's way,
                // and wrk's: BenchArgumentReader says why).
                "Courier", "CourierCore",
                // zlib: `bench --hdr-log` deflates HdrHistogram's compressed histogram encoding.
                "CCourierZlib",
            ],
            exclude: ["Link"],
            swiftSettings: swiftSettings,
            linkerSettings: courierReleaseLink
        ),

        // `make soak`: idempotent GETs through HTTPClient and SessionManager against nginx, a
        // faulty upstream and a fault-injecting relay (Soak/run.sh); checks docs/RELIABILITY.md.
        .executableTarget(
            name: "CourierSoak",
            dependencies: ["Courier", "CourierClient", "CourierCore", "CourierHTTP1", "CourierTestSupport"],
            swiftSettings: swiftSettings
        ),

        // Test-only: scripted loopback servers (plain and TLS) and the certificate matrix.
        // Not a product; only test targets depend on it.
        .target(
            name: "CourierTestSupport",
            dependencies: ["CourierCore", "CourierHTTP1", "CCourierOpenSSL", "CCourierLinux", "CCourierZlib"],
            exclude: ["Certificates"],
            swiftSettings: swiftSettings
        ),

        // A tiny consumer used by `make test` to prove the lower layers do not link Foundation.
        .executableTarget(
            name: "CourierLinkageProbe",
            dependencies: ["CourierCore", "CourierHTTP1", "CourierPosix", "CourierTLS", "CourierClient"],
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
            dependencies: ["CourierHTTP1", "CourierCore", "CourierTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CourierPosixTests",
            dependencies: ["CourierPosix", "CourierCore", "CourierTestSupport", "CCourierLinux"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CourierTLSTests",
            dependencies: ["CourierTLS", "CourierCore", "CourierTestSupport", "CCourierOpenSSL"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CourierTestSupportTests",
            dependencies: ["CourierTestSupport", "CourierHTTP1", "CourierCore", "CCourierOpenSSL"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CourierClientTests",
            // CCourierZlib: the decompression tests compress their response bodies at run time.
            dependencies: ["CourierClient", "CourierHTTP1", "CourierCore", "CourierPosix", "CourierTLS", "CourierTestSupport", "CCourierZlib"],
            swiftSettings: swiftSettings
        ),
        // The `courier` executable, run as a child process against loopback servers.
        .testTarget(
            name: "CourierCLITests",
            dependencies: ["CourierCLI", "Courier", "CourierCore", "CourierTestSupport"],
            swiftSettings: swiftSettings
        ),
        // Imports only `Courier`: proves that one import is enough to configure everything.
        .testTarget(
            name: "CourierImportTests",
            dependencies: ["Courier"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CourierTests",
            dependencies: ["Courier", "CourierClient", "CourierHTTP1", "CourierCore", "CourierTLS", "CourierTestSupport", "CCourierZlib"],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
    ]
)
