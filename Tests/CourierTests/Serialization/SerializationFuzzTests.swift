import Courier
import FoundationEssentials
import Testing

/// Random bytes through every response serializer: each returns or throws, never traps.
@Suite struct SerializationFuzzTests {
    /// A small deterministic generator (SplitMix64), so a failure can be replayed from the seed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    struct Shape: Decodable, Sendable {
        var a: Int?
        var b: [String]?
    }

    static let serializers: [AnyResponseSerializer<any Sendable>] = [
        HTTPResponseSerializer().erased,
        JSONResponseSerializer(acceptableContentTypes: nil, removesKeysWithNullValues: true).erased,
        DecodableResponseSerializer(Shape.self).erased,
        DecodableResponseSerializer(JSONValue.self).erased,
        PropertyListResponseSerializer(JSONValue.self, acceptableContentTypes: nil).erased,
        PropertyListResponseSerializer(Shape.self, acceptableContentTypes: nil).erased,
        CompoundResponseSerializer<any Sendable>.withDataFallback([JSONResponseSerializer().erased]).erased,
    ] + TextEncoding.allCases.map { StringResponseSerializer(defaultEncoding: $0).erased }

    /// Seeds for random inputs: raw noise, JSON-ish and plist-ish alphabets, prefixes that
    /// steer the parsers past their first byte.
    static func inputs(seed: UInt64) -> [Data] {
        var generator = SplitMix(state: seed)
        let alphabets: [[UInt8]] = [
            Array(0...255), Array(#"{}[]":,0123456789.eE+-truefalsnl \"#.utf8), Array("<?xml plist dict key string integer/> bplist00".utf8),
        ]
        let prefixes: [[UInt8]] = [[], Array("bplist00".utf8), Array("<?xml version=\"1.0\"?><plist><dict>".utf8), Array("{\"a\":".utf8), [0xFE, 0xFF], [0xFF, 0xFE]]
        var result: [Data] = []
        for _ in 0..<300 {
            let alphabet = alphabets.randomElement(using: &generator)!
            let count = Int.random(in: 0...96, using: &generator)
            let bytes = prefixes.randomElement(using: &generator)! + (0..<count).map { _ in alphabet.randomElement(using: &generator)! }
            result.append(Data(bytes))
        }
        return result
    }

    @Test(arguments: [UInt64(1), 2, 3, 0xC0FFEE])
    func randomBytesNeverTrap(seed: UInt64) {
        let types: [String?] = [nil, "application/json", "application/x-plist", "text/plain; charset=utf-16", "text/plain; charset=bogus"]
        var outcomes = 0
        for (index, data) in Self.inputs(seed: seed).enumerated() {
            let response = SerializationResponseValidationTests.response([200, 204, 404][index % 3], types[index % types.count])
            for serializer in Self.serializers {
                _ = try? serializer.serialize(response: response, data: data)
                outcomes += 1
            }
        }
        #expect(outcomes == 300 * Self.serializers.count)
    }

    @Test func deeplyNestedJSONFailsInsteadOfOverflowing() {
        for depth in [1_000, 100_000] {
            let data = Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
            let result = try? JSONResponseSerializer().serialize(response: SerializationResponseValidationTests.response(200, "application/json"), data: data)
            // Either parsed (within the decoder's depth limit) or refused; reaching here is the test.
            #expect(result == nil || result?.arrayValue != nil)
        }
    }
}
