import CourierClient
@testable import Courier
import FoundationEssentials
import Testing

/// A request's URL is parsed once, into ``HTTPURL``, and that value goes to the socket; the
/// Foundation `URL` is the API edge's convenience (``RequestURL``).
@Suite struct OneURLTests {
    // MARK: The caller's strings are encoded as Foundation's URL(string:) encodes them

    /// Strings Foundation's `URL(string:)` repairs by percent-encoding: the string APIs take them
    /// the same way (the expected text is Foundation's own output, compared as ``HTTPURL``).
    @Test(arguments: [
        "http://h/a b", "http://h/a|b{c}^`\"<>\\[]", "http://h/a%zz", "http://h/?q=[1]&r=a b",
        "http://[::1]:80/x?y=[z]", "http://h/caf\u{00E9}", "http://h/a\tb", "http://h:8080/plain?x=1",
        "http://h/%41%e9", "https://u:p@h/p?q=%",
    ])
    func absoluteStringsAreEncodedAsFoundationEncodesThem(_ text: String) throws {
        let foundation = try #require(URL(string: text))
        let ours = try HTTPURL(URLStringEncoding.encodingInvalidCharacters(text))
        #expect(ours == (try HTTPURL(foundation.absoluteString)))
    }

    @Test(arguments: ["a b", "x?q=a b", "g;x", "//other/p", "../up", "users/\u{00E9}t\u{00E9}", "p?k=[1]", "p%", "/abs|olute"])
    func referencesResolveAsFoundationResolvesThem(_ reference: String) throws {
        let base = try #require(URL(string: "http://h:8080/v1/"))
        let foundation = try #require(URL(string: reference, relativeTo: base)?.absoluteURL)
        let ours = try HTTPURL("http://h:8080/v1/").resolving(URLStringEncoding.encodingInvalidCharacters(reference))
        #expect(ours == (try HTTPURL(foundation.absoluteString)))
    }

    @Test func stringsWithNothingToEncodeAreReturnedAsTheyAre() {
        for text in ["http://h/p?a=1&b=%20", "users/7", "", "//[::1]:8/x"] {
            #expect(URLStringEncoding.encodingInvalidCharacters(text) == text)
        }
    }

    // MARK: Request and Response keep the parsed URL

    @Test func aGivenFoundationURLIsKeptAndParsedOnce() throws {
        let given = try #require(URL(string: "HTTP://Example.TEST:80/a/./b?q=1#frag"))
        let request = Request(url: given)
        #expect(request.url == given, "reading url gives back exactly what was given")
        #expect(request.httpURL == (try HTTPURL("http://example.test:80/a/b?q=1")), "the transport's form: normalised, fragment dropped")
        #expect(request.location.fragment == "frag")
    }

    @Test func aParsedURLIsUsedAsItIs() throws {
        let url = try HTTPURL("http://h/a|b?k=[v]")
        var request = Request(url: url, method: .POST)
        #expect(request.httpURL == url)
        #expect(request.url.absoluteString == "http://h/a%7Cb?k=%5Bv%5D", "Foundation's form, made on read, encodes what it must")
        #expect(request.httpURL == url, "reading the Foundation form changes nothing that is sent")
        let other = try HTTPURL("https://o/x")
        request.setURL(other)
        #expect(request.httpURL == other)
        #expect(request.url.absoluteString == "https://o/x")
    }

    @Test func aURLWithNoHTTPFormFailsWhenTheRequestIsConverted() throws {
        let request = Request(url: try #require(URL(string: "ftp://h/file")))
        #expect(request.httpURL == nil)
        #expect(request.url.absoluteString == "ftp://h/file", "kept as given")
        #expect { try RequestConversion(additionalHeaders: HTTPFields()).convert(request) } throws: { error in
            (error as? CourierError)?.code == .invalidURL && (error as? CourierError)?.failingURL?.absoluteString == "ftp://h/file"
        }
    }

    @Test func theConvertedRequestCarriesTheParsedURL() throws {
        let url = try HTTPURL("http://u:p@h:81/p?q=a|b")
        let converted = try RequestConversion(additionalHeaders: HTTPFields()).convert(Request(url: url))
        #expect(converted.url == url)
    }

    @Test func aRedirectHopKeepsTheTransportsURL() throws {
        // A Location Foundation would re-encode (`|`, `[`) is sent exactly as the transport
        // parsed it: no Foundation round trip between the hops.
        let next = try HTTPURL("http://h/next|hop?k=[1]")
        let previous = Request(url: try HTTPURL("http://h/start"), method: .POST, body: .data(Data("b".utf8)), timeoutInterval: 7)
        let hop = Request(following: HTTPClientRequest(method: .POST, url: next, body: .bytes(ByteBuffer(bytes: Array("b".utf8)))), from: previous)
        #expect(hop.httpURL == next)
        #expect(hop.timeoutInterval == 7)
        #expect(hop.body != nil, "a 307/308 keeps the body")
        let converted = try RequestConversion(additionalHeaders: HTTPFields()).convert(hop)
        #expect(converted.url == next)
    }

    @Test func aResponseKeepsItsRequestsURL() throws {
        let url = try HTTPURL("http://h/r?x=1")
        let response = Response(location: RequestURL(url), statusCode: 200, headers: HTTPFields())
        #expect(response.httpURL == url)
        #expect(response.url.absoluteString == "http://h/r?x=1")
        #expect(response == Response(url: try #require(URL(string: "http://h/r?x=1")), statusCode: 200, headers: HTTPFields()),
                "equal to the same response made from a Foundation URL")
    }

    // MARK: The manager and the serializers build parsed URLs

    @Test func aManagersRequestIsResolvedOnceAgainstItsBaseURL() throws {
        try withHTTPManager(baseURL: "http://h:8080/v1") { manager in
            let request = try manager.request(method: .GET, path: "users/a b", parameters: ["page": 2])
            #expect(request.httpURL == (try HTTPURL("http://h:8080/v1/users/a%20b?page=2")))
            #expect(try manager.httpURL(for: "x|y") == (try HTTPURL("http://h:8080/v1/x%7Cy")))
            #expect(throws: CourierError.self) { try manager.httpURL(for: "http://h:99999/") }
        }
    }

    @Test func aBaseURLWithNoHTTPFormStillTakesAbsolutePaths() throws {
        try withHTTPManager(baseURL: "http://h:99999/v1") { manager in
            let absolute = try manager.httpURL(for: "https://other:8443/p?q")
            #expect(absolute == (try HTTPURL("https://other:8443/p?q")), "an absolute path needs no base")
            #expect { try manager.httpURL(for: "users") } throws: { error in
                ((error as? CourierError)?.underlying as? HTTPURLError)?.reason == .invalidPort
            }
        }
    }

    @Test func aSerializersURLStringIsParsedOnce() throws {
        let request = try HTTPRequestSerializer().request(method: .GET, urlString: "http://h/s?a=1", parameters: ["b": "x y"])
        #expect(request.httpURL == (try HTTPURL("http://h/s?a=1&b=x%20y")))
        #expect { try HTTPRequestSerializer().request(method: .GET, urlString: "http+unix://%2Ftmp%2Fs/p", parameters: nil) } throws: {
            ($0 as? CourierError)?.code == .invalidURL
        }
    }
}
