import Foundation

/// One benchmark input: a complete HTTP/1.1 response, the same bytes for both parsers.
package struct Case: Sendable {
    package let name: String
    package let bytes: [UInt8]
    /// What a correct parse must find (checked at startup against both parsers).
    package let status: Int
    package let headerCount: Int
    package let bodyLength: Int
}

/// The corpus, built deterministically: the same bytes on every run and machine.
package enum Corpus {
    package static let typical = makeTypical()
    package static let fortyHeaders = makeFortyHeaders()
    package static let fiveHundredChunks = makeChunked()
    package static let gzip = makeGzip()

    package static let all: [Case] = [typical, fortyHeaders, fiveHundredChunks, gzip]

    /// The date every response carries (the date of the recorded run).
    static let date = "Sun, 22 Nov 2026 15:04:05 GMT"

    private static func response(status: String, fields: [(String, String)], body: [UInt8]) -> [UInt8] {
        var head = "HTTP/1.1 \(status)\r\n"
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    // MARK: typical

    /// A JSON API response: a head of about 300 bytes and a small JSON body.
    private static func makeTypical() -> Case {
        let body = Array(
            """
            {"id":"ord_8f14e45fceea167a","status":"shipped","currency":"EUR","total":12999,\
            "items":[{"sku":"SKU-20931","qty":1,"price":9999},{"sku":"SKU-11873","qty":2,"price":1500}],\
            "created":"2026-11-21T09:14:03Z","customer":{"id":"cus_42","name":"Ada Lovelace"}}
            """.utf8)
        let fields: [(String, String)] = [
            ("Date", date),
            ("Content-Type", "application/json; charset=utf-8"),
            ("Content-Length", "\(body.count)"),
            ("Connection", "keep-alive"),
            ("Server", "nginx/1.27.3"),
            ("Cache-Control", "private, max-age=0, no-cache"),
            ("ETag", "W/\"10c-5f3a9c1b2e7d4a6f\""),
            ("Vary", "Accept-Encoding, Authorization"),
            ("X-Request-Id", "7b9e2c4a-1f3d-4e8b-9a6c-2d5f8e1b3c7a"),
        ]
        return Case(
            name: "typical", bytes: response(status: "200 OK", fields: fields, body: body),
            status: 200, headerCount: fields.count, bodyLength: body.count)
    }

    // MARK: 40 headers

    /// A CDN-fronted response with 40 fields of realistic lengths (security policy, cookies,
    /// cache and tracing fields).
    private static func makeFortyHeaders() -> Case {
        let body = Array(#"{"ok":true,"page":1,"per_page":20,"total":0,"results":[]}"#.utf8)
        let fields: [(String, String)] = [
            ("Date", date),
            ("Content-Type", "application/json; charset=utf-8"),
            ("Content-Length", "\(body.count)"),
            ("Connection", "keep-alive"),
            ("Server", "cloudflare"),
            ("Cache-Control", "public, max-age=60, s-maxage=300, stale-while-revalidate=30"),
            ("ETag", "\"33a64df551425fcc55e4d42a148795d9f25f89d4\""),
            ("Last-Modified", "Sat, 21 Nov 2026 23:59:58 GMT"),
            ("Expires", "Sun, 22 Nov 2026 15:05:05 GMT"),
            ("Age", "17"),
            ("Vary", "Accept-Encoding, Origin, Accept-Language"),
            ("Accept-Ranges", "bytes"),
            ("Content-Language", "en-US"),
            ("Strict-Transport-Security", "max-age=63072000; includeSubDomains; preload"),
            ("Content-Security-Policy",
             "default-src 'self'; script-src 'self' https://cdn.example.com 'nonce-r4nd0m'; "
                + "style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; "
                + "connect-src 'self' https://api.example.com; frame-ancestors 'none'"),
            ("X-Content-Type-Options", "nosniff"),
            ("X-Frame-Options", "DENY"),
            ("Referrer-Policy", "strict-origin-when-cross-origin"),
            ("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()"),
            ("Cross-Origin-Opener-Policy", "same-origin"),
            ("Access-Control-Allow-Origin", "https://app.example.com"),
            ("Access-Control-Allow-Credentials", "true"),
            ("Access-Control-Expose-Headers", "ETag, Link, X-RateLimit-Remaining, X-Request-Id"),
            ("Set-Cookie",
             "session=8d9f7a6b5c4e3d2f1a0b9c8d7e6f5a4b; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=86400"),
            ("Set-Cookie", "csrftoken=Yx3kP9qLm2Vn8Rt5Wz7Bc4Df6Gh1Jk0S; Path=/; Secure; SameSite=Strict"),
            ("Set-Cookie", "__cf_bm=a1b2c3d4e5f6.1795878245-1.0.1.1; path=/; expires=Sun, 22-Nov-26 15:34:05 GMT; domain=.example.com; HttpOnly; Secure"),
            ("Link", "<https://api.example.com/v2/items?page=2>; rel=\"next\", <https://api.example.com/v2/items?page=9>; rel=\"last\""),
            ("Via", "1.1 varnish, 1.1 b3c2a1f0e9d8.cloudfront.net (CloudFront)"),
            ("X-Cache", "Hit from cloudfront"),
            ("X-Cache-Hits", "3, 1"),
            ("X-Served-By", "cache-fra-eddf8230110-FRA, cache-ams21052-AMS"),
            ("X-Timer", "S1795878245.123456,VS0,VE1"),
            ("CF-Cache-Status", "HIT"),
            ("CF-Ray", "8e4f2a7b9c1d3e5f-FRA"),
            ("Alt-Svc", "h3=\":443\"; ma=86400"),
            ("Server-Timing", "cdn-cache;desc=HIT, edge;dur=1, origin;dur=0"),
            ("X-RateLimit-Limit", "5000"),
            ("X-RateLimit-Remaining", "4987"),
            ("X-RateLimit-Reset", "1795881845"),
            ("X-Request-Id", "req_01JD8Z3Q4W5E6R7T8Y9U0I1O2P"),
        ]
        precondition(fields.count == 40)
        return Case(
            name: "40 headers", bytes: response(status: "200 OK", fields: fields, body: body),
            status: 200, headerCount: fields.count, bodyLength: body.count)
    }

    // MARK: 500 chunks

    /// A streamed NDJSON-style body in 500 chunks of 16–64 bytes, then the last chunk.
    private static func makeChunked() -> Case {
        let fields: [(String, String)] = [
            ("Date", date),
            ("Content-Type", "application/x-ndjson"),
            ("Transfer-Encoding", "chunked"),
            ("Connection", "keep-alive"),
            ("Server", "envoy"),
            ("Cache-Control", "no-store"),
        ]
        var generator = LCG(seed: 0x5EED_C0DE)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,:{}\"".utf8)
        var body: [UInt8] = []
        var decoded = 0
        for _ in 0..<500 {
            let size = 16 + generator.next(49)  // 16...64
            body += Array(String(size, radix: 16).utf8) + [13, 10]
            for _ in 0..<size { body.append(alphabet[generator.next(alphabet.count)]) }
            body += [13, 10]
            decoded += size
        }
        body += Array("0\r\n\r\n".utf8)
        return Case(
            name: "500 chunks", bytes: response(status: "200 OK", fields: fields, body: body),
            status: 200, headerCount: fields.count, bodyLength: decoded)
    }

    // MARK: gzip

    /// The bytes of the committed fixture `Benchmarks/Fixtures/body.json.gz` (made once by
    /// `make-gzip-fixture.py`; about 32 KiB compressed, 160 KiB decoded).
    package static let gzipBody: [UInt8] = {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // ParserCorpus
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()  // Benchmarks (package)
            .appendingPathComponent("Fixtures/body.json.gz")
        guard let data = try? Data(contentsOf: url) else { fatalError("cannot read the gzip fixture at \(url.path)") }
        return Array(data)
    }()

    /// The decoded size the gzip trailer states (ISIZE, RFC 1952 §2.3.1).
    package static var gzipDecodedLength: Int {
        let b = gzipBody.suffix(4).map(Int.init)
        return b[b.startIndex] | b[b.startIndex + 1] << 8 | b[b.startIndex + 2] << 16 | b[b.startIndex + 3] << 24
    }

    private static func makeGzip() -> Case {
        let body = gzipBody
        let fields: [(String, String)] = [
            ("Date", date),
            ("Content-Type", "application/x-ndjson"),
            ("Content-Encoding", "gzip"),
            ("Content-Length", "\(body.count)"),
            ("Connection", "keep-alive"),
            ("Server", "nginx/1.27.3"),
            ("Cache-Control", "private, max-age=0"),
            ("Vary", "Accept-Encoding"),
            ("ETag", "W/\"8051-5f3a9c1b2e7d\""),
            ("X-Request-Id", "0f8c2d1e-3b4a-4c5d-8e9f-a0b1c2d3e4f5"),
        ]
        return Case(
            name: "gzip", bytes: response(status: "200 OK", fields: fields, body: body),
            status: 200, headerCount: fields.count, bodyLength: body.count)
    }
}

/// A small deterministic generator (Knuth's MMIX constants), so the corpus never changes.
package struct LCG {
    private var state: UInt64
    package init(seed: UInt64) { state = seed }
    package mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
}
