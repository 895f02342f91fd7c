import CourierCore

/// A request body produced by an `AsyncSequence` (``HTTPClientRequestBody/sequence(length:makeSequence:)``).
///
/// A Swift task of its own (outside the event loops) iterates the sequence into a small
/// bounded buffer (about 256 KiB); the connection takes pieces from it as the socket drains,
/// and is woken when a piece arrives after it found the buffer empty. The sequence is not read
/// further while the buffer is full (backpressure), and its task is cancelled when the request
/// ends first. An error it throws fails the request in the `send` phase.
public struct HTTPClientBodySequence: Sendable {
    let produce: @Sendable (RequestBodyPipe) async throws -> Void

    /// A body from a sequence of buffers.
    public init<Pieces: AsyncSequence & Sendable>(_ pieces: Pieces) where Pieces.Element == ByteBuffer {
        produce = { pipe in
            for try await piece in pieces { try await pipe.write(piece) }
        }
    }

    /// A body from a sequence of byte collections (`[UInt8]`, `ArraySlice<UInt8>`, …).
    public init<Pieces: AsyncSequence & Sendable>(bytes pieces: Pieces) where Pieces.Element: Collection<UInt8> {
        produce = { pipe in
            for try await piece in pieces { try await pipe.write(ByteBuffer(bytes: piece)) }
        }
    }
}

extension HTTPClientRequestBody {
    /// A body from an `AsyncSequence` of buffers; `makeSequence` is called once per attempt
    /// (a 307/308 redirect or the safe retry sends the body again). `length` known →
    /// Content-Length (the sequence must produce exactly that many bytes, or the request fails
    /// with `bodyLengthMismatch`), nil → chunked (RFC 9112 §6.1, §7.1).
    public static func sequence<Pieces: AsyncSequence & Sendable>(
        length: Int64? = nil, _ makeSequence: @escaping @Sendable () -> Pieces
    ) -> HTTPClientRequestBody where Pieces.Element == ByteBuffer {
        .sequence(length: length) { HTTPClientBodySequence(makeSequence()) }
    }

    /// A body from an `AsyncSequence` of byte collections (see ``sequence(length:_:)-(_,()->Pieces)``).
    public static func sequence<Pieces: AsyncSequence & Sendable>(
        length: Int64? = nil, bytes makeSequence: @escaping @Sendable () -> Pieces
    ) -> HTTPClientRequestBody where Pieces.Element: Collection<UInt8> {
        .sequence(length: length) { HTTPClientBodySequence(bytes: makeSequence()) }
    }
}
