@testable import Courier
import CourierCore
import FoundationEssentials
import Glibc
import Testing

/// Bodies compared byte for byte with fixtures written from the RFC 2046 / RFC 7578 framing by
/// `Fixtures/make-multipart-fixtures.py` (not by this code).
@Suite struct MultipartFixtureTests {
    typealias Build = @Sendable (MultipartFormData) throws -> Void

    static func fields(_ form: MultipartFormData) throws {
        try form.appendPart(data: Data("alice".utf8), name: "username")
        try form.appendPart(data: Data("hello\r\nworld".utf8), name: "note")
        try form.appendPart(data: Data(), name: "empty")
    }

    static func dataFile(_ form: MultipartFormData) throws {
        try form.appendPart(data: MultipartFixtures.binary, name: "avatar", fileName: "a.png", mimeType: "image/png")
    }

    static func file(_ form: MultipartFormData) throws {
        // Filename and MIME type come from the URL (".txt" → text/plain).
        try form.appendPart(fileURL: MultipartFixtures.url("multipart-sample.txt"), name: "document")
    }

    static func stream(_ form: MultipartFormData) throws {
        try form.appendPart(
            stream: { BytesStream(MultipartFixtures.streamContent) }, length: 1000, name: "log", fileName: "stream.bin",
            mimeType: MIMETypes.mimeType(forFileName: "stream.bin"))
    }

    static func customHeaders(_ form: MultipartFormData) throws {
        form.appendPart(
            headers: ["Content-Disposition": "form-data; name=\"meta\"", "Content-Type": "application/json", "X-Custom": "1"],
            body: Data("{\"a\":1}".utf8))
        form.appendPart(headers: ["Content-Type": "text/plain"], body: Data("no disposition".utf8))
    }

    static func unicode(_ form: MultipartFormData) throws {
        try form.appendPart(data: Data("ünïcødé".utf8), name: "名前")
        try form.appendPart(data: Data("x".utf8), name: "say \"hi\"\r\nnow")
        try form.appendPart(data: Data("%PDF".utf8), name: "cv", fileName: "résumé \"v2\".pdf", mimeType: "application/pdf")
    }

    static func mixed(_ form: MultipartFormData) throws {
        try form.appendPart(data: Data("Holiday".utf8), name: "title")
        try file(form)
        try stream(form)
        try dataFile(form)
    }

    static let cases: [(fixture: String, build: Build)] = [
        ("multipart-fields.bin", fields),
        ("multipart-data-file.bin", dataFile),
        ("multipart-file.bin", file),
        ("multipart-stream.bin", stream),
        ("multipart-custom-headers.bin", customHeaders),
        ("multipart-unicode.bin", unicode),
        ("multipart-mixed.bin", mixed),
    ]

    static var fixtureNames: [String] { cases.map(\.fixture) }

    static func form(for fixture: String) throws -> MultipartFormData {
        let form = try MultipartFixtures.form()
        try #require(cases.first { $0.fixture == fixture }).build(form)
        return form
    }

    @Test(arguments: fixtureNames)
    func bodyMatchesFixtureByteForByte(_ fixture: String) throws {
        let expected = try MultipartFixtures.bytes(fixture)
        let form = try Self.form(for: fixture)
        let body = form.makeBody()
        #expect(body.length == Int64(expected.count))
        #expect(form.contentLength == Int64(expected.count))
        let produced = try drain(body)
        #expect(produced == expected, "\(fixture): body differs from the fixture")
        #expect(Int64(produced.count) == form.contentLength)
    }

    @Test(arguments: fixtureNames)
    func streamProducedTwiceGivesIdenticalBytes(_ fixture: String) throws {
        let body = try Self.form(for: fixture).makeBody()
        let first = try drain(body)
        let second = try drain(body)
        #expect(first == second)
        #expect(first == (try MultipartFixtures.bytes(fixture)))
    }

    @Test(arguments: fixtureNames)
    func tinyPiecesGiveTheSameBytes(_ fixture: String) throws {
        // Every segment boundary falls inside a piece somewhere: framing, headers, file, stream.
        let form = try Self.form(for: fixture)
        for pieceSize in [1, 7, 64] {
            var stream = form.makeStream(pieceSize: pieceSize)
            let (bytes, largest, _) = try drain(&stream)
            #expect(bytes == (try MultipartFixtures.bytes(fixture)), "piece size \(pieceSize)")
            #expect(largest <= pieceSize)
        }
    }

    @Test(arguments: fixtureNames)
    func writeBodyToFileMatchesFixture(_ fixture: String) throws {
        let path = multipartTemporaryPath("body.bin")
        defer { unlink(path) }
        let form = try Self.form(for: fixture)
        try form.writeBody(to: URL(fileURLWithPath: path))
        let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written == (try MultipartFixtures.bytes(fixture)))
        #expect(Int64(written.count) == form.contentLength)
    }

    @Test func contentTypeNamesTheBoundary() throws {
        let form = try MultipartFixtures.form()
        #expect(form.contentType == "multipart/form-data; boundary=TestBoundary+0123456789ABCDEF")
        // A boundary with characters outside `token` is quoted (RFC 9110 §5.6.6).
        #expect(try MultipartFormData(boundary: "a b:c").contentType == "multipart/form-data; boundary=\"a b:c\"")
    }

    @Test func emptyFormHasAnEmptyBody() throws {
        let form = try MultipartFixtures.form()
        #expect(form.contentLength == 0)
        #expect(try drain(form.makeBody()).isEmpty)
    }
}
