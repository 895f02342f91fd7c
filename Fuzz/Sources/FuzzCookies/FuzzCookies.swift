// Fuzzes the cookie code that reads bytes from elsewhere (Courier's Cookies/): the Set-Cookie
// parser and storage model (RFC 6265bis §5.6, §5.7) and the reader of curl's cookie files.
//
// Input layout:
//   byte 0   bit 0: 0 = Set-Cookie lines, 1 = a cookie file
//            bit 1: the request is https (Set-Cookie mode)
//            bits 2-3: the request host: www.example.com, example.com, 127.0.0.1, a.b.c.example.co.uk
//   bytes 1… Set-Cookie mode: lines separated by LF, each stored by one jar in turn (at most 64);
//            cookie-file mode: the file
//
// Properties: nothing traps; a line the parser accepts has a name and value within 4096 bytes,
// without control characters other than HTAB; a stored cookie's domain is the host or a domain
// the host domain-matches, a host-only cookie's is the host, a Secure cookie came over https, a
// `__Host-` cookie is secure, host-only and at `/`; the Cookie field for the host has no CR, LF
// or NUL; a cookie file read, written and read again gives the same cookies, and the jar that
// loaded it writes a file that reads back to the same set.
import Courier
import FoundationEssentials
import FuzzSupport

let hosts = ["www.example.com", "example.com", "127.0.0.1", "a.b.c.example.co.uk"]
let fixedNow = Date(timeIntervalSince1970: 1_700_000_000)

func fuzzSetCookies(_ input: [UInt8], https: Bool, host: String) {
    let url: HTTPURL
    do { url = try HTTPURL("\(https ? "https" : "http")://\(host)/dir/page") } catch { fatalError("fixed URL: \(error)") }
    let jar = CookieJar(limits: CookieJar.Limits(cookiesPerDomain: 8, totalCookies: 16))
    for line in input.split(separator: 0x0A, maxSplits: 64, omittingEmptySubsequences: false) {
        let setup = "line: \(escaped(line.prefix(256)))"
        if let parsed = try? SetCookie.parse(line) {
            fuzzCheck(parsed.name.utf8.count + parsed.value.utf8.count <= SetCookie.maximumNameValueBytes, "too large\n\(setup)")
            for text in [parsed.name, parsed.value] {
                fuzzCheck(!text.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }), "a control character\n\(setup)")
            }
        }
        do {
            let cookie = try jar.store(setCookie: line, for: url)
            if cookie.isHostOnly {
                fuzzCheck(Array(cookie.domain.utf8) == Array(host.utf8), "a host-only cookie for \(cookie.domain)\n\(setup)")
            } else {
                // Bytes, as the jar matches domains (RFC 6265bis §5.1.3), not characters.
                let domain = Array(cookie.domain.utf8), name = Array(host.utf8)
                let matches = name == domain || (name.count > domain.count && name.suffix(domain.count + 1).elementsEqual([UInt8(ascii: ".")] + domain))
                fuzzCheck(matches, "a cookie for another site: \(cookie.domain)\n\(setup)")
                fuzzCheck(cookie.domain.contains("."), "a cookie for a TLD: \(cookie.domain)\n\(setup)")
            }
            fuzzCheck(!cookie.isSecure || https, "a Secure cookie over http\n\(setup)")
            if cookie.name.lowercased().hasPrefix("__host-") {
                fuzzCheck(cookie.isSecure && cookie.isHostOnly && cookie.path == "/", "a bad __Host- cookie\n\(setup)")
            }
            // Bytes: `hasPrefix` compares characters, and "/" followed by a combining mark is one
            // character that is not "/" (FailCases/FuzzCookies/path-slash-then-combining-mark).
            fuzzCheck(cookie.path.utf8.first == UInt8(ascii: "/"), "a path without /\n\(setup)")
        } catch {
            _ = error.reason
        }
    }
    let field = jar.cookieFieldValue(for: url) ?? ""
    fuzzCheck(!field.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }), "CR, LF or NUL in the Cookie field")
    fuzzCheck(jar.count == jar.allCookies.count && jar.count <= 16, "the jar's count \(jar.count) disagrees")
}

func fuzzCookieFile(_ input: [UInt8]) {
    let first = NetscapeCookieFile.parse(input, now: fixedNow)
    for cookie in first.cookies {
        fuzzCheck(cookie.path.utf8.first == UInt8(ascii: "/") && !cookie.value.utf8.contains(UInt8(ascii: ";")) && !cookie.domain.isEmpty, "a bad cookie read: \(cookie)")
    }
    let written = NetscapeCookieFile.serialize(first.cookies)
    let again = NetscapeCookieFile.parse(Array(written.utf8), now: fixedNow)
    fuzzCheck(again.skippedLines == 0, "a file Courier wrote has bad lines\n\(written.prefix(1024))")
    fuzzCheck(again.cookies == first.cookies, "read, written and read again differs\n\(written.prefix(1024))")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCookies(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var reader = FuzzReader(Array(UnsafeBufferPointer(start: data, count: size)))
    let configuration = reader.u8()
    let rest = reader.rest()
    if configuration & 1 == 0 {
        fuzzSetCookies(rest, https: configuration & 2 != 0, host: hosts[Int(configuration >> 2) & 3])
    } else {
        fuzzCookieFile(rest)
    }
    return 0
}
