import CourierClient
import CourierCore
import FoundationEssentials

/// One body part of a multipart/form-data body (RFC 7578 §4): its header fields, in order,
/// and where its content comes from.
struct MultipartPart: Sendable {
    /// Content-Disposition first, then Content-Type (AFNetworking's order), or the caller's own.
    var headers: [HTTPField]
    var body: MultipartPartBody

    /// `Name: value\r\n` per field, then the empty line that ends the part's header section
    /// (RFC 2046 §5.1.1).
    func encodedHeaders() -> ByteBuffer {
        var buffer = ByteBuffer()
        for field in headers {
            buffer.writeString(field.name)
            buffer.writeString(": ")
            buffer.writeString(field.value)
            buffer.writeString("\r\n")
        }
        buffer.writeString("\r\n")
        return buffer
    }
}

/// Where a part's content comes from. Every kind has a length known before sending.
enum MultipartPartBody: Sendable {
    case bytes(ByteBuffer)
    /// A regular file whose size was read (with `stat`) when the part was appended; reading it
    /// later checks that the size is still the same.
    case file(path: String, size: Int64)
    /// A caller's stream that must produce exactly `length` bytes; `make` is called per attempt.
    case stream(length: Int64, make: @Sendable () -> any HTTPClientBodyStream)

    var length: Int64 {
        switch self {
        case .bytes(let buffer): Int64(buffer.readableBytes)
        case .file(_, let size): size
        case .stream(let length, _): length
        }
    }
}
