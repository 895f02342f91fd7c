import CourierCore
import CourierTLS
import CourierTestSupport

/// How ciphertext is cut before it is fed to the other side.
enum Feeding: Sendable, CustomStringConvertible {
    /// Everything pending at once.
    case whole
    /// One byte at a time, calling the receiver after every byte.
    case bytewise
    /// Pieces of 1...maxPiece bytes from a seeded generator (reproducible from the seed).
    case random(seed: UInt64, maxPiece: Int)

    var description: String {
        switch self {
        case .whole: "whole"
        case .bytewise: "bytewise"
        case .random(let seed, let maxPiece): "random(seed: \(seed), maxPiece: \(maxPiece))"
        }
    }
}

/// A client engine and a server engine wired together in memory: no sockets, every byte the
/// test moves is visible.
final class Link {
    let client: TLSEngine
    let server: TLSEngine
    /// nil while in progress; set once the side's handshake completed or failed.
    private(set) var clientHandshake: Result<Void, TLSError>?
    private(set) var serverHandshake: Result<Void, TLSError>?
    private var generator: SplitMix64
    private var feeding: Feeding

    init(client: TLSEngine, server: TLSEngine, feeding: Feeding = .whole) {
        self.client = client
        self.server = server
        self.feeding = feeding
        if case .random(let seed, _) = feeding {
            generator = SplitMix64(seed: seed)
        } else {
            generator = SplitMix64(seed: 0)
        }
    }

    /// Builds both engines from contexts.
    convenience init(client: TLSContext, hostname: String?, server: TLSContext, feeding: Feeding = .whole) throws {
        self.init(client: try TLSEngine(context: client, serverHostname: hostname),
                  server: try TLSEngine(serverContext: server), feeding: feeding)
    }

    var clientError: TLSError? {
        if case .failure(let error) = clientHandshake { return error }
        return nil
    }
    var serverError: TLSError? {
        if case .failure(let error) = serverHandshake { return error }
        return nil
    }
    var bothComplete: Bool {
        if case .success = clientHandshake, case .success = serverHandshake { return true }
        return false
    }

    /// Runs both handshakes until neither side has anything left to say: each side's output is
    /// fed to the other in pieces (as `feeding` says), and the receiver's handshake is advanced
    /// after every piece. Stops when a full round moves no bytes.
    func handshake() {
        for _ in 0..<10_000 {
            advance(client, &clientHandshake)
            var moved = move(from: client, to: server) { self.advance(self.server, &self.serverHandshake) }
            advance(server, &serverHandshake)
            moved += move(from: server, to: client) { self.advance(self.client, &self.clientHandshake) }
            if moved == 0 { return }
        }
        fatalError("handshake did not settle")
    }

    private func advance(_ engine: TLSEngine, _ result: inout Result<Void, TLSError>?) {
        guard result == nil else { return }
        do {
            if try engine.handshake() == .complete { result = .success(()) }
        } catch {
            result = .failure(error)
        }
    }

    /// Moves everything `from` has pending into `to`, in pieces; calls `afterPiece` after each.
    /// Returns the number of bytes moved.
    @discardableResult
    func move(from: TLSEngine, to: TLSEngine, afterPiece: () -> Void = {}) -> Int {
        var pending = ByteBuffer()
        from.drainCiphertext(into: &pending)
        let total = pending.readableBytes
        feed(pending, to: to, afterPiece: afterPiece)
        return total
    }

    /// Feeds `bytes` to `engine` in pieces as `feeding` says.
    func feed(_ bytes: ByteBuffer, to engine: TLSEngine, afterPiece: () -> Void) {
        bytes.withUnsafeReadableBytes { all in
            var offset = 0
            while offset < all.count {
                let size: Int
                switch feeding {
                case .whole: size = all.count
                case .bytewise: size = 1
                case .random(_, let maxPiece): size = Int.random(in: 1...maxPiece, using: &generator)
                }
                let end = Swift.min(all.count, offset + size)
                engine.feedCiphertext(UnsafeRawBufferPointer(rebasing: all[offset..<end]))
                offset = end
                afterPiece()
            }
        }
    }

    /// Sends `payload` from one side to the other: encrypts it, feeds the ciphertext in pieces,
    /// reads after every piece, and returns every plaintext byte the receiver produced.
    func send(_ payload: [UInt8], from sender: TLSEngine, to receiver: TLSEngine) throws(TLSError) -> [UInt8] {
        try sender.writePlaintext(ByteBuffer(bytes: payload))
        var ciphertext = ByteBuffer()
        sender.drainCiphertext(into: &ciphertext)
        var received = ByteBuffer(capacity: payload.count)
        var failure: TLSError?
        feed(ciphertext, to: receiver) {
            guard failure == nil else { return }
            do throws(TLSError) { _ = try readAvailable(receiver, into: &received) } catch { failure = error }
        }
        if let failure { throw failure }
        return received.readableBytesArray()
    }
}

/// Reads plaintext until the engine needs more ciphertext or the stream closed. Returns the
/// last result (`.wantMoreCiphertext` or `.closed`).
@discardableResult
func readAvailable(_ engine: TLSEngine, into buffer: inout ByteBuffer, maxBytes: Int = 64 * 1024) throws(TLSError) -> TLSReadResult {
    while true {
        let result = try engine.readPlaintext(into: &buffer, maxBytes: maxBytes)
        if case .bytes = result { continue }
        return result
    }
}

/// Contexts built from the certificate matrix.
enum Contexts {
    /// A client trusting the test root (ca.pem) unless `trust` says otherwise.
    static func client(
        trust: [TrustRoot] = [.file(Certificates.path("ca.pem"))],
        _ modify: (inout TLSConfiguration) -> Void = { _ in }
    ) throws -> TLSContext {
        var configuration = TLSConfiguration()
        configuration.trustRoots = trust
        modify(&configuration)
        return try TLSContext(configuration: configuration)
    }

    /// A server presenting `chain` (a file in the matrix) with `key`.
    static func server(
        chain: String = "valid-chain.pem", key: String = "valid.key",
        _ modify: (inout TLSServerConfiguration) -> Void = { _ in }
    ) throws -> TLSContext {
        var configuration = TLSServerConfiguration(
            certificateChainFile: Certificates.path(chain), privateKeyFile: Certificates.path(key))
        modify(&configuration)
        return try TLSContext(server: configuration)
    }
}

/// A deterministic payload of `count` bytes (not all zeros, so misplaced bytes are caught).
func payload(count: Int, seed: UInt64 = 1) -> [UInt8] {
    var generator = SplitMix64(seed: seed)
    var bytes = [UInt8](repeating: 0, count: count)
    var i = 0
    while i < count {
        var word = generator.next()
        for _ in 0..<8 where i < count {
            bytes[i] = UInt8(truncatingIfNeeded: word)
            word >>= 8
            i += 1
        }
    }
    return bytes
}
