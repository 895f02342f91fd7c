@testable import Courier
import CourierCore
import FoundationEssentials
import Glibc
import Testing

/// MIME types, boundaries, quoting and escaping of names (RFC 7578 §4.2), refused injections,
/// and the checks made when a part is appended.
@Suite struct MultipartEncodingTests {
    @Test func mimeTypesFromExtensions() {
        #expect(MIMETypes.mimeType(forPathExtension: "png") == "image/png")
        #expect(MIMETypes.mimeType(forPathExtension: "JPG") == "image/jpeg")
        #expect(MIMETypes.mimeType(forPathExtension: "json") == "application/json")
        #expect(MIMETypes.mimeType(forPathExtension: "pdf") == "application/pdf")
        #expect(MIMETypes.mimeType(forPathExtension: "unknownext") == "application/octet-stream")
        #expect(MIMETypes.mimeType(forFileName: "dir.v2/photo.Jpeg") == "image/jpeg")
        #expect(MIMETypes.mimeType(forFileName: "archive.tar.gz") == "application/gzip")
        #expect(MIMETypes.mimeType(forFileName: "README") == "application/octet-stream")
        #expect(MIMETypes.mimeType(forFileName: ".profile") == "application/octet-stream")
        #expect(MIMETypes.mimeType(forFileName: "a.txt") == "text/plain")
    }

    @Test func randomBoundaryHasAFNetworkingShape() {
        let a = MultipartFormData().boundary
        let b = MultipartFormData().boundary
        #expect(a != b)
        #expect(a.hasPrefix("Boundary+"))
        let hex = a.dropFirst("Boundary+".count)
        #expect(hex.count == 16)
        #expect(hex.allSatisfy { "0123456789ABCDEF".contains($0) })
    }

    @Test func invalidBoundariesAreRefused() {
        for bad in ["", String(repeating: "a", count: 71), "ends with space ", "semi;colon", "quote\"", "cr\rlf", "ünï"] {
            #expect(throws: CourierError.self, "\(bad.debugDescription)") { try MultipartFormData(boundary: bad) }
        }
        #expect((try? MultipartFormData(boundary: String(repeating: "a", count: 70))) != nil)
    }

    @Test func namesAreQuotedAndEscaped() throws {
        #expect(try MultipartHeaderText.quoted("plain", what: "t") == "\"plain\"")
        #expect(try MultipartHeaderText.quoted("a\"b", what: "t") == "\"a%22b\"")
        #expect(try MultipartHeaderText.quoted("line1\r\nline2", what: "t") == "\"line1%0D%0Aline2\"")
        #expect(try MultipartHeaderText.quoted("lone\ncr\r", what: "t") == "\"lone%0Acr%0D\"")
        #expect(try MultipartHeaderText.quoted("tab\there", what: "t") == "\"tab\there\"")
        // Percent signs and backslashes are not escapes here: sent as they are (WHATWG).
        #expect(try MultipartHeaderText.quoted("100%\\", what: "t") == "\"100%\\\"")
        #expect(try MultipartHeaderText.quoted("日本", what: "t") == "\"日本\"")
    }

    @Test func escapedNamesNeverBreakTheHeaderLine() throws {
        let form = try MultipartFixtures.form()
        try form.appendPart(data: Data("v".utf8), name: "evil\"\r\nX-Injected: 1\r\n\r\nbody", fileName: "f\r\n.txt", mimeType: "text/plain")
        let text = String(decoding: try drain(form.makeBody()), as: UTF8.self)
        #expect(!text.contains("\r\nX-Injected"))
        #expect(text.contains("name=\"evil%22%0D%0AX-Injected: 1%0D%0A%0D%0Abody\"; filename=\"f%0D%0A.txt\"\r\n"))
    }

    @Test func controlCharactersInNamesAreRefused() throws {
        let form = try MultipartFixtures.form()
        for bad in ["nul\u{0}", "bell\u{7}", "del\u{7F}", "esc\u{1B}"] {
            #expect(throws: CourierError.self) { try form.appendPart(data: Data(), name: bad) }
            #expect(throws: CourierError.self) { try form.appendPart(data: Data(), name: "ok", fileName: bad, mimeType: "text/plain") }
        }
        #expect(form.partCount == 0)
    }

    @Test func headerInjectionThroughMimeTypeIsRefused() throws {
        let form = try MultipartFixtures.form()
        for bad in ["text/plain\r\nX-Evil: 1", "text/plain\nX", "text/plain\rX", "text/\u{0}plain"] {
            do {
                try form.appendPart(data: Data("x".utf8), name: "f", fileName: "f.txt", mimeType: bad)
                Issue.record("accepted \(bad.debugDescription)")
            } catch {
                #expect(error.code == .invalidHeader)
            }
            #expect(throws: CourierError.self) {
                try form.appendPart(stream: { BytesStream([]) }, length: 0, name: "s", fileName: "s", mimeType: bad)
            }
            #expect(throws: CourierError.self) {
                try form.appendPart(fileURL: MultipartFixtures.url("multipart-sample.txt"), name: "f", fileName: "f", mimeType: bad)
            }
        }
        #expect(form.partCount == 0)
    }

    @Test func customHeadersCannotCarryLineBreaks() {
        var headers = HTTPFields()
        #expect(throws: HTTPFieldError.self) { try headers.append(name: "X-Part", value: "a\r\nInjected: 1") }
        #expect(throws: HTTPFieldError.self) { try headers.append(name: "Bad Name", value: "a") }
    }

    @Test func missingFileIsRefusedAtAppend() throws {
        let form = try MultipartFixtures.form()
        do {
            try form.appendPart(fileURL: URL(fileURLWithPath: multipartTemporaryPath("missing")), name: "f")
            Issue.record("a missing file was accepted")
        } catch {
            #expect(error.code == .bodyFileUnreadable)
            #expect(error.phase == .serialize)
        }
        #expect(form.partCount == 0)
    }

    @Test func directoryAndNonFileURLsAreRefused() throws {
        let form = try MultipartFixtures.form()
        #expect(throws: CourierError.self) { try form.appendPart(fileURL: MultipartFixtures.directory, name: "dir") }
        #expect(throws: CourierError.self) { try form.appendPart(fileURL: URL(string: "http://example.test/a.txt")!, name: "web") }
        #expect(throws: CourierError.self) { try form.appendPart(fileURL: URL(fileURLWithPath: "/dev/null"), name: "device") }
    }

    @Test func unreadableFileIsRefused() throws {
        // Root can read anything, so only check where permissions apply.
        guard geteuid() != 0 else { return }
        let path = try makeMultipartTemporaryFile([1, 2, 3])
        defer { unlink(path) }
        chmod(path, 0)
        let form = try MultipartFixtures.form()
        #expect(throws: CourierError.self) { try form.appendPart(fileURL: URL(fileURLWithPath: path), name: "f") }
    }

    @Test func negativeStreamLengthIsRefused() throws {
        let form = try MultipartFixtures.form()
        #expect(throws: CourierError.self) {
            try form.appendPart(stream: { BytesStream([]) }, length: -1, name: "s", fileName: "s", mimeType: "text/plain")
        }
    }

    @Test func contentLengthCountsFramingHeadersAndContent() throws {
        let form = try MultipartFixtures.form()
        try form.appendPart(data: Data("abc".utf8), name: "a")
        let boundary = MultipartFixtures.boundary
        let disposition = "Content-Disposition: form-data; name=\"a\"\r\n\r\n"
        let expected = ("--\(boundary)\r\n" + disposition + "abc" + "\r\n--\(boundary)--\r\n").utf8.count
        #expect(form.contentLength == Int64(expected))
        // A body made earlier keeps its snapshot.
        let before = form.makeBody()
        try form.appendPart(data: Data("d".utf8), name: "b")
        #expect(before.length == Int64(expected))
        #expect(form.contentLength > Int64(expected))
    }
}
