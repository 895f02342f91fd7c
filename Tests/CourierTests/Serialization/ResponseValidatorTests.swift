import Courier
import FoundationEssentials
import Testing

/// ``ResponseValidator`` as its own step: the serializers run it, a request's validator takes
/// the place of a serializer's, and custom checks run after the status and type rules.
@Suite struct ResponseValidatorTests {
    static let url = URL(string: "http://test.com/r")!

    static func response(_ status: Int, _ contentType: String? = nil) -> Response {
        var headers = HTTPFields()
        if let contentType { try! headers.append(name: "Content-Type", value: contentType) }
        return Response(url: url, statusCode: status, headers: headers)
    }

    static let json = Data(#"{"a":1}"#.utf8)

    struct Item: Decodable, Sendable, Equatable { var a: Int }

    @Test func theValidatorGivesTheSerializersErrorsRuleForRule() {
        let validator = ResponseValidator(acceptableContentTypes: ["application/json"])
        // Status and type both wrong: the status error, with the type error underneath.
        let both = #expect(throws: CourierError.self) { try validator.validate(response: Self.response(404, "text/html"), data: Data("x".utf8)) }
        #expect(both?.code == .unacceptableStatusCode)
        #expect(both?.detail == "Request failed: not found (404)")
        #expect((both?.underlying as? CourierError)?.code == .unacceptableContentType)
        let type = #expect(throws: CourierError.self) { try validator.validate(response: Self.response(200, "text/html"), data: Data("x".utf8)) }
        #expect(type?.code == .unacceptableContentType)
        #expect(type?.detail == "Request failed: unacceptable content-type: text/html")
        // An empty body never fails on its type.
        #expect(throws: Never.self) { try validator.validate(response: Self.response(200, "text/html"), data: nil) }
        // The serializer's own validate is the same step.
        let serializer = HTTPResponseSerializer(acceptableContentTypes: ["application/json"])
        let viaSerializer = #expect(throws: CourierError.self) { try serializer.validate(response: Self.response(404, "text/html"), data: Data("x".utf8)) }
        #expect(viaSerializer?.code == both?.code && viaSerializer?.detail == both?.detail)
    }

    @Test func customChecksRunAfterTheRulesInOrder() {
        let log = Recorder<String>()
        let validator = ResponseValidator()
            .adding { _, _ throws(CourierError) in log.append("first") }
            .adding { response, data throws(CourierError) in
                log.append("second")
                throw CourierError(.responseSerializationFailed, response: response, body: data, detail: "custom refusal")
            }
        // The status rule fails first: no custom check runs.
        let status = #expect(throws: CourierError.self) { try validator.validate(response: Self.response(500), data: nil) }
        #expect(status?.code == .unacceptableStatusCode)
        #expect(log.all.isEmpty)
        let custom = #expect(throws: CourierError.self) { try validator.validate(response: Self.response(200), data: nil) }
        #expect(custom?.detail == "custom refusal")
        #expect(log.all == ["first", "second"])
    }

    @Test func everySerializerKeepsItsDefaultsInItsValidator() {
        #expect(HTTPResponseSerializer().validator.acceptableStatusCodes == Set(200...299))
        #expect(HTTPResponseSerializer().validator.acceptableContentTypes == nil)
        #expect(JSONResponseSerializer().validator.acceptableContentTypes == JSONResponseSerializer.defaultContentTypes)
        #expect(DecodableResponseSerializer<Item>().validator.acceptableContentTypes == nil)
        #expect(StringResponseSerializer().validator.acceptableContentTypes == nil)
        #expect(PropertyListResponseSerializer<Item>().validator.acceptableContentTypes == ["application/x-plist"])
        // The old properties read and write the validator.
        var json = JSONResponseSerializer()
        json.acceptableStatusCodes = [404]
        json.acceptableContentTypes = ["application/problem+json"]
        #expect(json.validator.acceptableStatusCodes == [404])
        #expect(json.validator.acceptableContentTypes == ["application/problem+json"])
    }

    @Test func aGivenValidatorReplacesTheSerializersOwn() throws {
        let notFound = Self.response(404, "application/json")
        let accept404 = ResponseValidator(acceptableStatusCodes: [404])
        #expect(throws: CourierError.self) { try JSONResponseSerializer().serialize(response: notFound, data: Self.json) }
        #expect(try JSONResponseSerializer().serialize(response: notFound, data: Self.json, validator: accept404) == ["a": 1])
        #expect(try DecodableResponseSerializer<Item>().serialize(response: notFound, data: Self.json, validator: accept404) == Item(a: 1))
        #expect(try StringResponseSerializer().serialize(response: notFound, data: Self.json, validator: accept404) == #"{"a":1}"#)
        #expect(try HTTPResponseSerializer().serialize(response: notFound, data: Self.json, validator: accept404) == Self.json)
        // Replaced, not added to: the JSON serializer's content types no longer apply either.
        let text = Self.response(200, "text/plain")
        #expect(throws: CourierError.self) { try JSONResponseSerializer().serialize(response: text, data: Self.json) }
        #expect(try JSONResponseSerializer().serialize(response: text, data: Self.json, validator: ResponseValidator()) == ["a": 1])
        // And a stricter one refuses what the serializer would take.
        let strict = ResponseValidator(acceptableStatusCodes: [201])
        let refused = #expect(throws: CourierError.self) {
            try JSONResponseSerializer().serialize(response: Self.response(200, "application/json"), data: Self.json, validator: strict)
        }
        #expect(refused?.code == .unacceptableStatusCode)
    }

    @Test func erasedMappedAndClosureSerializersPassTheValidatorOn() throws {
        let notFound = Self.response(404, "application/json")
        let accept404 = ResponseValidator(acceptableStatusCodes: [404])
        let erased = JSONResponseSerializer().erased
        #expect(throws: CourierError.self) { try erased.serialize(response: notFound, data: Self.json) }
        #expect(try erased.serialize(response: notFound, data: Self.json, validator: accept404) as? JSONValue == ["a": 1])
        let mapped = DecodableResponseSerializer<Item>().map { $0.a }
        #expect(try mapped.serialize(response: notFound, data: Self.json, validator: accept404) == 1)
        // A closure serializer does no validation of its own; a given validator runs before it.
        let closure = AnyResponseSerializer<Int> { _, data in data?.count ?? 0 }
        #expect(try closure.serialize(response: notFound, data: Self.json) == 7)
        let strict = #expect(throws: CourierError.self) {
            try closure.serialize(response: notFound, data: Self.json, validator: ResponseValidator())
        }
        #expect(strict?.code == .unacceptableStatusCode)
    }

    @Test func theCompoundHandsAGivenValidatorToEveryMember() throws {
        let compound = CompoundResponseSerializer<any Sendable>([JSONResponseSerializer().erased])
        let notFound = Self.response(404, "application/json")
        // Its own: the member refuses the 404 and so does the compound's validation.
        let own = #expect(throws: CourierError.self) { try compound.serialize(response: notFound, data: Self.json) }
        #expect(own?.code == .unacceptableStatusCode)
        // Given: the member accepts it.
        let value = try compound.serialize(response: notFound, data: Self.json, validator: ResponseValidator(acceptableStatusCodes: [404]))
        #expect(value as? JSONValue == ["a": 1])
        // Members keep their own validation when none is given: a JSON member refuses text/plain
        // though the compound's own validation accepts any type; the data fallback wins.
        let withFallback = CompoundResponseSerializer.withDataFallback([JSONResponseSerializer().erased])
        let fallback = try withFallback.serialize(response: Self.response(200, "text/plain"), data: Self.json)
        #expect(fallback as? Data == Self.json)
    }

    @Test func validatingAddsACheckToASerializer() {
        let serializer = JSONResponseSerializer().validating { response, _ throws(CourierError) in
            guard response.headers[first: "X-Signed"] != nil else {
                throw CourierError(.responseSerializationFailed, response: response, detail: "unsigned")
            }
        }
        let error = #expect(throws: CourierError.self) { try serializer.serialize(response: Self.response(200, "application/json"), data: Self.json) }
        #expect(error?.detail == "unsigned")
        #expect(serializer.validator.acceptableContentTypes == JSONResponseSerializer.defaultContentTypes)
    }
}
