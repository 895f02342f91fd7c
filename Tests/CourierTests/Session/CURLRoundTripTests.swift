import Courier
import CourierTestSupport
import FoundationEssentials
import Testing

/// `cURLDescription()` run by the real `curl` against a scripted loopback server: the server sees
/// the method, target, header fields and body the request has, as Courier sends them. Skipped,
/// with the reason recorded, where curl is not installed (`make deps` installs it).
@Suite(.serialized) struct CURLRoundTripTests {
    static let curl = ChildProcess.find("curl")

    /// Runs `command` with `/bin/sh -c` and returns its exit status.
    static func run(_ command: String) throws -> Int32? {
        let shell = try ChildProcess(["/bin/sh", "-c", command])
        defer { shell.stop() }
        let status = shell.waitForExit(until: .now + .seconds(20))
        if status != 0 { Issue.record("curl failed (\(String(describing: status))): \(shell.outputText)\n\(command)") }
        return status
    }

    /// The fields of a recorded request other than those each client frames by itself.
    static func ownFields(_ request: RecordedRequest) -> [String] {
        let framing: Set<String> = ["host", "content-length", "accept-encoding", "connection"]
        return request.headers.filter { !framing.contains($0.name.lowercased()) }.map { "\($0.name.lowercased()): \($0.value)" }
    }

    static func roundTrip(_ make: (ScriptedServer) -> Request) throws {
        try withSession { manager, server in
            server.setDefaultHandler { _, connection in try connection.respond(body: "ok") }
            let request = make(server)
            // Courier sends it…
            let task = manager.dataTask(with: request) { _ in }
            let done = TestEvent()
            manager.updateHooks { $0.taskDidComplete = { _, _ in done.signal() } }
            task.resume()
            #expect(done.wait(timeout: .seconds(20)))
            // …then curl, from the task's description (its Accept-Encoding and --compressed too).
            let command = task.cURLDescription(includingCredentials: true)
            #expect(try Self.run(command) == 0)
            #expect(server.waitForRequests(2))
            let requests = server.requests
            try #require(requests.count == 2, "\(requests)")
            let (courier, curl) = (requests[0], requests[1])
            #expect(curl.method == courier.method && curl.method == request.method.rawValue)
            #expect(curl.target == courier.target)
            #expect(curl.body == courier.body)
            #expect(curl.body == request.body.flatMap { if case .data(let data) = $0 { [UInt8](data) } else { nil } } ?? [])
            #expect(Self.ownFields(curl) == Self.ownFields(courier), "\(command)")
            #expect(curl.header("Accept-Encoding") == courier.header("Accept-Encoding"))
            #expect(curl.header("Content-Length") == courier.header("Content-Length"))
        }
    }

    @Test(.enabled(if: curl != nil, "curl is not installed: `make deps` installs it"))
    func aGetWithFieldsThatNeedQuoting() throws {
        try Self.roundTrip { server in
            var request = Request(url: url(server, "/search?q=it's%20a%20%22test%22&x=[1]&$HOME"))
            try? request.setValue("it's $HOME `id` \"quoted\" \\ back", forHTTPHeaderField: "X-Tricky")
            try? request.setValue("Bearer abc'def", forHTTPHeaderField: "Authorization")
            try? request.setValue("a=1; b=2", forHTTPHeaderField: "Cookie")
            try? request.setValue("", forHTTPHeaderField: "X-Empty")
            return request
        }
    }

    @Test(.enabled(if: curl != nil, "curl is not installed: `make deps` installs it"))
    func aPutWithABinaryBody() throws {
        try Self.roundTrip { server in
            var bytes = (0...255).map { UInt8($0) }
            bytes += Array("'%s\\n@".utf8)
            var request = Request(url: url(server, "/upload/it's"), method: .PUT, body: .data(Data(bytes)))
            try? request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
            return request
        }
    }

    @Test(.enabled(if: curl != nil, "curl is not installed: `make deps` installs it"))
    func aPostWithATextBodyAndNoContentType() throws {
        try Self.roundTrip { server in
            Request(url: url(server, "/form"), method: .POST, body: .data(Data("name=it's&emoji=🙂\nline two".utf8)))
        }
    }

    @Test(.enabled(if: curl != nil, "curl is not installed: `make deps` installs it"))
    func aDeleteWithoutABody() throws {
        try Self.roundTrip { server in Request(url: url(server, "/items/7"), method: .DELETE) }
    }
}
