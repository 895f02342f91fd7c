import Courier
import FoundationEssentials
import Testing

/// AFNetworking's query-string rules. Expected strings marked "AFN test" are copied from
/// AFNetworking 4's Tests/Tests/AFHTTPRequestSerializationTests.m.
@Suite struct SerializationQueryStringTests {
    @Test func afnPercentEscapingOfReservedCharacters() {
        // AFN test: testPercentEscapingString
        #expect(percentEscapedQueryComponent(":#[]@!$&'()*+,;=?/") == "%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D?/")
    }

    @Test func afnQueryStringFromParameters() throws {
        // AFN test: testQueryStringFromParameters
        #expect(try QueryString.encode(["key": "value", "key1": "value&"] as Parameters) == "key=value&key1=value%26")
    }

    @Test func afnURLEncodableValue() throws {
        // AFN test: testThatAFHTTPRequestSerialiationSerializesURLEncodableQueryParametersCorrectly
        #expect(try QueryString.encode(["key": " :#[]@!$&'()*+,;=/?"] as Parameters) == "key=%20%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D/?")
    }

    @Test func afnAlreadyEncodedValueIsEncodedAgain() throws {
        // AFN test: testThatAFHTTPRequestSerialiationSerializesURLEncodedQueryParametersCorrectly
        #expect(
            try QueryString.encode(["key": "%20%21%22%23%24%25%26%27%28%29%2A%2B%2C%2F"] as Parameters)
                == "key=%2520%2521%2522%2523%2524%2525%2526%2527%2528%2529%252A%252B%252C%252F")
    }

    @Test func afnEmojiAreEncodedAsWholeUTF8Sequences() throws {
        // AFN test: testThatEmojiIsProperlyEncoded (the parameter crosses AFN's 50-unit batch).
        var parameter = "!"
        while parameter.utf16.count < 50 { parameter += "👴🏿👷🏻👮🏽" }
        let group = "%F0%9F%91%B4%F0%9F%8F%BF%F0%9F%91%B7%F0%9F%8F%BB%F0%9F%91%AE%F0%9F%8F%BD"
        #expect(try QueryString.encode(["test": parameter] as Parameters) == "test=%21" + String(repeating: group, count: 5))
    }

    @Test func everyASCIIByteIsEscapedUnlessUnreservedOrQuestionMarkOrSlash() {
        for byte in UInt8(0)...0x7F {
            let text = String(decoding: [byte], as: UTF8.self)
            let kept = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || "-._~?/".utf8.contains(byte)
            let hex = String(byte, radix: 16, uppercase: true)
            let expected = kept ? text : "%" + (hex.count == 1 ? "0" + hex : hex)
            #expect(percentEscapedQueryComponent(text) == expected, "byte \(byte)")
        }
    }

    @Test func unicodeIsEscapedAsUppercaseUTF8() {
        #expect(percentEscapedQueryComponent("é ü") == "%C3%A9%20%C3%BC")
        #expect(percentEscapedQueryComponent("日本") == "%E6%97%A5%E6%9C%AC")
    }

    @Test func nestedDictionariesUseBracketsAndEscapeThem() throws {
        let parameters: Parameters = ["user": ["name": "a b", "address": ["city": "X"]] as Parameters]
        #expect(try QueryString.encode(parameters) == "user%5Baddress%5D%5Bcity%5D=X&user%5Bname%5D=a%20b")
    }

    @Test func arraysRepeatTheKeyWithEmptyBrackets() throws {
        #expect(try QueryString.encode(["ids": [3, 1, 2]] as Parameters) == "ids%5B%5D=3&ids%5B%5D=1&ids%5B%5D=2")
    }

    @Test func arraysOfDictionariesKeepOrderAndSortKeys() throws {
        let parameters: Parameters = ["items": [["b": 1, "a": 2], ["c": 3]] as [Parameters]]
        #expect(try QueryString.pairs(parameters).map(\.field) == ["items[][a]", "items[][b]", "items[][c]"])
        #expect(try QueryString.encode(parameters) == "items%5B%5D%5Ba%5D=2&items%5B%5D%5Bb%5D=1&items%5B%5D%5Bc%5D=3")
    }

    @Test func setsAreSortedAndDoNotAddBrackets() throws {
        let parameters: Parameters = ["tag": Set(["zeta", "alpha", "Mid"])]
        // String < is a literal comparison: uppercase before lowercase, as compare: does.
        #expect(try QueryString.encode(parameters) == "tag=Mid&tag=alpha&tag=zeta")
    }

    @Test func keysAreSortedLiterally() throws {
        let parameters: Parameters = ["b": 1, "B": 2, "a": 3, "a1": 4, "_": 5]
        #expect(try QueryString.pairs(parameters).map(\.field) == ["B", "_", "a", "a1", "b"])
    }

    @Test func nilAndNullGiveTheKeyAlone() throws {
        let missing: String? = nil
        let parameters: Parameters = ["a": missing as any Sendable, "b": JSONValue.null, "c": "x"]
        #expect(try QueryString.encode(parameters) == "a&b&c=x")
    }

    @Test func booleansPrintAsOneAndZero() throws {
        #expect(try QueryString.encode(["t": true, "f": false] as Parameters) == "f=0&t=1")
        #expect(try QueryString.encode(["j": JSONValue.bool(true)] as Parameters) == "j=1")
    }

    @Test func numbersPrintLikeNSNumber() throws {
        let parameters: Parameters = ["d": 2.0, "e": 2.5, "f": Float(0.1), "i": -7, "u": UInt64.max]
        #expect(try QueryString.encode(parameters) == "d=2&e=2.5&f=0.1&i=-7&u=18446744073709551615")
    }

    @Test func jsonValueObjectsAreWalkedLikeDictionaries() throws {
        let parameters: JSONValue = ["q": "a&b", "list": [1, "two", nil], "nested": ["k": true]]
        #expect(try QueryString.encode(parameters) == "list%5B%5D=1&list%5B%5D=two&list%5B%5D&nested%5Bk%5D=1&q=a%26b")
    }

    @Test func emptyDictionaryGivesEmptyString() throws {
        #expect(try QueryString.encode([:] as Parameters) == "")
    }

    @Test func nonDictionaryTopLevelAndUnrepresentableValuesAreRefused() {
        #expect { try QueryString.encode([1, 2]) } throws: { ($0 as? CourierError)?.code == .invalidParameters }
        #expect { try QueryString.encode(["d": Data([1])] as Parameters) } throws: {
            ($0 as? CourierError)?.code == .invalidParameters && ($0 as? CourierError)?.detail?.contains("d") == true
        }
        struct Opaque: Sendable {}
        #expect { try QueryString.encode(["x": ["y": Opaque()] as Parameters] as Parameters) } throws: {
            ($0 as? CourierError)?.detail?.contains("x[y]") == true
        }
    }

    @Test func injectedLineBreaksCannotSurviveEncoding() throws {
        let hostile = "v\r\nX-Injected: 1\u{0}"
        let query = try QueryString.encode(["k\r\n": hostile] as Parameters)
        #expect(query == "k%0D%0A=v%0D%0AX-Injected%3A%201%00")
        #expect(query.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F })
    }
}
