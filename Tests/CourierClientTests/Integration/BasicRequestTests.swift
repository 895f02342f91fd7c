import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Testing

@Suite(.serialized) struct BasicRequestTests {
    @Test func getAndKeepAliveReuse() throws {
        try withClientAndServer { client, server in
            server.route("/hello") { request, connection in
                try connection.respond(status: 200, headers: [("Content-Type", "text/plain")], body: "hello \(request.indexOnConnection)")
            }
            let first = run(client, try get("\(server.baseURL)/hello"))
            #expect(first.head?.status == 200)
            #expect(first.bodyString == "hello 0")
            #expect(first.metrics?.reusedConnection == false)
            #expect(first.metrics?.connectEnd != nil)
            let second = run(client, try get("\(server.baseURL)/hello"))
            #expect(second.bodyString == "hello 1")
            #expect(second.metrics?.reusedConnection == true)
            #expect(second.metrics?.connectEnd == nil)
            #expect(server.connectionsAccepted == 1)
            #expect(second.events == [.headSent, .head(200), .body(7), .finished])
        }
    }
}
