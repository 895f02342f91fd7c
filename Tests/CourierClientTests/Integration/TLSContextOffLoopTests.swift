#if canImport(Glibc)
import Glibc
#endif
import CourierClient
import CourierPosix
import CourierTestSupport
@testable import CourierTLS
import Dispatch
import Testing

/// TLS contexts are built off the event loops: building one reads CA files and, once per
/// process, parses the system trust store, which would stall every connection on the loop.
@Suite(.serialized) struct TLSContextOffLoopTests {
    /// Runs `body` with a client on `group` (made here with `threads` loops) and checks for
    /// leaked descriptors once everything is shut down.
    static func withClient(
        threads: Int, configure: (inout HTTPClientConfiguration) -> Void,
        _ body: (HTTPClient, EventLoopGroup) throws -> Void
    ) throws {
        try FileDescriptors.exclusively {
            try FileDescriptors.expectNoLeakedDescriptors {
                let group = try EventLoopGroup(numberOfThreads: threads)
                defer { group.shutdown() }
                var configuration = HTTPClientConfiguration()
                configuration.timeouts.tlsHandshake = .seconds(60)
                configure(&configuration)
                let client = HTTPClient(configuration: configuration, eventLoopGroup: group)
                defer { client.shutdown() }
                try body(client, group)
            }
        }
    }

    static func helloServer(tls: ServerTLS?) throws -> ScriptedServer {
        let server = try ScriptedServer(tls: tls)
        server.route("/hello") { _, connection in try connection.respond(body: "hello") }
        return server
    }

    @Test func aTrustRootThatIsSlowToReadDoesNotStallTheLoop() throws {
        // The CA file is a FIFO: reading it blocks until the test writes ca.pem into it.
        let directory = try ScratchDirectory("fifo").path
        let fifo = directory + "/ca.pem"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo); rmdir(directory) }
        let ca = try #require(TestFiles.text(at: TestCertificates.path("ca.pem")))

        try Self.withClient(threads: 1, configure: { $0.tls.trustRoots = [.file(fifo)] }) { client, _ in
            let secureServer = try Self.helloServer(tls: ServerTLS())
            defer { secureServer.shutdown() }
            let plainServer = try Self.helloServer(tls: nil)
            defer { plainServer.shutdown() }

            // The writer's open() returns once the context build has opened the FIFO: from then on
            // the build waits for data, wherever it runs.
            let readerArrived = DispatchSemaphore(value: 0)
            let mayWrite = DispatchSemaphore(value: 0)
            let written = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                let fd = open(fifo, O_WRONLY)
                readerArrived.signal()
                mayWrite.wait()
                var text = ca
                _ = text.withUTF8 { write(fd, $0.baseAddress, $0.count) }
                close(fd)
                written.signal()
            }

            let secure = RecordingDelegate()
            client.execute(try get("\(secureServer.baseURL)/hello"), delegate: secure)
            #expect(readerArrived.wait(timeout: .now() + .seconds(20)) == .success, "the TLS context build never opened the CA file")

            // The client's only loop must still serve a plain request.
            let plain = RecordingDelegate()
            client.execute(try get("\(plainServer.baseURL)/hello"), delegate: plain)
            let served = plain.wait(seconds: 10)
            #expect(served, "the loop was blocked while the TLS context read its CA file")
            #expect(plain.bodyString == "hello")

            mayWrite.signal()
            #expect(written.wait(timeout: .now() + .seconds(20)) == .success)
            #expect(secure.wait(seconds: 20))
            #expect(secure.bodyString == "hello", "\(String(describing: secure.error))")
            if !served { _ = plain.wait(seconds: 20) }
        }
    }

    @Test func theSystemTrustStoreIsParsedOffTheLoops() throws {
        try Self.withClient(threads: 2, configure: {
            $0.tls.trustRoots = [.system, .file(TestCertificates.path("ca.pem"))]
        }) { client, group in
            let server = try Self.helloServer(tls: ServerTLS())
            defer { server.shutdown() }
            let result = run(client, try get("\(server.baseURL)/hello"))
            #expect(result.bodyString == "hello", "\(String(describing: result.error))")
            // The store is parsed once per process, by whoever needs it first; never by a loop
            // (this client's or an earlier one's: every loop is named `courier-loop…`).
            let loader = try SystemTrustStore.shared.get().loadingThreadName
            #expect(!loader.isEmpty, "the loading thread's name was not read")
            #expect(!loader.hasPrefix(eventLoopThreadPrefix), "the system trust store was parsed on an event loop (\(loader))")
            // The premise: this client's loops carry that prefix.
            #expect(group.loops.allSatisfy { $0.submitAndWait { currentThreadName() }.hasPrefix(eventLoopThreadPrefix) })
        }
    }
}
