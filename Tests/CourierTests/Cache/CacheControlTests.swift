@testable import Courier
import FoundationEssentials
import Testing

/// The Cache-Control parser (RFC 9111 §5.2) on ordinary and hostile values, without sockets.
@Suite struct CacheControlTests {
    static func parse(_ value: String) -> CacheControl { CacheControl(parsing: Array(value.utf8)) }

    @Test func directivesAreRead() {
        let control = Self.parse("public, max-age=60, must-revalidate, no-cache, private, immutable")
        #expect(control.maxAge == .seconds(60))
        #expect(control.isPublic && control.mustRevalidate && control.noCache && control.isPrivate && control.immutable)
        #expect(!control.noStore && !control.onlyIfCached)
        let request = Self.parse("max-stale, min-fresh=5, only-if-cached, no-store")
        #expect(request.maxStale == .any && request.minFresh == .seconds(5) && request.onlyIfCached && request.noStore)
        #expect(Self.parse("MAX-AGE=7, No-Store").maxAge == .seconds(7), "names are case-insensitive")
        #expect(Self.parse("proxy-revalidate").mustRevalidate)
    }

    @Test func quotedValuesAndCommasInsideThem() {
        #expect(Self.parse("max-age=\"60\"").maxAge == .seconds(60))
        let control = Self.parse("no-cache=\"Set-Cookie, X-A\", max-age=3")
        #expect(control.noCache && control.maxAge == .seconds(3), "a comma inside quotes does not end the directive")
        #expect(Self.parse("private=\"a\\\"b\", max-age=4").maxAge == .seconds(4), "quoted-pairs are skipped over")
    }

    @Test func deltaSecondsSaturateAndInvalidOnesAreMarked() {
        #expect(Self.parse("max-age=99999999999999999999999999").maxAge == .seconds(CacheControl.maximumSeconds))
        #expect(Self.parse("max-age=-1").maxAge == .invalid)
        #expect(Self.parse("max-age=1.5").maxAge == .invalid)
        #expect(Self.parse("max-age=").maxAge == .invalid)
        #expect(Self.parse("max-age").maxAge == .invalid)
        #expect(Self.parse("max-age=60, max-age=0").maxAge == .seconds(60), "the first occurrence counts")
    }

    @Test(arguments: [
        "", ",", ",,,,", "=", "==", "=60", "\"", "\"\"\"", "max-age=\"60", "max-age=60\"", "max-age=6 0", "\u{0}max-age=1",
        "max-age=\u{7f}", "max-age = \"unterminated, no-store", String(repeating: "a,", count: 10_000),
        String(repeating: "\"", count: 5_000), "max-age=" + String(repeating: "9", count: 5_000), "no-cache=\"" + String(repeating: "x", count: 5_000),
    ])
    func hostileValuesNeverTrap(_ value: String) {
        let control = Self.parse(value)
        // Whatever it makes of it, the result is a value; nothing out of bounds.
        if case .seconds(let seconds)? = control.maxAge { #expect(seconds >= 0 && seconds <= CacheControl.maximumSeconds) }
        var count = 0
        CacheControl.forEachDirective(in: Array(value.utf8)) { name, _ in
            count += 1
            #expect(!name.isEmpty && name.utf8.allSatisfy(CacheControl.isToken))
        }
        #expect(count <= CacheControl.maximumDirectives)
    }

    @Test func malformedItemsAreSkippedOthersKept() {
        let control = Self.parse("=, max-age=6 0, no-store, \"junk\", private")
        #expect(control.maxAge == nil, "a malformed max-age item is skipped")
        #expect(control.noStore && control.isPrivate)
        #expect(CacheRules.directives(["Cache-Control": "a=1, b=\"x,y\", a=2"]) == ["a": "1", "b": "x,y"])
    }

    /// The parser takes whole field values (it is not incremental); several field lines are
    /// one list (RFC 9110 §5.3): the value cut at any comma outside a quoted string into two lines
    /// parses the same.
    @Test func fieldLinesCutAtEveryCommaParseTheSame() throws {
        let value = "max-age=60, no-cache=\"a, b\", must-revalidate, private"
        let whole = Self.parse(value)
        let bytes = Array(value.utf8)
        var quoted = false
        for cut in bytes.indices {
            if bytes[cut] == UInt8(ascii: "\"") { quoted.toggle() }
            guard bytes[cut] == UInt8(ascii: ","), !quoted else { continue }
            var fields = HTTPFields()
            try fields.append(name: "Cache-Control", value: String(decoding: bytes[..<cut], as: UTF8.self))
            try fields.append(name: "cache-control", value: String(decoding: bytes[(cut + 1)...], as: UTF8.self))
            let split = CacheControl(fields)
            #expect(split == whole, "cut after byte \(cut)")
        }
        // One byte at a time, as bytes fed to the parser's byte loop, the prefixes never trap.
        for end in 0...bytes.count { _ = CacheControl(parsing: bytes[..<end]) }
    }
}
