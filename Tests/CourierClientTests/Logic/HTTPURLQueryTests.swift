import CourierClient
import Testing

/// ``HTTPURL/appendingQuery(_:)``: a serializer's query string joins the URL without the URL
/// being turned into a string and parsed again, and only bytes a query may hold get in.
@Suite struct HTTPURLQueryTests {
    @Test(arguments: [
        ("http://h/p", "a=1", "http://h/p?a=1"),
        ("http://h/p?x=1", "a=1&b=2", "http://h/p?x=1&a=1&b=2"),
        ("http://h/p?", "a=1", "http://h/p?&a=1"),
        ("http://u:pw@h:8080/p", "a=%20", "http://u:pw@h:8080/p?a=%20"),
        ("http://[::1]/", "k=[v]", "http://[::1]/?k=[v]"),
        ("http://h/p?x=1", "", "http://h/p?x=1"),
    ])
    func appends(_ base: String, _ query: String, _ expected: String) throws {
        let url = try HTTPURL(base).appendingQuery(query)
        #expect(url.absoluteString == expected)
        #expect(url == (try HTTPURL(expected)), "the same value a parse of the whole text gives")
    }

    @Test(arguments: [
        ("a=1#frag", HTTPURLError.Reason.numberSignInQuery),
        ("a=b c", .space),
        ("a=b\r\nX-Injected: 1", .controlCharacter),
        ("a=\u{00E9}", .nonASCII),
        ("a=%zz", .invalidPercentEncoding),
        ("a=%4", .invalidPercentEncoding),
    ])
    func refuses(_ query: String, _ reason: HTTPURLError.Reason) throws {
        let base = try HTTPURL("http://h/p")
        #expect(throws: HTTPURLError(reason: reason, input: query)) { try base.appendingQuery(query) }
    }
}
