import CourierCore
import CourierHTTP1

/// Startup cross-check: both parsers must parse every case completely and agree on the status,
/// the fields (byte for byte) and the body length, and those must be what the corpus built.
/// A mismatch stops the run before anything is measured.
package enum Validation {
    package static func run() {
        for testCase in Corpus.all {
            let courier: ParseResult
            let courierFields: [(name: [UInt8], value: [UInt8])]
            do {
                courier = try CourierDriver(testCase).parseOnce()
                courierFields = try fields(testCase)
            } catch {
                fatalError("[\(testCase.name)] Courier failed: \(error)")
            }
            let driver = LLHTTPDriver(testCase)
            let llhttp = driver.parseOnce()
            let expected = (testCase.status, testCase.headerCount, testCase.bodyLength)
            check(testCase, "Courier", courier, expected)
            check(testCase, "llhttp", llhttp, expected)
            guard courier == llhttp else { fatalError("[\(testCase.name)] Courier: \(courier); llhttp: \(llhttp)") }
            let llFields = driver.lastFields()
            guard courierFields.count == llFields.count,
                zip(courierFields, llFields).allSatisfy({ $0.name == $1.name && $0.value == $1.value })
            else {
                fatalError("[\(testCase.name)] the parsers disagree on the fields")
            }
            // A second parse with the same instances (the steady state) must agree too.
            guard let again = try? CourierDriver(testCase).parseTwice(), again == courier else {
                fatalError("[\(testCase.name)] Courier's second parse differs")
            }
        }
        // gzip+inflate: the decoded size must match the gzip trailer.
        let inflating = CourierInflatingDriver(Corpus.gzip)
        for _ in 0..<2 {
            guard let (result, decoded) = try? inflating.parseOnce(), result.complete,
                decoded == Corpus.gzipDecodedLength
            else {
                fatalError("[gzip+inflate] decoded size differs from the gzip trailer's \(Corpus.gzipDecodedLength)")
            }
        }
    }

    private static func check(_ testCase: Case, _ parser: String, _ r: ParseResult, _ expected: (Int, Int, Int)) {
        guard r.complete, r.status == expected.0, r.headerCount == expected.1, r.bodyBytes == expected.2 else {
            fatalError("[\(testCase.name)] \(parser) parsed \(r); expected status \(expected.0), \(expected.1) fields, body \(expected.2) bytes")
        }
    }

    /// Courier's fields, copied out (validation only).
    private static func fields(_ testCase: Case) throws -> [(name: [UInt8], value: [UInt8])] {
        var parser = HTTPResponseParser()
        var buffer = ByteBuffer(bytes: testCase.bytes)
        while true {
            switch try parser.next(&buffer) {
            case .head(let head):
                return head.headers.map { ($0.name.buffer.readableBytesArray(), $0.value.buffer.readableBytesArray()) }
            case .needMoreData:
                return []
            default:
                continue
            }
        }
    }
}

extension CourierDriver {
    package func parseTwice() throws -> ParseResult {
        _ = try parseOnce()
        return try parseOnce()
    }
}
