import Courier
import FoundationEssentials
import Testing

@Suite struct SerializationJSONValueTests {
    static func decode(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    static func encode(_ value: JSONValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func decodesEveryKind() throws {
        let value = try Self.decode(#"{"n":null,"t":true,"f":false,"i":-42,"d":1.5,"s":"x\u00e9","a":[1,"2"],"o":{"k":[]}}"#)
        #expect(value["n"] == .null)
        #expect(value["t"]?.boolValue == true)
        #expect(value["f"] == .bool(false))
        #expect(value["i"] == .integer(-42))
        #expect(value["d"] == .double(1.5))
        #expect(value["s"]?.stringValue == "xé")
        #expect(value["a"]?[1] == "2")
        #expect(value["o"]?["k"] == .array([]))
        #expect(value["missing"] == nil)
        #expect(value["a"]?[5] == nil)
        #expect(value[0] == nil)
    }

    @Test func largeIntegersRoundTripExactly() throws {
        let text = #"[9007199254740993,-9223372036854775808,9223372036854775807]"#
        let value = try Self.decode(text)
        #expect(value[0] == .integer(9_007_199_254_740_993))
        #expect(value[1]?.int64Value == Int64.min)
        #expect(try Self.encode(value) == text)
        // Beyond Int64 a number is a double.
        #expect(try Self.decode("18446744073709551616") == .double(18446744073709551616))
    }

    @Test func topLevelScalarsAndRoundTrip() throws {
        #expect(try Self.decode("true") == true)
        #expect(try Self.decode("null") == nil)
        #expect(try Self.decode(#""s""#) == "s")
        let value: JSONValue = ["a": [1, 2.5, "x", nil, false], "b": ["c": "d"]]
        #expect(try Self.decode(Self.encode(value)) == value)
        #expect(try Self.encode(value) == #"{"a":[1,2.5,"x",null,false],"b":{"c":"d"}}"#)
    }

    @Test func accessors() {
        let value: JSONValue = ["i": 3, "d": 3.0, "h": 3.5, "s": "x"]
        #expect(value["i"]?.intValue == 3)
        #expect(value["d"]?.intValue == 3)
        #expect(value["h"]?.intValue == nil)
        #expect(value["h"]?.doubleValue == 3.5)
        #expect(value["i"]?.doubleValue == 3)
        #expect(value["s"]?.intValue == nil)
        #expect(value["i"]?.stringValue == nil)
        #expect(value.objectValue?.count == 4)
        #expect(JSONValue.null.isNull)
        #expect(JSONValue.array([1]).arrayValue == [1])
    }

    @Test func removingKeysWithNullValuesMatchesAFN() {
        // AFN test: testThatJSONRemovesKeysWithNullValues
        let value: JSONValue = ["key": "value", "nullkey": nil, "array": [["subnullkey": nil]], "arrayWithNulls": [nil]]
        let cleaned = value.removingKeysWithNullValues()
        #expect(cleaned["key"] == "value")
        #expect(cleaned.objectValue?.keys.contains("nullkey") == false)
        #expect(cleaned["array"]?[0] == .object([:]))
        #expect(cleaned["arrayWithNulls"] == .array([]))
        #expect(JSONValue.null.removingKeysWithNullValues() == .null)
        #expect(JSONValue.array([[nil, 1], nil, ["a": [nil]]]).removingKeysWithNullValues() == [[1], ["a": []]])
    }

    @Test func parametersConvertUntypedValues() throws {
        let missing: Int? = nil
        let parameters: Parameters = [
            "s": "x", "sub": "abc".dropFirst(), "i": 1, "i8": Int8(-2), "u64": UInt64(5), "d": 0.5, "f": Float(0.1),
            "b": true, "n": missing as any Sendable, "a": [1, "two"] as [any Sendable], "set": Set([3, 1, 2]), "j": JSONValue.string("v"),
            "o": ["k": ["deep": [true]]] as Parameters, "typed": ["x": 1] as [String: Int],
        ]
        let value = try JSONValue(parameters: parameters)
        let expected: JSONValue = [
            "s": "x", "sub": "bc", "i": 1, "i8": -2, "u64": 5, "d": 0.5, "f": 0.1, "b": true, "n": nil, "a": [1, "two"],
            "set": [1, 2, 3], "j": "v", "o": ["k": ["deep": [true]]], "typed": ["x": 1],
        ]
        #expect(value == expected)
        #expect(try JSONValue(parameters: nil) == .null)
        #expect(try JSONValue(parameters: 7) == 7)
    }

    @Test func parametersRefuseUnrepresentableValuesWithTheKeyPath() {
        struct Opaque: Sendable {}
        let cases: [(Parameters, String)] = [
            (["user": ["tags": ["a", "b", Opaque()] as [any Sendable]] as Parameters], "user.tags[2]"),
            (["x": Double.nan], "x"),
            (["x": ["y": Double.infinity] as Parameters], "x.y"),
            (["big": UInt64.max], "big"),
            (["d": Data()], "d"),
            (["keys": [1: "a"] as [Int: String]], "keys"),
            (["j": JSONValue.array([.double(-.infinity)])], "j[0]"),
        ]
        for (parameters, path) in cases {
            let error = #expect(throws: CourierError.self) { try JSONValue(parameters: parameters) }
            #expect(error?.code == .invalidParameters)
            #expect(error?.detail?.contains("parameter \(path):") == true, "\(error?.detail ?? "")")
        }
    }
}
