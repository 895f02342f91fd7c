import Courier
import CourierCore
import CourierTestSupport
import FoundationEssentials
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The session's `configuration.client.timeouts.connect` bounds its requests' connects (each
/// request carries the transport's connect and TLS timeouts, not the library's defaults).
@Suite(.serialized) struct SessionTransportTimeoutTests {
    @Test func theConfiguredConnectTimeoutApplies() throws {
        // The descriptor lock is held from the first socket on: another test counting
        // descriptors meanwhile would take this test's server and fillers for its leak.
        try FileDescriptors.exclusively { try Self.connectTimeoutApplies() }
    }

    private static func connectTimeoutApplies() throws {
        // A server that accepts nothing, its one-slot queue filled: further SYNs are dropped.
        let server = try ScriptedServer(backlog: 0)
        defer { server.shutdown() }
        server.pauseAccepting()
        let fillers = (0..<3).map { _ in LoopbackConnect.started(port: server.port) }
        defer { for descriptor in fillers where descriptor >= 0 { close(descriptor) } }
        try withSessionHoldingDescriptorLock(configure: { $0.client.timeouts.connect = .milliseconds(300) }) { manager, _ in
            let started = ContinuousClock.now
            let response = try #require(AsyncCall<DataResponse<Data>, Never> {
                await manager.data(for: Request(url: url(server, "/")))
            }.wait(seconds: 30)).get()
            let elapsed = ContinuousClock.now - started
            #expect((response.error?.underlying as? ClientError)?.code == .connectTimeout)
            #expect(response.error?.phase == .connect)
            #expect(elapsed < .seconds(5), "the library's 10 s default applied instead")
        }
    }
}
