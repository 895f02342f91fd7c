import CourierTestSupport
import Testing

extension SupportTests {
    @Test func connectTunnelReachesTheServer() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.route("/through") { request, connection in
            try connection.respond(body: "tunnelled \(request.target)")
        }
        let proxy = try ConnectProxy()
        defer { proxy.shutdown() }
        let client = try RawClient(port: proxy.port)
        try client.send("CONNECT 127.0.0.1:\(server.port) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
        let established = try client.readResponse(method: .CONNECT)
        #expect(established.status == 200)
        let response = try client.get("/through")
        #expect(response.bodyString == "tunnelled /through")
        #expect(try client.get("/through").status == 200)  // keep-alive inside the tunnel
        #expect(proxy.connectTargets == ["127.0.0.1:\(server.port)"])
        #expect(server.requests.map(\.indexOnConnection) == [0, 1])
    }

    @Test func connectRequiresProxyAuthorizationWhenConfigured() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.route("/") { _, connection in try connection.respond(body: "in") }
        let proxy = try ConnectProxy(credentials: (user: "user", password: "pass"))
        defer { proxy.shutdown() }
        let client = try RawClient(port: proxy.port)
        let target = "127.0.0.1:\(server.port)"
        try client.send("CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n\r\n")
        let refused = try client.readResponse(method: .CONNECT)
        #expect(refused.status == 407)
        #expect(refused.header("Proxy-Authenticate") == "Basic realm=\"courier-test\"")
        #expect(server.connectionsAccepted == 0)

        // Same connection, now with credentials ("user:pass" in base64).
        try client.send("CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\nProxy-Authorization: Basic dXNlcjpwYXNz\r\n\r\n")
        #expect(try client.readResponse(method: .CONNECT).status == 200)
        #expect(try client.get("/").bodyString == "in")
        #expect(proxy.authorizations == [nil, "Basic dXNlcjpwYXNz"])
        #expect(proxy.rejectedForAuthentication == 1)
        #expect(proxy.connectTargets == [target, target])
    }

    @Test func absoluteFormRequestsAreForwarded() throws {
        let server = try ScriptedServer()
        defer { server.shutdown() }
        server.route("/plain") { request, connection in
            try connection.respond(body: "\(request.target) \(request.header("Proxy-Authorization") ?? "no-auth") \(request.bodyString)")
        }
        let proxy = try ConnectProxy(credentials: (user: "user", password: "pass"))
        defer { proxy.shutdown() }
        let client = try RawClient(port: proxy.port)
        let absolute = "http://127.0.0.1:\(server.port)/plain?q=1"
        try client.send("POST \(absolute) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nProxy-Authorization: Basic dXNlcjpwYXNz\r\nContent-Length: 4\r\n\r\nbody")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.bodyString == "/plain?q=1 no-auth body")
        #expect(proxy.forwardedTargets == [absolute])
        #expect(server.requests.first?.method == "POST")
    }

    @Test func proxyShutdownClosesOpenTunnels() throws {
        try FileDescriptors.expectNoLeakedDescriptors {
            let server = try ScriptedServer()
            server.route("/") { _, connection in try connection.respond(body: "x") }
            let proxy = try ConnectProxy()
            let client = try RawClient(port: proxy.port)
            try client.send("CONNECT 127.0.0.1:\(server.port) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse(method: .CONNECT).status == 200)
            #expect(try client.get("/").status == 200)
            #expect(proxy.openTunnels == 1)
            proxy.shutdown()
            #expect(client.readToEnd().0.isEmpty)
            #expect(proxy.openTunnels == 0)
            server.shutdown()
            client.close()
        }
    }
}
