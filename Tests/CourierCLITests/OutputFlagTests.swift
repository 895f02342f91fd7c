import CourierTestSupport
import Testing

/// The output flags: -o, -O, --output-dir, --create-dirs, -I, -i, -D.
@Suite struct OutputFlagTests {
    @Test func outputToAFileAndToStdout() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let directory = try CLI.scratchDirectory()
        let run = try CourierRun.run(["-o", directory + "/a.txt", server.baseURL + "/hello", "-o", "-", server.baseURL + "/hello"])
        #expect(run.status == 0)
        #expect(CLI.read(directory + "/a.txt") == "hello")
        #expect(run.out == "hello")
    }

    @Test func remoteNameInAnOutputDirectoryItCreates() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let directory = try CLI.scratchDirectory()
        let run = try CourierRun.run(["-O", "--output-dir", directory + "/new/dir", "--create-dirs", server.baseURL + "/hello"])
        #expect(run.status == 0, "\(run.err)")
        #expect(CLI.read(directory + "/new/dir/hello") == "hello")
    }

    @Test func includeHeadAndDumpHeader() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let directory = try CLI.scratchDirectory()
        let run = try CourierRun.run(["-i", "-D", directory + "/head.txt", server.baseURL + "/hello"])
        #expect(run.status == 0)
        #expect(run.out.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(run.out.contains("Content-Type: text/plain\r\n"))
        #expect(run.out.hasSuffix("\r\n\r\nhello"))
        let dumped = try #require(CLI.read(directory + "/head.txt"))
        #expect(dumped.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(dumped.hasSuffix("\r\n\r\n"))
    }

    /// The status line is printed as the server sent it: its HTTP version and its own reason
    /// phrase (none made up from the status code), and no reason when the server sent none.
    @Test func includeHeadPrintsTheStatusLineAsReceived() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        server.route("/custom") { _, connection in
            try connection.send("HTTP/1.0 200 Fine Thanks\r\nContent-Length: 2\r\n\r\nok")
        }
        server.route("/bare") { _, connection in
            try connection.send("HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n")
        }
        let custom = try CourierRun.run(["-i", server.baseURL + "/custom"])
        #expect(custom.status == 0, "\(custom.err)")
        #expect(custom.out.hasPrefix("HTTP/1.0 200 Fine Thanks\r\n"), "\(custom.out)")
        #expect(custom.out.hasSuffix("\r\n\r\nok"))
        let bare = try CourierRun.run(["-i", server.baseURL + "/bare"])
        #expect(bare.status == 0, "\(bare.err)")
        #expect(bare.out.hasPrefix("HTTP/1.1 404\r\n"), "\(bare.out)")
    }

    @Test func headSendsHEADAndPrintsTheHead() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-I", server.baseURL + "/hello"])
        #expect(run.status == 0)
        #expect(server.requests.first?.method == "HEAD")
        #expect(run.out.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(!run.out.contains("hello"))
    }
}
