import CourierTestSupport
import Testing

/// -d and kin, --json, -F, -G, -T.
@Suite struct BodyFlagTests {
    @Test func repeatedDataIsJoinedWithAmpersandAndPosted() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let directory = try CLI.scratchDirectory()
        try CLI.write("from\r\nfile\n", to: directory + "/data")
        let run = try CourierRun.run(["-d", "a=1", "--data=b=2", "-d", "@" + directory + "/data", "--data-raw", "@raw",
                                      server.baseURL + "/echo", "-w", "%{size_upload}"])
        #expect(run.status == 0)
        #expect(run.out == "a=1&b=2&fromfile&@raw" + "21")
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
    }

    @Test func dataBinaryKeepsNewlinesAndUrlencodeEscapes() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let directory = try CLI.scratchDirectory()
        try CLI.write("a\nb", to: directory + "/data")
        let binary = try CourierRun.run(["--data-binary", "@" + directory + "/data", server.baseURL + "/echo"])
        #expect(binary.out == "a\nb")
        let encoded = try CourierRun.run(["--data-urlencode", "q=a b&c", "--data-urlencode", "name@" + directory + "/data", server.baseURL + "/echo"])
        #expect(encoded.out == "q=a%20b%26c&name=a%0Ab")
    }

    @Test func jsonSetsItsTypes() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run(["--json", "{\"a\":1}", server.baseURL + "/echo"])
        #expect(run.out == "{\"a\":1}")
        let request = try #require(server.requests.first)
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("Accept") == "application/json")
    }

    @Test func getPutsTheDataInTheQuery() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-G", "-d", "a=1", "-d", "b=2", server.baseURL + "/echo"])
        #expect(run.status == 0)
        let request = try #require(server.requests.first)
        #expect(request.method == "GET")
        #expect(request.target == "/echo?a=1&b=2")
    }

    @Test func formUploadsAFileWithItsType() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let directory = try CLI.scratchDirectory()
        try CLI.write("PHOTO", to: directory + "/cat.jpg")
        let run = try CourierRun.run(["-F", "caption=hi", "-F", "photo=@" + directory + "/cat.jpg;type=image/jpeg", server.baseURL + "/echo"])
        #expect(run.status == 0)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(run.out.contains("name=\"caption\"\r\n\r\nhi\r\n"))
        #expect(run.out.contains("name=\"photo\"; filename=\"cat.jpg\"\r\nContent-Type: image/jpeg\r\n\r\nPHOTO\r\n"))
    }

    @Test func uploadFilePuts() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let directory = try CLI.scratchDirectory()
        try CLI.write("file body", to: directory + "/up.txt")
        let run = try CourierRun.run(["-T", directory + "/up.txt", server.baseURL + "/echo"])
        #expect(run.out == "file body")
        #expect(server.requests.first?.method == "PUT")
        let stdin = try CourierRun.run(["-T", "-", server.baseURL + "/echo"], stdin: Array("from stdin".utf8))
        #expect(stdin.out == "from stdin")
    }

    @Test func dataFromStandardInput() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-d", "@-", server.baseURL + "/echo"], stdin: Array("line1\nline2\n".utf8))
        #expect(run.out == "line1line2")
    }

    @Test func formStringIsLiteralAndAFieldNameCannotBreakItsQuotes() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run(["--form-string", "note=@not-a-file;type=x", server.baseURL + "/echo"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("name=\"note\"\r\n\r\n@not-a-file;type=x\r\n"))
        let bad = try CourierRun.run(["-F", "a\"b=1", server.baseURL + "/echo"])
        #expect(bad.status == 43)
        #expect(server.requests.count == 1)
    }

    @Test func headersFromAFile() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let directory = try CLI.scratchDirectory()
        try CLI.write("X-A: 1\r\nX-B: 2\n", to: directory + "/headers")
        let run = try CourierRun.run(["-H", "@" + directory + "/headers", server.baseURL + "/hello"])
        #expect(run.status == 0, "\(run.err)")
        #expect(server.requests.first?.header("X-A") == "1")
        #expect(server.requests.first?.header("X-B") == "2")
        let missing = try CourierRun.run(["-H", "@" + directory + "/none", server.baseURL + "/hello"])
        #expect(missing.status == 26)
    }
}
