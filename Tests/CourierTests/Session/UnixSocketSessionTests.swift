import Courier
import CourierTestSupport
import FoundationEssentials
import Testing

/// A session's data task over a Unix-domain socket (`http+unix://<encoded path>/…`, what curl's
/// `--unix-socket` does): the request reaches the server on the socket with `Host: localhost`.
@Suite(.serialized) struct UnixSocketSessionTests {
    @Test func aDataTaskOverAUnixSocket() throws {
        let path = FileManager.default.temporaryDirectory.path + "/courier-session-\(UInt32.random(in: 0...UInt32.max)).sock"
        let server = try ScriptedServer(address: .unix(path))
        defer { server.shutdown() }
        server.route("/hello") { _, connection in try connection.respond(body: "over unix") }
        let encoded = path.split(separator: "/", omittingEmptySubsequences: false).joined(separator: "%2F")
        let url = try HTTPURL("http+unix://\(encoded)/hello")
        try FileDescriptors.exclusively {
            let manager = try SessionManager()
            defer { invalidateAndWait(manager) }
            let response = try #require(AsyncCall<DataResponse<Data>, Never> { await manager.data(for: Request(url: url)) }.wait(seconds: 30)).get()
            #expect(response.error == nil, "\(String(describing: response.error))")
            #expect(response.response?.statusCode == 200)
            #expect(response.value.map { String(decoding: $0, as: UTF8.self) } == "over unix")
            #expect(server.requests.first?.header("Host") == "localhost")
        }
    }
}
