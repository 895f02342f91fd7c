import Courier
import FoundationEssentials
import Testing

@Suite struct SerializationBodyTests {
    static let url = URL(string: "http://example.com/api")!

    static func body(_ request: Request) -> Data? {
        guard case .data(let data)? = request.body else { return nil }
        return data
    }

    struct Payload: Codable, Sendable, Equatable {
        var name: String
        var count: Int
        var tags: [String]
    }

    @Test func afnJSONDictionaryAndArrayBodies() throws {
        // AFN tests: testThatJSONRequestSerializationHandlesParametersDictionary / ...Array
        let serializer = JSONRequestSerializer()
        let single = try serializer.request(method: .POST, urlString: Self.url.absoluteString, parameters: ["key": "value"] as Parameters)
        #expect(Self.body(single).map { String(decoding: $0, as: UTF8.self) } == #"{"key":"value"}"#)
        #expect(single.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let array = try serializer.request(method: .POST, urlString: Self.url.absoluteString, parameters: [["key": "value"] as Parameters])
        #expect(Self.body(array).map { String(decoding: $0, as: UTF8.self) } == #"[{"key":"value"}]"#)
    }

    @Test func jsonBodiesDecodeBackForEveryParameterKind() throws {
        let serializer = JSONRequestSerializer(outputFormatting: [.sortedKeys])
        let untyped: Parameters = ["b": [1, 2], "a": ["x": nil as String? as any Sendable], "c": 1.25]
        let fromUntyped = try serializer.serialize(Request(url: Self.url, method: .PUT), parameters: untyped)
        #expect(Self.body(fromUntyped).map { String(decoding: $0, as: UTF8.self) } == #"{"a":{"x":null},"b":[1,2],"c":1.25}"#)

        let value: JSONValue = ["k": [true, nil]]
        let fromValue = try serializer.serialize(Request(url: Self.url, method: .POST), parameters: value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: #require(Self.body(fromValue))) == value)

        let payload = Payload(name: "n", count: 2, tags: ["t"])
        let fromEncodable = try serializer.serialize(Request(url: Self.url, method: .PATCH), parameters: payload)
        #expect(try JSONDecoder().decode(Payload.self, from: #require(Self.body(fromEncodable))) == payload)
    }

    @Test func jsonOutputFormattingApplies() throws {
        let pretty = JSONRequestSerializer(outputFormatting: [.prettyPrinted, .sortedKeys])
        let text = try String(decoding: pretty.encode(["b": 1, "a": 2] as Parameters), as: UTF8.self)
        #expect(text.contains("\n"))
        #expect(text.firstRange(of: "\"a\"")!.lowerBound < text.firstRange(of: "\"b\"")!.lowerBound)
    }

    @Test func jsonSerializerUsesTheQueryForURIMethods() throws {
        let request = try JSONRequestSerializer().serialize(Request(url: Self.url, method: .GET), parameters: ["q": "a b"] as Parameters)
        #expect(request.url.query == "q=a%20b")
        #expect(request.body == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test func jsonWithoutParametersHasNoBodyButHeaders() throws {
        var serializer = JSONRequestSerializer()
        try serializer.setValue("v", forHTTPHeaderField: "X-Default")
        let request = try serializer.serialize(Request(url: Self.url, method: .POST), parameters: nil)
        #expect(request.body == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
        #expect(request.value(forHTTPHeaderField: "X-Default") == "v")
    }

    @Test func jsonKeepsTheRequestContentType() throws {
        var request = Request(url: Self.url, method: .POST)
        try request.setValue("application/vnd.api+json", forHTTPHeaderField: "Content-Type")
        let result = try JSONRequestSerializer().serialize(request, parameters: ["a": 1] as Parameters)
        #expect(result.headers.values(for: "Content-Type") == ["application/vnd.api+json"])
    }

    @Test func jsonRefusesInvalidParameters() {
        struct Opaque: Sendable {}
        for parameters: any Sendable in [["x": Double.nan] as Parameters, Opaque(), ["o": Opaque()] as Parameters] {
            let error = #expect(throws: CourierError.self) {
                try JSONRequestSerializer().serialize(Request(url: Self.url, method: .POST), parameters: parameters)
            }
            #expect(error?.code == .invalidParameters)
            #expect(error?.phase == .serialize)
        }
    }

    @Test func propertyListBodyIsXMLAndDecodesBack() throws {
        let date = Date(timeIntervalSince1970: 1_000_000)
        let parameters: Parameters = ["name": "x", "count": 3, "ok": true, "blob": Data([0, 1, 2]), "when": date, "list": [1.5, 2.5]]
        let request = try PropertyListRequestSerializer().serialize(Request(url: Self.url, method: .POST), parameters: parameters)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-plist")
        let data = try #require(Self.body(request))
        #expect(String(decoding: data, as: UTF8.self).hasPrefix("<?xml"))

        struct Decoded: Decodable, Equatable {
            var name: String
            var count: Int
            var ok: Bool
            var blob: Data
            var when: Date
            var list: [Double]
        }
        let decoded = try PropertyListDecoder().decode(Decoded.self, from: data)
        #expect(decoded == Decoded(name: "x", count: 3, ok: true, blob: Data([0, 1, 2]), when: date, list: [1.5, 2.5]))
    }

    @Test func propertyListEncodableAndBinaryFormat() throws {
        let payload = Payload(name: "n", count: 1, tags: ["a", "b"])
        let binary = PropertyListRequestSerializer(format: .binary)
        let data = try binary.encode(payload)
        #expect(data.starts(with: Array("bplist".utf8)))
        #expect(try PropertyListDecoder().decode(Payload.self, from: data) == payload)
    }

    @Test func propertyListRefusesNull() {
        let missing: String? = nil
        for parameters: Parameters in [["a": missing as any Sendable], ["j": JSONValue.null]] {
            let error = #expect(throws: CourierError.self) {
                try PropertyListRequestSerializer().serialize(Request(url: Self.url, method: .POST), parameters: parameters)
            }
            #expect(error?.code == .invalidParameters)
        }
    }

    @Test func propertyListUsesTheQueryForURIMethods() throws {
        let request = try PropertyListRequestSerializer().serialize(Request(url: Self.url, method: .DELETE), parameters: ["id": 4] as Parameters)
        #expect(request.url.query == "id=4")
        #expect(request.body == nil)
    }
}
