@testable import Courier
import CourierCore
import FoundationEssentials
import Glibc
import Testing

/// Helpers shared by the multipart tests.
enum MultipartFixtures {
    static let boundary = "TestBoundary+0123456789ABCDEF"

    /// `Tests/CourierTests/Fixtures`, found from this file's path.
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")
    }

    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(name)))
    }

    static func form() throws -> MultipartFormData { try MultipartFormData(boundary: boundary) }

    /// The same 1,000 bytes as the fixture script's stream part.
    static let streamContent = [UInt8](String(repeating: "0123456789", count: 100).utf8)
    /// Made anew at each use: a `Data` kept in a global holds its storage through a tagged
    /// pointer that LeakSanitizer does not recognise, so `make test-asan` would report it.
    static var binary: Data { Data((0...255).map { UInt8($0) }) }
}

/// A stream over fixed bytes, in pieces of `pieceSize`.
struct BytesStream: HTTPClientBodyStream {
    var bytes: [UInt8]
    var pieceSize: Int
    var offset = 0

    init(_ bytes: [UInt8], pieceSize: Int = 300) {
        self.bytes = bytes
        self.pieceSize = pieceSize
    }

    mutating func next() throws -> ByteBuffer? {
        guard offset < bytes.count else { return nil }
        let end = min(bytes.count, offset + pieceSize)
        defer { offset = end }
        return ByteBuffer(bytes: bytes[offset..<end])
    }
}

/// Pulls a stream to the end; returns the bytes and the largest piece seen.
func drain(_ stream: inout some HTTPClientBodyStream) throws -> (bytes: [UInt8], largestPiece: Int, pieces: Int) {
    var bytes: [UInt8] = []
    var largest = 0
    var pieces = 0
    while let piece = try stream.next() {
        bytes += piece.readableBytesArray()
        largest = max(largest, piece.readableBytes)
        pieces += 1
    }
    return (bytes, largest, pieces)
}

/// Pulls the stream of a `RequestBody.stream` to the end.
func drain(_ body: RequestBody) throws -> [UInt8] {
    guard case .stream(_, let makeStream) = body else {
        Issue.record("expected a stream body")
        return []
    }
    var stream = makeStream()
    var bytes: [UInt8] = []
    while let piece = try stream.next() { bytes += piece.readableBytesArray() }
    return bytes
}

/// A fresh temporary path (not created) under TMPDIR or the usual directory.
func multipartTemporaryPath(_ suffix: String) -> String {
    let dir = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? ("/" + "tmp")
    return dir + "/courier-multipart-\(getpid())-\(UInt32.random(in: 0 ... .max))-" + suffix
}

/// Writes `bytes` to a new temporary file and returns its path (the caller removes it).
func makeMultipartTemporaryFile(_ bytes: [UInt8], suffix: String = "file.bin") throws -> String {
    let path = multipartTemporaryPath(suffix)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
}
