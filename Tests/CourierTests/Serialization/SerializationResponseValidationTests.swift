import Courier
import FoundationEssentials
import Testing

/// AFNetworking's `validateResponse:data:error:` rules (AFN tests from
/// Tests/Tests/AFHTTPResponseSerializationTests.m and AFJSONSerializationTests.m).
@Suite struct SerializationResponseValidationTests {
    static let url = URL(string: "http://test.com/r")!

    static func response(_ status: Int, _ contentType: String? = nil) -> Response {
        var headers = HTTPFields()
        if let contentType { try! headers.append(name: "Content-Type", value: contentType) }
        return Response(url: url, statusCode: status, headers: headers)
    }

    static let text = Data("text".utf8)

    @Test func afnAll2xxAreAcceptedAnd4xx5xxRefused() {
        let serializer = HTTPResponseSerializer()
        for status in 200..<300 {
            #expect(throws: Never.self) { try serializer.validate(response: Self.response(status, "text/html"), data: Self.text) }
        }
        for status in [100, 199, 300, 304, 399] + Array(400..<600) {
            let error = #expect(throws: CourierError.self) { try serializer.validate(response: Self.response(status, "text/html"), data: Self.text) }
            #expect(error?.code == .unacceptableStatusCode)
        }
    }

    @Test func statusErrorCarriesResponseBodyAndAFNDetail() {
        let error = #expect(throws: CourierError.self) {
            try HTTPResponseSerializer().serialize(response: Self.response(404, "text/plain"), data: Data("missing".utf8))
        }
        #expect(error?.detail == "Request failed: not found (404)")
        #expect(error?.response?.statusCode == 404)
        #expect(error?.bodyPrefix == Data("missing".utf8))
        #expect(error?.phase == .validate)
        #expect(error?.failingURL == Self.url)
    }

    @Test func afn205WithoutContentTypeAndWithoutDataIsValid() throws {
        let serializer = HTTPResponseSerializer(acceptableContentTypes: ["text/html"])
        try serializer.validate(response: Self.response(205), data: nil)
        try serializer.validate(response: Self.response(205), data: Data())
        #expect(try serializer.serialize(response: Self.response(205), data: nil) == Data())
    }

    @Test func afn205WithoutContentTypeButWithDataFails() {
        let serializer = HTTPResponseSerializer(acceptableContentTypes: ["text/html"])
        let error = #expect(throws: CourierError.self) { try serializer.validate(response: Self.response(205), data: Data("test".utf8)) }
        #expect(error?.code == .unacceptableContentType)
    }

    @Test func wrongContentTypeFailsOnlyWithABody() throws {
        let serializer = HTTPResponseSerializer(acceptableContentTypes: ["application/json"])
        // AFN: invalid but no error when the body is empty, whatever the type.
        try serializer.validate(response: Self.response(200, "text/html"), data: Data())
        try serializer.validate(response: Self.response(200, "text/html"), data: nil)
        let error = #expect(throws: CourierError.self) { try serializer.validate(response: Self.response(200, "text/html"), data: Self.text) }
        #expect(error?.code == .unacceptableContentType)
        #expect(error?.detail == "Request failed: unacceptable content-type: text/html")
        #expect(error?.bodyPrefix == Self.text)
    }

    @Test func contentTypeMatchIgnoresParametersAndCase() throws {
        let serializer = HTTPResponseSerializer(acceptableContentTypes: ["Application/JSON"])
        try serializer.validate(response: Self.response(200, "application/json; charset=utf-8"), data: Self.text)
        try serializer.validate(response: Self.response(200, "APPLICATION/JSON"), data: Self.text)
    }

    @Test func nilAcceptableContentTypesAcceptsAnything() throws {
        try HTTPResponseSerializer().validate(response: Self.response(200), data: Self.text)
        try HTTPResponseSerializer().validate(response: Self.response(200, "x/y"), data: Self.text)
    }

    @Test func bothFailuresGiveTheStatusErrorWithTheContentTypeErrorUnderneath() {
        let serializer = HTTPResponseSerializer(acceptableContentTypes: ["application/json"])
        let error = #expect(throws: CourierError.self) { try serializer.validate(response: Self.response(500, "text/html"), data: Self.text) }
        #expect(error?.code == .unacceptableStatusCode)
        #expect((error?.underlying as? CourierError)?.code == .unacceptableContentType)
        #expect(error?.detail == "Request failed: internal server error (500)")
    }

    @Test func customStatusCodes() throws {
        let serializer = HTTPResponseSerializer(acceptableStatusCodes: [200, 404])
        try serializer.validate(response: Self.response(404), data: nil)
        #expect(throws: CourierError.self) { try serializer.validate(response: Self.response(201), data: nil) }
    }

    @Test func afnJSONAcceptsItsThreeMimeTypesOnly() throws {
        let body = Data(#"{"foo":"bar"}"#.utf8)
        for type in ["application/json", "text/json", "text/javascript"] {
            #expect(try JSONResponseSerializer().serialize(response: Self.response(200, type), data: body) == ["foo": "bar"])
        }
        let error = #expect(throws: CourierError.self) {
            try JSONResponseSerializer().serialize(response: Self.response(200, "nonstandard/json"), data: body)
        }
        #expect(error?.code == .unacceptableContentType)
    }
}
