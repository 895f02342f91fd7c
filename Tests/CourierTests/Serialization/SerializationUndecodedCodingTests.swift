import Courier
import FoundationEssentials
import Testing

/// A body whose content coding Courier did not undo (``Response/undecodedContentCodings``):
/// the serializers that interpret it refuse it with a typed error naming the codings; the
/// plain HTTP serializer returns the bytes as received (RFC 9110 §8.4).
@Suite struct SerializationUndecodedCodingTests {
    struct Item: Decodable, Sendable, Equatable {
        var id: Int
    }

    /// Bytes as a br body might look (not JSON, not text in any charset, not a property list).
    static let brBytes = Data([0x1B, 0x03, 0x00, 0xF8, 0xA5, 0x40, 0x42, 0xFF, 0xFE])
    static let json = Data(#"{"id":1}"#.utf8)
    static let plist = Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>id</key><integer>1</integer></dict></plist>
        """.utf8)

    static func response(_ codings: [String], status: Int = 200, contentType: String = "application/json") -> Response {
        var headers = HTTPFields()
        try! headers.append(name: "Content-Type", value: contentType)
        if !codings.isEmpty { try! headers.append(name: "Content-Encoding", value: codings.joined(separator: ", ")) }
        return Response(url: URL(string: "http://example.test/x")!, statusCode: status, headers: headers, undecodedContentCodings: codings)
    }

    /// Each interpreting serializer, as one closure.
    static let interpreting: [(name: String, contentType: String, run: @Sendable (Response, Data?) throws(CourierError) -> Void)] = [
        ("JSON", "application/json", { (response, data) throws(CourierError) in _ = try JSONResponseSerializer().serialize(response: response, data: data) }),
        ("Decodable", "application/json", { (response, data) throws(CourierError) in
            _ = try DecodableResponseSerializer(Item.self).serialize(response: response, data: data)
        }),
        ("String", "text/plain", { (response, data) throws(CourierError) in _ = try StringResponseSerializer().serialize(response: response, data: data) }),
        ("PropertyList", "application/x-plist", { (response, data) throws(CourierError) in
            _ = try PropertyListResponseSerializer(Item.self).serialize(response: response, data: data)
        }),
    ]

    static func expectRefused(
        _ codings: [String], body: Data, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for serializer in interpreting {
            let response = Self.response(codings, contentType: serializer.contentType)
            let error = #expect(throws: CourierError.self, "\(serializer.name)", sourceLocation: sourceLocation) {
                try serializer.run(response, body)
            }
            #expect(error?.code == .undecodedContentCoding, "\(serializer.name): \(String(describing: error))", sourceLocation: sourceLocation)
            #expect(error?.phase == .decodeBody, "\(serializer.name)", sourceLocation: sourceLocation)
            #expect((error?.underlying as? UndecodedContentCodings)?.codings == codings, "\(serializer.name)", sourceLocation: sourceLocation)
            #expect(error?.bodyPrefix == body, "\(serializer.name): the raw bytes are kept", sourceLocation: sourceLocation)
            #expect(error?.response?.undecodedContentCodings == codings, "\(serializer.name)", sourceLocation: sourceLocation)
            for name in codings {
                #expect(error?.description.contains(name) == true, "\(serializer.name): \(String(describing: error))", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func interpretingSerializersRefuseABrBody() {
        Self.expectRefused(["br"], body: Self.brBytes)
    }

    /// Bytes that would parse must not be taken for the representation either.
    @Test func interpretingSerializersRefuseEvenBytesThatWouldParse() {
        Self.expectRefused(["br"], body: Self.json)
        Self.expectRefused(["x-custom"], body: Self.plist)
    }

    @Test func everyUndecodedCodingIsNamedInOrder() {
        Self.expectRefused(["zstd"], body: Self.brBytes)
        Self.expectRefused(["compress"], body: Self.brBytes)
        Self.expectRefused(["x-custom"], body: Self.brBytes)
        Self.expectRefused(["gzip", "br"], body: Self.brBytes)
        Self.expectRefused(["gzip", "gzip", "gzip"], body: Self.brBytes)
        Self.expectRefused(["gzip"], body: Self.brBytes)  // decompression off
    }

    @Test func theHTTPSerializerReturnsTheBytesAsReceived() throws {
        let response = Self.response(["br"])
        #expect(try HTTPResponseSerializer().serialize(response: response, data: Self.brBytes) == Self.brBytes)
        #expect(response.undecodedContentCodings == ["br"])
    }

    @Test func anEmptyBodyHasNothingToDecode() throws {
        // A 204 (or HEAD) response names the coding its representation would have.
        #expect(try JSONResponseSerializer().serialize(response: Self.response(["br"], status: 204), data: nil) == nil)
        #expect(try StringResponseSerializer().serialize(response: Self.response(["br"], contentType: "text/plain"), data: Data()) == "")
        #expect(try DecodableResponseSerializer(Empty.self).serialize(response: Self.response(["br"], status: 204), data: Data()) == Empty())
    }

    @Test func statusValidationComesFirst() {
        let error = #expect(throws: CourierError.self) {
            try JSONResponseSerializer().serialize(response: Self.response(["br"], status: 500), data: Self.brBytes)
        }
        #expect(error?.code == .unacceptableStatusCode)
    }

    @Test func withoutUndecodedCodingsNothingChanges() throws {
        // The transport decoded gzip: the field is still there, nothing is left undone.
        var headers = HTTPFields()
        try headers.append(name: "Content-Type", value: "application/json")
        try headers.append(name: "Content-Encoding", value: "gzip")
        let decoded = Response(url: URL(string: "http://example.test/x")!, statusCode: 200, headers: headers)
        #expect(try JSONResponseSerializer().serialize(response: decoded, data: Self.json) == ["id": 1])
    }

    @Test func theCompoundDataFallbackKeepsTheBytes() throws {
        let compound = CompoundResponseSerializer<any Sendable>.withDataFallback([JSONResponseSerializer().erased])
        let value = try compound.serialize(response: Self.response(["br"]), data: Self.brBytes)
        #expect(value as? Data == Self.brBytes)
    }

    /// The random inputs of the serializer fuzz test: no interpreting serializer accepts any
    /// non-empty one while a coding is left undone, whatever the bytes look like.
    @Test(arguments: [UInt64(1), 0xC0FFEE])
    func noInterpretingSerializerAcceptsACodedBody(seed: UInt64) {
        let serializers: [AnyResponseSerializer<any Sendable>] = [
            JSONResponseSerializer(acceptableContentTypes: nil).erased,
            DecodableResponseSerializer(JSONValue.self).erased,
            PropertyListResponseSerializer(JSONValue.self, acceptableContentTypes: nil).erased,
        ] + TextEncoding.allCases.map { StringResponseSerializer(defaultEncoding: $0).erased }
        let response = Self.response(["br"])
        var refused = 0
        for data in SerializationFuzzTests.inputs(seed: seed) where !data.isEmpty {
            for serializer in serializers {
                do {
                    _ = try serializer.serialize(response: response, data: data)
                    Issue.record("a serializer interpreted a coded body: \(Array(data.prefix(16)))")
                } catch {
                    #expect(error.code == .undecodedContentCoding)
                    refused += 1
                }
            }
        }
        #expect(refused > 0)
    }

    @Test func aLongListIsShortenedInTheDescription() {
        let many = Array(repeating: "x-layer", count: 1000)
        let names = UndecodedContentCodings(many)
        #expect(names.codings.count == 1000)
        #expect(names.description.count < 200)
        #expect(names.description.hasSuffix("(992 more)"))
    }
}
