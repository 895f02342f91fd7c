import Courier
import FoundationEssentials
import Testing

@Suite struct SerializationCompoundTests {
    static func response(_ status: Int = 200, _ contentType: String? = nil) -> Response {
        SerializationResponseValidationTests.response(status, contentType)
    }

    @Test func afnFirstSerializerThatSucceedsWins() throws {
        // AFN test: testCompoundSerializerProperlySerializesResponse (a plist serializer stands
        // in for the image serializer, which refuses application/json the same way).
        let compound = CompoundResponseSerializer<any Sendable>([
            PropertyListResponseSerializer(JSONValue.self).erased, JSONResponseSerializer().erased,
        ])
        let value = try compound.serialize(response: Self.response(200, "application/json"), data: Data(#"{"key":"value"}"#.utf8))
        #expect(value as? JSONValue? == .some(["key": "value"]))
    }

    @Test func orderDecides() throws {
        let body = Data(#"{"k":1}"#.utf8)
        let stringFirst = CompoundResponseSerializer<any Sendable>([StringResponseSerializer().erased, JSONResponseSerializer().erased])
        #expect(try stringFirst.serialize(response: Self.response(200, "application/json"), data: body) as? String == #"{"k":1}"#)
        let jsonFirst = CompoundResponseSerializer<any Sendable>([JSONResponseSerializer().erased, StringResponseSerializer().erased])
        #expect(try jsonFirst.serialize(response: Self.response(200, "application/json"), data: body) is JSONValue?)
    }

    @Test func aNilResultMeansTryTheNextLikeAFN() throws {
        // JSON gives nil for an empty body; AFN then asks the next serializer.
        let compound = CompoundResponseSerializer<any Sendable>([JSONResponseSerializer().erased, StringResponseSerializer().erased])
        #expect(try compound.serialize(response: Self.response(200, "text/plain"), data: Data()) as? String == "")
        // Typed: when every serializer gives nil, that nil is the result.
        let typed = CompoundResponseSerializer<JSONValue?>([JSONResponseSerializer(), JSONResponseSerializer()])
        #expect(try typed.serialize(response: Self.response(204), data: nil) == nil)
    }

    @Test func whenAllFailTheLastErrorIsThrown() {
        let compound = CompoundResponseSerializer<JSONValue?>([
            JSONResponseSerializer(acceptableContentTypes: ["application/a"]),
            JSONResponseSerializer(acceptableContentTypes: ["text/plain"]),
        ])
        let error = #expect(throws: CourierError.self) {
            try compound.serialize(response: Self.response(200, "text/plain"), data: Data("not json".utf8))
        }
        // The first refused the type; the last failed to parse.
        #expect(error?.code == .responseSerializationFailed)
    }

    @Test func whenAllFailTheCompoundsOwnStatusValidationComesFirst() {
        let compound = CompoundResponseSerializer<any Sendable>.withDataFallback([JSONResponseSerializer().erased])
        let error = #expect(throws: CourierError.self) {
            try compound.serialize(response: Self.response(500, "application/json"), data: Data("{}".utf8))
        }
        #expect(error?.code == .unacceptableStatusCode)
    }

    @Test func afnDataFallbackReturnsTheRawBody() throws {
        let compound = CompoundResponseSerializer<any Sendable>.withDataFallback([JSONResponseSerializer().erased])
        let value = try compound.serialize(response: Self.response(200, "image/png"), data: Data([1, 2, 3]))
        #expect(value as? Data == Data([1, 2, 3]))
    }

    @Test func emptyCompoundFails() {
        #expect(throws: CourierError.self) { try CompoundResponseSerializer<String>([]).serialize(response: Self.response(), data: nil) }
    }

    @Test func mapAndClosureSerializers() throws {
        let count = StringResponseSerializer().map { $0.count }
        #expect(try count.serialize(response: Self.response(), data: Data("abc".utf8)) == 3)
        let constant = AnyResponseSerializer<Int> { response, _ in response.statusCode }
        #expect(try constant.serialize(response: Self.response(201), data: nil) == 201)
    }
}
