import Courier
import FoundationEssentials
import Testing

@Suite struct ResponseModelTests {
    static let url = URL(string: "http://example.test/x")!

    @Test func mimeTypeAndCharsetComeFromContentType() {
        let response = Response(url: Self.url, statusCode: 200, headers: ["Content-Type": "Text/HTML; Charset=\"ISO-8859-1\""])
        #expect(response.mimeType == "text/html")
        #expect(response.textEncodingName == "iso-8859-1")
    }

    @Test func missingOrEmptyContentTypeHasNoMimeType() {
        #expect(Response(url: Self.url, statusCode: 200, headers: [:]).mimeType == nil)
        #expect(Response(url: Self.url, statusCode: 200, headers: ["Content-Type": " ; charset=utf-8"]).mimeType == nil)
        #expect(Response(url: Self.url, statusCode: 200, headers: ["Content-Type": "text/plain; charset="]).textEncodingName == nil)
    }

    @Test func expectedContentLengthIsMinusOneWhenUnknown() {
        #expect(Response(url: Self.url, statusCode: 200, headers: ["Content-Length": "12"]).expectedContentLength == 12)
        #expect(Response(url: Self.url, statusCode: 200, headers: [:]).expectedContentLength == -1)
        #expect(Response(url: Self.url, statusCode: 200, headers: ["Content-Length": "-3"]).expectedContentLength == -1)
    }

    @Test func injectedHeaderValuesAreRefused() throws {
        var request = Request(url: Self.url)
        #expect(throws: CourierError.self) { try request.setValue("a\r\nX-Evil: 1", forHTTPHeaderField: "X-Test") }
        try request.setValue("ok", forHTTPHeaderField: "X-Test")
        #expect(request.value(forHTTPHeaderField: "x-test") == "ok")
        try request.setValue(nil, forHTTPHeaderField: "X-Test")
        #expect(request.value(forHTTPHeaderField: "X-Test") == nil)
    }

    @Test func errorsKeepOnlyABodyPrefix() {
        let error = CourierError(.unacceptableStatusCode, body: Data(repeating: 1, count: CourierError.bodyPrefixLimit + 10))
        #expect(error.bodyPrefix?.count == CourierError.bodyPrefixLimit)
        #expect(error.phase == .validate)
    }
}
