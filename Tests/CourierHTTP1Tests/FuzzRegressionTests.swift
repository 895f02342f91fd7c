import CourierTestSupport
import CourierCore
import CourierHTTP1
import Testing

/// Inputs the fuzzers in `Fuzz/` found, replayed byte for byte. Each test names the reproducer
/// saved under `Fuzz/FailCases/<Target>/`; the stream bytes here are that file's bytes after the
/// fuzzer's configuration prefix, and the configuration is the one the prefix selects.
@Suite struct FuzzRegressionTests {
    // MARK: - FuzzResponseParser: obs-fold into a framing field

    /// Parses `input` fed in `pieces` and returns the events rendered as text, or the error.
    private func parseResponse(_ pieces: [[UInt8]], _ configuration: HTTPParserConfiguration) -> [String] {
        var parser = HTTPResponseParser(configuration: configuration)
        var buffer = ByteBuffer()
        var events: [String] = []
        do throws(HTTPParserError) {
            for piece in pieces {
                buffer.writeBytes(piece)
                while true {
                    let event = try parser.next(&buffer)
                    if case .needMoreData = event { break }
                    events.append(Self.render(event))
                }
            }
            while true {
                let event = try parser.finish(&buffer)
                if case .needMoreData = event { break }
                events.append(Self.render(event))
            }
        } catch {
            events.append("error \(error.code)@\(error.offset)")
        }
        return events
    }

    private static func render(_ event: HTTPResponseParserEvent) -> String {
        switch event {
        case .head(let head), .informational(let head), .switchingProtocols(let head):
            let fields = head.headers.map { "\($0.name.string)=\($0.value.string)" }.joined(separator: ",")
            return "head \(head.status) [\(fields)] \(head.framing)"
        case .body(let bytes):
            return "body \(bytes.readableBytes)"
        case .end:
            return "end"
        case .needMoreData:
            return "needMoreData"
        }
    }

    /// `Fuzz/FailCases/FuzzResponseParser/obs-fold-into-content-length`: with obs-fold allowed,
    /// a continuation line was unfolded into Content-Length after the framing had been read from
    /// its first line, so the head said `Content-Length: 1   b` while the body was framed as one
    /// byte. A continuation of a framing field is now refused.
    @Test func obsFoldIntoContentLengthIsRefused() {
        // The reproducer's configuration prefix selects obs-fold, bare LF and CL-with-TE, with
        // limits (64 KiB head, 256 fields, 1 KiB body) that this input does not reach.
        var configuration = HTTPParserConfiguration()
        configuration.allowObsFold = true
        configuration.allowBareLF = true
        configuration.allowContentLengthWithTransferEncoding = true
        configuration.maxBodyBytes = 1024
        let input = Array("HTTP/1.1 200\nContent-Length:1\n b\n\n".utf8)
        let events = expectSameForEveryFeeding(input) { parseResponse($0, configuration) }
        #expect(events == ["error obsFold@30"])
    }

    @Test(arguments: ["Content-Length: 1", "Transfer-Encoding: chunked", "transfer-encoding:", "Connection: keep-alive"])
    func obsFoldIntoAnyFramingFieldIsRefused(_ firstLine: String) {
        var configuration = HTTPParserConfiguration()
        configuration.allowObsFold = true
        let head = "HTTP/1.1 200 OK\r\n\(firstLine)\r\n , close\r\n\r\n"
        let offset = head.utf8.count - " , close\r\n\r\n".utf8.count
        let events = expectSameForEveryFeeding(Array(head.utf8)) { parseResponse($0, configuration) }
        #expect(events == ["error obsFold@\(offset)"])
    }

    @Test func obsFoldIntoOtherFieldsStillUnfolds() {
        var configuration = HTTPParserConfiguration()
        configuration.allowObsFold = true
        let input = Array("HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\nContent-Length: 1\r\n\r\nz".utf8)
        let events = expectSameForEveryFeeding(input) { parseResponse($0, configuration) }
        #expect(events == ["head 200 [X-Folded=a   b,Content-Length=1] contentLength(1)", "body 1", "end"])
    }

    // MARK: - FuzzRequestRoundTrip: versions the encoder cannot write

    /// `Fuzz/FailCases/FuzzRequestRoundTrip/version-1-2-written-as-1-1`: a head with version 1.2
    /// and no Host was encoded as `GET /index.html HTTP/1.1` with no Host field: the version was
    /// silently changed, and the Host check (made only for exactly HTTP/1.1) was skipped.
    @Test func unsupportedVersionIsRefused() {
        // The reproducer's bytes: GET, origin "/index.html", version 1.2, no fields, no host, no body.
        let reproducer: [UInt8] = [
            0x00, 0x00, 0x0b, 0x2f, 0x69, 0x6e, 0x64, 0x65, 0x78, 0x2e, 0x68, 0x74, 0x6d, 0x6c, 0x03, 0x01, 0x02, 0x00,
        ]
        let target = String(decoding: reproducer[3..<14], as: UTF8.self)
        let head = HTTPRequestHead(
            method: .GET, target: .origin(target), version: HTTPVersion(major: reproducer[15], minor: reproducer[16]))
        var buffer = ByteBuffer()
        let error = #expect(throws: HTTPEncodingError.self) {
            try HTTPRequestEncoder.encodeHead(head, host: nil, framing: .none, into: &buffer)
        }
        #expect(error?.reason == .unsupportedVersion)
        #expect(buffer.readableBytes == 0)
    }

    @Test(arguments: [HTTPVersion(major: 2, minor: 0), HTTPVersion(major: 0, minor: 9), HTTPVersion(major: 1, minor: 2)])
    func onlyHTTP10And11AreEncoded(_ version: HTTPVersion) {
        let head = HTTPRequestHead(method: .GET, target: .origin("/"), version: version)
        var buffer = ByteBuffer()
        let error = #expect(throws: HTTPEncodingError.self) {
            try HTTPRequestEncoder.encodeHead(head, host: "example.com", framing: .none, into: &buffer)
        }
        #expect(error?.reason == .unsupportedVersion)
        #expect(buffer.readableBytes == 0)
    }
}
