// async-http-client (swift-server) driver for the loopback comparison (`Client/run.py`).
//
//   AHCBench --url URL --requests N --concurrency C [--decode-gzip] [--insecure] [--ca FILE]
//
// One HTTPClient on a one-thread event loop group (the runner pins the process to one core), a
// connection pool whose per-host limit is C (the default, 8, would cap c=32/256), HTTP/1.1 only
// (nginx is not offered h2 anyway). C tasks each run their share of the N requests back to back;
// bodies are streamed through the response's async sequence and only counted.
import AsyncHTTPClient
import ClientBenchSupport
import NIOCore
import NIOPosix
import NIOSSL

let options = DriverOptions.parseOrExit()

var configuration = HTTPClient.Configuration()
configuration.connectionPool = .init(
    idleTimeout: .seconds(600), concurrentHTTP1ConnectionsPerHostSoftLimit: options.concurrency)
configuration.httpVersion = .http1Only
configuration.timeout = .init(connect: .seconds(10), read: .seconds(120))
if options.decodeGzip {
    configuration.decompression = .enabled(limit: .none)
}
if options.url.hasPrefix("https:") {
    var tls = TLSConfiguration.makeClientConfiguration()
    if let caFile = options.caFile {
        do {
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
        } catch {
            writeStandardError("AHCBench: cannot read --ca \(caFile): \(error)\n")
            exit(2)
        }
    } else if options.insecure {
        tls.certificateVerification = .none
    }
    configuration.tlsConfiguration = tls
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let client = HTTPClient(eventLoopGroup: group, configuration: configuration)

var request = HTTPClientRequest(url: options.url)
request.method = .GET
if options.decodeGzip {
    // AHC's decompression decodes what arrives but does not ask for it.
    request.headers.add(name: "Accept-Encoding", value: "gzip")
}

/// Runs `count` requests back to back; returns (bytes, errors).
@Sendable func worker(_ client: HTTPClient, _ request: HTTPClientRequest, _ count: Int) async -> (Int, Int) {
    var bytes = 0
    var errors = 0
    for _ in 0..<count {
        do {
            let response = try await client.execute(request, timeout: .seconds(600))
            if response.status != .ok { errors += 1 }
            for try await chunk in response.body {
                bytes += chunk.readableBytes
            }
        } catch {
            if errors == 0 { writeStandardError("AHCBench: \(error)\n") }
            errors += 1
        }
    }
    return (bytes, errors)
}

let start = ContinuousClock.now
let (bytes, errors) = await withTaskGroup(of: (Int, Int).self) { [client, request, options] group in
    for index in 0..<options.concurrency {
        let share = options.share(ofWorker: index)
        group.addTask { await worker(client, request, share) }
    }
    var total = (0, 0)
    for await (bytes, errors) in group {
        total.0 += bytes
        total.1 += errors
    }
    return total
}
let seconds = secondsSince(start)

try await client.shutdown()
try await group.shutdownGracefully()
DriverReport(requests: options.requests, bytes: bytes, seconds: seconds, errors: errors).emit()
