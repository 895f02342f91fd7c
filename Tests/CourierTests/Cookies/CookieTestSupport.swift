@testable import Courier
import CourierCore
import FoundationEssentials
import Synchronization

/// A settable clock for jars under test (cookie expiry is wall time).
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
    init() {}
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

func httpURL(_ string: String) -> HTTPURL {
    do { return try HTTPURL(string) } catch { fatalError("test URL \(string): \(error)") }
}

func testJar(_ clock: TestClock = TestClock(), limits: CookieJar.Limits = .init(), suffixes: PublicSuffixList = .system) -> CookieJar {
    CookieJar(limits: limits, publicSuffixes: suffixes, now: { clock.now })
}

/// The Cookie field a request to `url` gets, "" for none.
func cookieField(_ jar: CookieJar, _ url: String) -> String {
    jar.cookieFieldValue(for: httpURL(url)) ?? ""
}

/// Stores a line; the reason it was refused, or nil when stored.
@discardableResult
func store(_ jar: CookieJar, _ line: String, from url: String) -> CookieError.Reason? {
    do { try jar.store(setCookie: line, for: httpURL(url)); return nil } catch { return error.reason }
}
