import Courier
import CourierCore
import CourierTestSupport
import FoundationEssentials
import Synchronization
import Testing

/// `retainsDataTaskBodies` off: a data task streams its body to the data hook and keeps none,
/// so a body past `maximumInMemoryBodySize` succeeds.
@Suite(.serialized) struct StreamingDataTaskTests {
    @Test func aDataTaskThatKeepsNoBodyStreamsItToTheHook() throws {
        try withSession(configure: { configuration in
            configuration.retainsDataTaskBodies = false
            configuration.maximumInMemoryBodySize = 1024
        }) { manager, server in
            let body = [UInt8](repeating: 0x62, count: 256 * 1024)
            server.route("/big") { _, connection in try connection.respond(body: body) }
            let streamed = Mutex(0)
            manager.updateHooks { hooks in
                hooks.dataTaskDidReceiveData = { _, data in streamed.withLock { $0 += data.count } }
            }
            let response = try #require(AsyncCall<DataResponse<Data>, Never> {
                await manager.data(for: Request(url: url(server, "/big")))
            }.wait(seconds: 30)).get()
            #expect(response.error == nil, "\(String(describing: response.error))")
            #expect(response.response?.statusCode == 200)
            #expect(response.data?.isEmpty ?? true)
            #expect(streamed.withLock { $0 } == body.count)
        }
    }
}
