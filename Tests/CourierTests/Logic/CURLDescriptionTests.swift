import Courier
import FoundationEssentials
import Testing

/// `cURLDescription()` as text: what each part of a request becomes, and how credentials are
/// redacted. (CURLRoundTripTests runs the commands.)
@Suite("cURL descriptions")
struct CURLDescriptionTests {
    static func request(_ url: String, _ method: HTTPMethod = .GET, headers: HTTPFields = [:], body: RequestBody? = nil) -> Request {
        Request(url: URL(string: url)!, method: method, headers: headers, body: body)
    }

    @Test func aPlainGet() {
        let text = Self.request("http://example.test:8080/a/b?x=1&y=2").cURLDescription()
        #expect(text == """
            curl --http1.1 \\
              --globoff \\
              'http://example.test:8080/a/b?x=1&y=2' \\
              -H 'Accept:' \\
              -H 'User-Agent:'
            """)
    }

    @Test func aPostWithATextBodyAndItsOwnFields() {
        var request = Self.request("https://example.test/items", .POST, headers: ["Content-Type": "application/json", "Accept": "*/*", "X-Note": "it's $HOME `id`"],
                                   body: .data(Data(#"{"name":"it's"}"#.utf8)))
        request.totalTimeoutInterval = 30
        let text = request.cURLDescription()
        #expect(!text.contains("-X"), "POST is implied by --data-binary")
        #expect(text.contains(#"-H 'X-Note: it'\''s $HOME `id`'"#))
        #expect(text.contains(#"--data-binary '{"name":"it'\''s"}'"#))
        #expect(text.contains("-H 'User-Agent:'") && !text.contains("-H 'Accept:'") && !text.contains("-H 'Content-Type:'"))
        #expect(text.hasSuffix("--max-time '30'"))
    }

    @Test func methodsCurlDoesNotImply() {
        #expect(Self.request("http://h/", .HEAD).cURLDescription().contains("--head"))
        #expect(Self.request("http://h/", .DELETE).cURLDescription().contains("-X 'DELETE'"))
        let put = Self.request("http://h/", .PUT, body: .data(Data("x".utf8))).cURLDescription()
        #expect(put.contains("-X 'PUT'") && put.contains("--data-binary 'x'") && put.contains("-H 'Content-Type:'"))
        #expect(Self.request("http://h/", .GET, body: .data(Data("x".utf8))).cURLDescription().contains("-X 'GET'"))
        #expect(Self.request("http://h/", .POST).cURLDescription().contains("-X 'POST'"), "no body: nothing implies POST")
    }

    @Test func bodiesThatCannotBeAnArgumentArePipedThroughPrintf() {
        let bytes: [UInt8] = [0x00, 0x41, 0x27, 0x5C, 0x25, 0x0A, 0xFF]
        let text = Self.request("http://h/", .POST, body: .data(Data(bytes))).cURLDescription()
        #expect(text.hasPrefix(#"printf '\000A\047\134\045\012\377' | curl "#))
        #expect(text.contains("--data-binary @-"))
        let at = Self.request("http://h/", .POST, body: .data(Data("@/etc/passwd".utf8))).cURLDescription()
        #expect(at.hasPrefix(#"printf '@/etc/passwd' | curl"#), "a leading @ would make curl read a file")
    }

    @Test func fileAndStreamBodies() {
        let file = Self.request("http://h/", .PUT, body: .file(URL(fileURLWithPath: "/data/it's here.bin"))).cURLDescription()
        #expect(file.contains(#"--data-binary '@/data/it'\''s here.bin'"#))
        let stream = Self.request("http://h/", .POST, body: .stream(length: 12, makeStream: { fatalError("not read") })).cURLDescription()
        #expect(stream.hasSuffix(" # the body, a stream of 12 bytes, is not reproduced"))
        #expect(stream.contains("-X 'POST'"))
    }

    @Test func credentialsAreRedactedUnlessAskedFor() {
        let request = Self.request(
            "http://alice:s3cret@h/p", headers: ["Authorization": "Bearer TOKEN", "Cookie": "session=COOKIE", "Proxy-Authorization": "Basic PROXY"])
        let redacted = request.cURLDescription()
        for secret in ["s3cret", "TOKEN", "COOKIE", "PROXY"] { #expect(!redacted.contains(secret), "\(secret) in \(redacted)") }
        #expect(redacted.contains("'http://alice:***@h/p'"))
        #expect(redacted.contains("-H 'Authorization: <redacted>'") && redacted.contains("-H 'Cookie: <redacted>'"))
        let full = request.cURLDescription(includingCredentials: true)
        for secret in ["alice:s3cret@", "Bearer TOKEN", "session=COOKIE", "Basic PROXY"] { #expect(full.contains(secret), "\(secret)") }
    }

    @Test func compressedOnlyWhenTheRequestAsksForACodingCurlDecodes() {
        #expect(Self.request("http://h/", headers: ["Accept-Encoding": "gzip"]).cURLDescription().contains("--compressed"))
        #expect(!Self.request("http://h/", headers: ["Accept-Encoding": "identity"]).cURLDescription().contains("--compressed"))
        #expect(!Self.request("http://h/").cURLDescription().contains("--compressed"))
        #expect(Self.request("http://h/", headers: ["X-Empty": ""]).cURLDescription().contains("-H 'X-Empty;'"))
    }

    @Test func ipv6LiteralsAreNotGlobbed() {
        let text = Self.request("http://[::1]:8080/").cURLDescription()
        #expect(text.contains("--globoff") && text.contains("'http://[::1]:8080/'"))
    }
}
