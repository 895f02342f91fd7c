#if canImport(Glibc)
import Glibc
#endif
import CourierClient
import CourierCore
import CourierHTTP1
import CourierTestSupport
import Synchronization
import Testing

/// `s` with every byte outside RFC 3986 `unreserved` percent-encoded (as an `http+unix` host).
func percentEncodedHost(_ s: String) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    for b in s.utf8 {
        let unreserved = (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
            || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
        if unreserved { out.append(b) } else { out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0xF)]] }
    }
    return String(decoding: out, as: UTF8.self)
}

private let socketCounter = Atomic<Int>(0)

/// Requests to a server on a Unix-domain socket (`http+unix://`), and user input refused
/// before anything reaches the network.
@Suite(.serialized) struct UnixSocketAndInputTests {
    @Test func requestOverUnixSocket() throws {
        try withClient { client in
            let n = socketCounter.add(1, ordering: .relaxed).newValue
            let path = ScratchDirectory.base + "/courier-test-\(getpid())-\(n).sock"
            let server = try ScriptedServer(address: .unix(path))
            defer { server.shutdown() }
            server.route("/hello") { request, connection in
                try connection.respond(body: "hello over \(request.header("Host") ?? "-")")
            }
            let socketPath = try #require(server.unixPath)
            let url = "http+unix://\(percentEncodedHost(socketPath))/hello"
            let first = run(client, try get(url))
            #expect(first.error == nil, "\(String(describing: first.error))")
            #expect(first.bodyString == "hello over localhost")
            let second = run(client, try get(url))
            #expect(second.metrics?.reusedConnection == true)
            #expect(server.connectionsAccepted == 1)
        }
    }

    @Test func unixSocketThatDoesNotExistFailsToConnect() throws {
        try withClient { client in
            let path = ScratchDirectory.base + "/courier-test-\(getpid())-missing.sock"
            let result = run(client, try get("http+unix://\(percentEncodedHost(path))/hello"))
            #expect(result.error?.code == .connectionFailed, "\(String(describing: result.error))")
        }
    }

    @Test func headerValuesWithLineBreaksAreRefused() throws {
        var headers = HTTPFields()
        func reason(_ change: (inout HTTPFields) throws(HTTPFieldError) -> Void) -> HTTPFieldError.Reason? {
            do {
                try change(&headers)
                return nil
            } catch {
                return error.reason
            }
        }
        #expect(reason { fields throws(HTTPFieldError) in try fields.append(name: "X-Injected", value: "a\r\nEvil: yes") } == .invalidValue)
        #expect(reason { fields throws(HTTPFieldError) in try fields.set(name: "X-Injected", value: "a\nb") } == .invalidValue)
        #expect(reason { fields throws(HTTPFieldError) in try fields.append(name: "X-Injected", value: "a\u{0}b") } == .invalidValue)
        #expect(reason { fields throws(HTTPFieldError) in try fields.append(name: "Bad Name", value: "x") } == .invalidName)
        #expect(throws: HTTPFieldError.self) { try HTTPField(name: "X", value: "\r\n") }
        #expect(headers.isEmpty)
    }

    @Test(arguments: [("Content-Length", "5"), ("Transfer-Encoding", "chunked")])
    func framingHeadersSetByHandAreRefused(field: (String, String)) throws {
        try withClientAndServer { client, server in
            var request = try HTTPClientRequest(method: .POST, url: "\(server.baseURL)/upload", body: .string("hello"))
            try request.headers.append(name: field.0, value: field.1)
            let result = run(client, request)
            #expect(result.error?.code == .invalidRequest, "\(String(describing: result.error))")
            #expect(result.events == [.failed("invalidRequest")])
            #expect(server.connectionsAccepted == 0)
        }
    }

    @Test func urlWithSpacesIsRefused() {
        #expect(throws: HTTPURLError.self) { try get("http://127.0.0.1:1/a path") }
        do {
            _ = try HTTPClientRequest(method: .GET, url: "http://127.0.0.1:1/a path")
        } catch {
            #expect(error.reason == .space)
        }
        #expect(throws: HTTPURLError.self) { try get("http://127.0.0.1:1/a\r\nHost: evil") }
    }
}
