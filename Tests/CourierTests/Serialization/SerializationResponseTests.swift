import Courier
import FoundationEssentials
import Testing

@Suite struct SerializationResponseTests {
    static func response(_ status: Int = 200, _ contentType: String? = nil) -> Response {
        SerializationResponseValidationTests.response(status, contentType)
    }

    // MARK: JSON

    @Test func afnJSONEmptyAndSingleSpaceBodiesAreNilWithoutError() throws {
        let serializer = JSONResponseSerializer()
        #expect(try serializer.serialize(response: Self.response(200, "text/json"), data: Data()) == nil)
        #expect(try serializer.serialize(response: Self.response(200, "text/json"), data: Data(" ".utf8)) == nil)
        #expect(try serializer.serialize(response: Self.response(204), data: nil) == nil)
        // Two spaces are not Rails' single space: that is an (invalid) JSON text.
        #expect(throws: CourierError.self) { try serializer.serialize(response: Self.response(200, "application/json"), data: Data("  ".utf8)) }
    }

    @Test func afnJSONInvalidBodyFails() {
        let body = Data("{invalid}".utf8)
        let error = #expect(throws: CourierError.self) { try JSONResponseSerializer().serialize(response: Self.response(200, "text/json"), data: body) }
        #expect(error?.code == .responseSerializationFailed)
        #expect(error?.phase == .decodeBody)
        #expect(error?.underlying is DecodingError)
        #expect(error?.bodyPrefix == body)
        #expect(error?.response?.statusCode == 200)
    }

    @Test func jsonNullRemovalIsOptional() throws {
        let body = Data(#"{"a":null,"b":[null,1]}"#.utf8)
        #expect(try JSONResponseSerializer().serialize(response: Self.response(200, "application/json"), data: body) == ["a": nil, "b": [nil, 1]])
        let removing = JSONResponseSerializer(removesKeysWithNullValues: true)
        #expect(try removing.serialize(response: Self.response(200, "application/json"), data: body) == ["b": [1]])
    }

    @Test func jsonStatusFailureThrowsBeforeParsing() {
        let error = #expect(throws: CourierError.self) {
            try JSONResponseSerializer().serialize(response: Self.response(422, "application/json"), data: Data(#"{"error":"x"}"#.utf8))
        }
        #expect(error?.code == .unacceptableStatusCode)
        #expect(error?.bodyPrefix == Data(#"{"error":"x"}"#.utf8))
    }

    // MARK: Decodable

    struct User: Decodable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    @Test func decodableDecodesWithTheConfiguredDecoder() throws {
        let plain = DecodableResponseSerializer(User.self)
        #expect(try plain.serialize(response: Self.response(), data: Data(#"{"id":1,"name":"a"}"#.utf8)) == User(id: 1, name: "a"))
        let snake = DecodableResponseSerializer(User.self, makeDecoder: {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return decoder
        })
        struct Snake: Decodable, Sendable, Equatable { var userName: String }
        let snakeSerializer = DecodableResponseSerializer(Snake.self, makeDecoder: snake.makeDecoder)
        #expect(try snakeSerializer.serialize(response: Self.response(), data: Data(#"{"user_name":"b"}"#.utf8)) == Snake(userName: "b"))
    }

    @Test func decodableFailuresCarryTheDecodingError() {
        let error = #expect(throws: CourierError.self) {
            try DecodableResponseSerializer(User.self).serialize(response: Self.response(), data: Data(#"{"id":"x"}"#.utf8))
        }
        #expect(error?.code == .responseSerializationFailed)
        #expect(error?.underlying is DecodingError)
    }

    @Test func emptyBodiesNeedAnEmptyResponseCodeAndAnEmptyType() throws {
        #expect(try DecodableResponseSerializer(Empty.self).serialize(response: Self.response(204), data: nil) == Empty())
        #expect(try DecodableResponseSerializer(Empty.self).serialize(response: Self.response(205), data: Data()) == Empty())
        // Wrong status for an empty body.
        #expect(throws: CourierError.self) { try DecodableResponseSerializer(Empty.self).serialize(response: Self.response(200), data: nil) }
        // Right status, but the type cannot be empty.
        let error = #expect(throws: CourierError.self) { try DecodableResponseSerializer(User.self).serialize(response: Self.response(204), data: nil) }
        #expect(error?.code == .responseSerializationFailed)
        // A custom set of codes.
        let lenient = DecodableResponseSerializer(Empty.self, emptyResponseCodes: [200])
        #expect(try lenient.serialize(response: Self.response(200), data: nil) == Empty())
        // Empty also decodes from an object.
        #expect(try DecodableResponseSerializer(Empty.self).serialize(response: Self.response(200), data: Data("{}".utf8)) == Empty())
    }

    // MARK: Property list

    @Test func propertyListDecodesAndValidatesType() throws {
        struct Item: Codable, Sendable, Equatable { var n: Int }
        let data = try PropertyListEncoder().encode(Item(n: 3))
        let serializer = PropertyListResponseSerializer(Item.self)
        #expect(try serializer.serialize(response: Self.response(200, "application/x-plist"), data: data) == Item(n: 3))
        let wrongType = #expect(throws: CourierError.self) { try serializer.serialize(response: Self.response(200, "text/xml"), data: data) }
        #expect(wrongType?.code == .unacceptableContentType)
        let garbage = #expect(throws: CourierError.self) {
            try serializer.serialize(response: Self.response(200, "application/x-plist"), data: Data("<plist>nope".utf8))
        }
        #expect(garbage?.code == .responseSerializationFailed)
        #expect(try PropertyListResponseSerializer(Empty.self).serialize(response: Self.response(204), data: nil) == Empty())
    }

    // MARK: String

    @Test func stringUsesTheCharsetOfContentType() throws {
        let serializer = StringResponseSerializer()
        #expect(try serializer.serialize(response: Self.response(200, "text/plain; charset=utf-8"), data: Data("héllo".utf8)) == "héllo")
        #expect(try serializer.serialize(response: Self.response(200, "text/plain; charset=ISO-8859-1"), data: Data([0x68, 0xE9])) == "hé")
        #expect(try serializer.serialize(response: Self.response(200, "text/plain; charset=latin1"), data: Data([0xFF])) == "ÿ")
        #expect(try serializer.serialize(response: Self.response(200, "text/plain; charset=windows-1252"), data: Data([0x80, 0x93, 0x94])) == "€“”")
        #expect(try serializer.serialize(response: Self.response(200, "text/plain; charset=\"us-ascii\""), data: Data("ok".utf8)) == "ok")
        #expect(try serializer.serialize(response: Self.response(200, "text/plain; charset=utf-16le"), data: Data([0x68, 0, 0xE9, 0])) == "hé")
        #expect(try serializer.serialize(response: Self.response(200, "text/plain; charset=utf-16be"), data: Data([0, 0x68, 0, 0xE9])) == "hé")
        #expect(try serializer.serialize(response: Self.response(200, "text/plain; charset=utf-16"), data: Data([0xFF, 0xFE, 0x68, 0])) == "h")
        #expect(try serializer.serialize(response: Self.response(200, "text/plain; charset=utf-16"), data: Data([0xFE, 0xFF, 0, 0x68])) == "h")
        #expect(try serializer.serialize(response: Self.response(200, "text/plain; charset=utf-16"), data: Data([0, 0x68])) == "h")
    }

    @Test func stringDefaultEncodingIsUTF8AndConfigurable() throws {
        #expect(try StringResponseSerializer().serialize(response: Self.response(200, "text/plain"), data: Data("é".utf8)) == "é")
        #expect(try StringResponseSerializer().serialize(response: Self.response(200), data: Data([0xEF, 0xBB, 0xBF, 0x41])) == "A")
        let latin = StringResponseSerializer(defaultEncoding: .isoLatin1)
        #expect(try latin.serialize(response: Self.response(200, "text/plain"), data: Data([0xE9])) == "é")
        #expect(try StringResponseSerializer().serialize(response: Self.response(204), data: nil) == "")
    }

    @Test func stringRefusesUnknownCharsetsAndUndecodableBytes() {
        let cases: [(String, [UInt8])] = [
            ("text/plain; charset=klingon", [0x41]),
            ("text/plain; charset=utf-8", [0xC3]),
            ("text/plain; charset=utf-8", [0xED, 0xA0, 0x80]),
            ("text/plain", [0xFF]),
            ("text/plain; charset=us-ascii", [0x80]),
            ("text/plain; charset=windows-1252", [0x81]),
            ("text/plain; charset=utf-16le", [0x41]),
            ("text/plain; charset=utf-16le", [0x00, 0xD8]),
            ("text/plain; charset=utf-16be", [0xDC, 0x00, 0x00, 0x41]),
        ]
        for (type, bytes) in cases {
            let error = #expect(throws: CourierError.self, "\(type) \(bytes)") {
                try StringResponseSerializer().serialize(response: Self.response(200, type), data: Data(bytes))
            }
            #expect(error?.code == .responseSerializationFailed)
        }
    }

    @Test func textEncodingNamesAndWindows1252Table() {
        #expect(TextEncoding(charset: "UTF-8") == .utf8)
        #expect(TextEncoding(charset: "cp1252") == .windows1252)
        #expect(TextEncoding(charset: "ISO_8859-1") == .isoLatin1)
        #expect(TextEncoding(charset: "x-unknown") == nil)
        let high = TextEncoding.windows1252.decode(Data(0x80...0x9F).filter { ![0x81, 0x8D, 0x8F, 0x90, 0x9D].contains($0) })
        #expect(high == "€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ")
        #expect(TextEncoding.windows1252.decode(Data([0x41, 0xA0, 0xFF])) == "A\u{A0}ÿ")
        #expect(TextEncoding.isoLatin1.decode(Data(0...255))?.unicodeScalars.map(\.value) == Array(0...255))
    }
}
