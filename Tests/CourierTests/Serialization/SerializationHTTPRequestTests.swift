import Courier
import FoundationEssentials
import Testing

@Suite struct SerializationHTTPRequestTests {
    static let url = URL(string: "http://example.com")!

    static func bodyText(_ request: Request) -> String? {
        guard case .data(let data)? = request.body else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    @Test func afnPOSTParametersBecomeAFormBody() throws {
        // AFN test: testThatAFHTTPRequestSerializationSerializesPOSTRequestsProperly
        let request = try HTTPRequestSerializer().serialize(Request(url: Self.url, method: .POST), parameters: ["key": "value"] as Parameters)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(Self.bodyText(request) == "key=value")
        #expect(request.url == Self.url)
    }

    @Test func afnPOSTWithoutParametersHasAnEmptyFormBody() throws {
        // AFN test: ...SerializesPOSTRequestsProperlyWhenNoParameterIsProvided (#2864)
        let request = try HTTPRequestSerializer().serialize(Request(url: Self.url, method: .POST), parameters: nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(Self.bodyText(request) == "")
    }

    @Test func afnGETParametersGoIntoTheQuery() throws {
        // AFN test: testThatAFHTTPRequestSerialiationSerializesQueryParametersCorrectly
        let request = try HTTPRequestSerializer().serialize(Request(url: Self.url), parameters: ["key": "value"] as Parameters)
        #expect(request.url.query == "key=value")
        #expect(request.body == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test func afnEmptyParametersAddNoQuestionMark() throws {
        // AFN test: testThatEmptyDictionaryParametersAreProperlyEncoded
        let request = try HTTPRequestSerializer().serialize(Request(url: Self.url), parameters: [:] as Parameters)
        #expect(!request.url.absoluteString.hasSuffix("?"))
    }

    @Test func uriMethodsAreGETHEADDELETEAndSettable() throws {
        var serializer = HTTPRequestSerializer()
        for method in [HTTPMethod.GET, .HEAD, .DELETE, HTTPMethod("get")!] {
            let request = try serializer.serialize(Request(url: Self.url, method: method), parameters: ["a": 1] as Parameters)
            #expect(request.url.query == "a=1", "\(method)")
            #expect(request.body == nil)
        }
        for method in [HTTPMethod.POST, .PUT, .PATCH, .OPTIONS] {
            let request = try serializer.serialize(Request(url: Self.url, method: method), parameters: ["a": 1] as Parameters)
            #expect(request.url.query == nil, "\(method)")
            #expect(Self.bodyText(request) == "a=1")
        }
        serializer.httpMethodsEncodingParametersInURI = ["POST"]
        let post = try serializer.serialize(Request(url: Self.url, method: .POST), parameters: ["a": 1] as Parameters)
        #expect(post.url.query == "a=1")
        let get = try serializer.serialize(Request(url: Self.url, method: .GET), parameters: ["a": 1] as Parameters)
        #expect(Self.bodyText(get) == "a=1")
    }

    @Test func existingQueryIsExtendedWithAmpersandAndFragmentKept() throws {
        let serializer = HTTPRequestSerializer()
        let withQuery = try serializer.serialize(Request(url: URL(string: "http://h/p?x=1")!), parameters: ["y": "2"] as Parameters)
        #expect(withQuery.url.absoluteString == "http://h/p?x=1&y=2")
        let withFragment = try serializer.serialize(Request(url: URL(string: "http://h/p#top")!), parameters: ["y": "2"] as Parameters)
        #expect(withFragment.url.absoluteString == "http://h/p?y=2#top")
    }

    @Test func requestContentTypeIsKeptForFormBodies() throws {
        var request = Request(url: Self.url, method: .POST)
        try request.setValue("text/plain", forHTTPHeaderField: "content-type")
        let result = try HTTPRequestSerializer().serialize(request, parameters: ["a": "b"] as Parameters)
        #expect(result.headers.values(for: "Content-Type") == ["text/plain"])
    }

    @Test func afnCustomQueryClosureReplacesTheRules() throws {
        // AFN test: ...SerializesQueryParametersCorrectlyFromQuerySerializationBlock
        var serializer = HTTPRequestSerializer()
        serializer.queryStringSerialization = { _, parameters in
            let dictionary = parameters as! [String: any Sendable]
            return dictionary.map { "\($0.key)**\($0.value)" }.joined()
        }
        let request = try serializer.serialize(Request(url: Self.url), parameters: ["key": "value"] as Parameters)
        #expect(request.url.query == "key**value")
    }

    @Test func afnCustomQueryClosureErrorsFailTheRequest() {
        // AFN test: testQueryStringSerializationCanFailWithError
        struct Refused: Error {}
        var serializer = HTTPRequestSerializer()
        serializer.queryStringSerialization = { _, _ in throw Refused() }
        #expect { try serializer.request(method: .GET, urlString: "http://h/", parameters: [:] as Parameters) } throws: {
            let error = $0 as? CourierError
            return error?.code == .invalidParameters && error?.underlying is Refused
        }
    }

    @Test func defaultHeadersAreAddedButNeverOverrideTheRequest() throws {
        var serializer = HTTPRequestSerializer()
        try serializer.setValue("serializer", forHTTPHeaderField: "X-Both")
        try serializer.setValue("only-serializer", forHTTPHeaderField: "X-Default")
        var request = Request(url: Self.url)
        try request.setValue("request", forHTTPHeaderField: "x-both")
        try request.setValue("mine/1", forHTTPHeaderField: "User-Agent")
        let result = try serializer.serialize(request, parameters: nil)
        #expect(result.headers.values(for: "X-Both") == ["request"])
        #expect(result.value(forHTTPHeaderField: "X-Default") == "only-serializer")
        #expect(result.headers.values(for: "User-Agent") == ["mine/1"])
        #expect(result.value(forHTTPHeaderField: "Accept-Language") != nil)
    }

    @Test func defaultUserAgentAndAcceptLanguage() {
        let serializer = HTTPRequestSerializer()
        #expect(serializer.value(forHTTPHeaderField: "User-Agent") == "Courier/\(CourierLibrary.version) (Linux; Swift)")
        #expect(serializer.value(forHTTPHeaderField: "Accept-Language") == AcceptLanguage.current)
    }

    @Test func acceptLanguageFromEnvironment() {
        #expect(AcceptLanguage.value(environment: [:]) == "en;q=1")
        #expect(AcceptLanguage.value(environment: ["LANG": "C.UTF-8"]) == "en;q=1")
        #expect(AcceptLanguage.value(environment: ["LANG": "en_US.UTF-8"]) == "en-US;q=1")
        #expect(AcceptLanguage.value(environment: ["LANGUAGE": "de_AT:de:en", "LANG": "de_AT.UTF-8@euro"]) == "de-AT;q=1, de;q=0.9, en;q=0.8")
        #expect(
            AcceptLanguage.value(environment: ["LANGUAGE": "a:b:c:d:e:f:g:h"])
                == "a;q=1, b;q=0.9, c;q=0.8, d;q=0.7, e;q=0.6, f;q=0.5")
        #expect(AcceptLanguage.value(environment: ["LANG": "bad value\r\n"]) == "en;q=1")
    }

    @Test func headerValuesAreValidatedAndRemovable() throws {
        var serializer = HTTPRequestSerializer()
        #expect(throws: CourierError.self) { try serializer.setValue("a\r\nb: c", forHTTPHeaderField: "X") }
        #expect(throws: CourierError.self) { try serializer.setValue("v", forHTTPHeaderField: "Bad Name") }
        try serializer.setValue("test", forHTTPHeaderField: "TestHeader")
        #expect(serializer.httpRequestHeaders[first: "testheader"] == "test")
        try serializer.setValue(nil, forHTTPHeaderField: "TestHeader")
        #expect(!serializer.httpRequestHeaders.contains("TestHeader"))
    }

    @Test func basicAuthorizationHeaderBytes() throws {
        var serializer = HTTPRequestSerializer()
        // RFC 7617 §2 example.
        try serializer.setAuthorizationHeader(username: "Aladdin", password: "open sesame")
        #expect(serializer.value(forHTTPHeaderField: "Authorization") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        // RFC 7617 §2.1 example: UTF-8 before base64.
        try serializer.setAuthorizationHeader(username: "test", password: "123£")
        #expect(serializer.value(forHTTPHeaderField: "Authorization") == "Basic dGVzdDoxMjPCow==")
        #expect(throws: CourierError.self) { try serializer.setAuthorizationHeader(username: "a:b", password: "c") }
        serializer.clearAuthorizationHeader()
        #expect(serializer.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test func requestBuildsURLMethodTimeoutAndBody() throws {
        var serializer = HTTPRequestSerializer()
        serializer.timeoutInterval = 12.5
        let request = try serializer.request(method: .PUT, urlString: "https://example.com/x", parameters: ["a": [1, 2]] as Parameters)
        #expect(request.method == .PUT)
        #expect(request.timeoutInterval == 12.5)
        #expect(request.url.absoluteString == "https://example.com/x")
        #expect(Self.bodyText(request) == "a%5B%5D=1&a%5B%5D=2")
        #expect(HTTPRequestSerializer().timeoutInterval == 60)
    }

    @Test func requestRefusesInvalidURLs() {
        for text in ["", "not a url", "ftp://example.com/", "/relative/path", "http://", "mailto:x@y.z"] {
            #expect(performing: { try HTTPRequestSerializer().request(method: .GET, urlString: text, parameters: nil) }, throws: {
                ($0 as? CourierError)?.code == .invalidURL
            })
        }
    }

    @Test func hostileParametersCannotInjectIntoTheURLOrBody() throws {
        let hostile: Parameters = ["a\r\nHost: evil": "x\r\n\r\nGET / HTTP/1.1", "#frag": "?&="]
        let get = try HTTPRequestSerializer().serialize(Request(url: Self.url), parameters: hostile)
        #expect(get.url.absoluteString.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F })
        #expect(get.url.fragment == nil)
        let post = try HTTPRequestSerializer().serialize(Request(url: Self.url, method: .POST), parameters: hostile)
        #expect(Self.bodyText(post)?.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } == true)
    }
}
