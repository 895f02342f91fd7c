import CourierCore

/// A token bucket that limits how fast a multipart body is handed to the connection
/// (AFNetworking's `throttleBandwidthWithPacketSize:delay:`, without sleeping).
///
/// AFNetworking's body stream sleeps its thread between packets; Courier's body stream runs on
/// an event loop, which must never sleep. Instead, when the bucket holds too few tokens for the
/// next piece, the stream returns an empty piece and sets `waitAfterEmptyPiece` to the time the
/// bucket needs to refill; the connection arms a loop timer and asks again when it fires.
struct MultipartTokenBucket: Sendable {
    let bytesPerSecond: Int
    /// The most the bucket holds, and so the largest piece it grants: a quarter of a second's
    /// worth (at least 1 byte, at most one read piece), so a body is sent in a few pieces per
    /// second instead of one burst per second.
    let capacity: Int
    private var tokens: Double
    private var last: Deadline

    init(bytesPerSecond: Int, pieceSize: Int, now: Deadline = .now()) {
        precondition(bytesPerSecond > 0, "a throttle needs a positive rate")
        self.bytesPerSecond = bytesPerSecond
        self.capacity = max(1, min(pieceSize, bytesPerSecond / 4))
        self.tokens = Double(capacity)
        self.last = now
    }

    private mutating func refill(now: Deadline) {
        guard now > last else { return }
        let seconds = Double((now - last).nanoseconds) / 1e9
        tokens = min(Double(capacity), tokens + seconds * Double(bytesPerSecond))
        last = now
    }

    /// How many bytes may go now, given that the caller wants `wanted` (≥ 1): either a grant of
    /// `min(wanted, capacity)` bytes (tokens taken), or how long to wait until that many exist.
    mutating func request(_ wanted: Int, now: Deadline = .now()) -> Result {
        refill(now: now)
        let amount = min(wanted, capacity)
        if tokens >= Double(amount) { return .granted(amount) }
        let missing = Double(amount) - tokens
        let nanoseconds = Int64((missing / Double(bytesPerSecond) * 1e9).rounded(.up))
        return .wait(.nanoseconds(max(nanoseconds, 1_000_000)))
    }

    /// Takes `count` tokens for bytes actually sent (at most the last grant).
    mutating func consume(_ count: Int) {
        tokens -= Double(count)
    }

    enum Result: Equatable {
        case granted(Int)
        case wait(TimeAmount)
    }
}
