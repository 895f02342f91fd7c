@testable import Courier
import FoundationEssentials
import Testing

/// RFC 6265bis §5.1.1, the cookie-date algorithm.
@Suite struct CookieDateTests {
    static let nov6: Double = 784_111_777  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",  // IMF-fixdate
        "Sunday, 06-Nov-94 08:49:37 GMT",  // RFC 850
        "Sun Nov  6 08:49:37 1994",  // asctime
        "06 Nov 1994 08:49:37",
        "Sun, 06-Nov-1994 08:49:37 GMT",
        "8:49:37 6 november 1994",
        "Nov 06 08:49:37 94 GMT",
        "sun, 06 NOV 1994 08:49:37 gmt",
        "Sun, 06 Nov 1994 08:49:37 GMT+0200 (extra words ignored)",
    ])
    func readsTheDateFormatsServersSend(_ text: String) {
        #expect(CookieDate.parse(Array(text.utf8))?.timeIntervalSince1970 == Self.nov6)
    }

    @Test(arguments: [
        "", "garbage", "Sun, 30 Feb 2021 08:49:37 GMT", "Sun, 06 Nov 1600 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 00 Nov 1994 08:49:37 GMT", "06 Nov 1994",
        "Sun, 06 Nov 1994 108:49:37 GMT", "Sun, 06 Xyz 1994 08:49:37 GMT", "Sun, 06 Nov 12345 08:49:37 GMT",
    ])
    func refusesWhatTheAlgorithmRefuses(_ text: String) {
        #expect(CookieDate.parse(Array(text.utf8)) == nil)
    }

    @Test func twoDigitYearsAreWindowed() {
        #expect(CookieDate.parse(Array("01 Jan 70 00:00:00".utf8))?.timeIntervalSince1970 == 0)
        #expect(CookieDate.parse(Array("01 Jan 69 00:00:00".utf8))?.timeIntervalSince1970 == 3_124_224_000)
        #expect(CookieDate.parse(Array("29 Feb 2000 00:00:00".utf8)) != nil, "a leap day")
        #expect(CookieDate.parse(Array("29 Feb 1900 00:00:00".utf8)) == nil, "1900 is not a leap year")
    }
}
