import CourierCore
import CourierHTTP1

/// A response head owned by the client: copied out of the read buffer, so holding it does not pin
/// the connection's buffer (``HTTPResponseHead`` is a zero-copy view into it).
public struct HTTPClientResponseHead: Hashable, Sendable {
    /// The members, in one copy-on-write box. A head travels from the connection's machine to
    /// the delegate inside an action and through three calls: a copy of the box is one retain,
    /// where a copy of the members retained the field list, its buffer, the span list and the
    /// coding list one by one. The connection's machine keeps the box of its last head and fills
    /// it again for the next one once nothing else holds it (``reused(_:reusing:)``), so a
    /// connection whose consumer lets go of each head makes no box per response.
    ///
    /// `@unchecked Sendable`: a box is only mutated through ``uniqueStorage()``, or by the
    /// machine while it holds the only reference; shared boxes are read-only.
    final class Storage: @unchecked Sendable {
        // Unchecked: a shared box is only read, and a unique one is changed only through the one
        // head or machine that holds it.
        @exclusivity(unchecked) var version: HTTPVersion
        @exclusivity(unchecked) var status: Int
        @exclusivity(unchecked) var reason: String
        @exclusivity(unchecked) var otherReasonBytes: [UInt8]?
        @exclusivity(unchecked) var headers: HTTPFields
        @exclusivity(unchecked) var framing: BodyFraming
        @exclusivity(unchecked) var isKeepAlive: Bool
        @exclusivity(unchecked) var undecodedContentCodings: [String]
        @exclusivity(unchecked) var contentEncodingAbsent: Bool

        init(
            version: HTTPVersion, status: Int, reason: String, otherReasonBytes: [UInt8]?, headers: HTTPFields,
            framing: BodyFraming, isKeepAlive: Bool, undecodedContentCodings: [String], contentEncodingAbsent: Bool
        ) {
            self.version = version
            self.status = status
            self.reason = reason
            self.otherReasonBytes = otherReasonBytes
            self.headers = headers
            self.framing = framing
            self.isKeepAlive = isKeepAlive
            self.undecodedContentCodings = undecodedContentCodings
            self.contentEncodingAbsent = contentEncodingAbsent
        }

        /// Drops the fields (and with them the buffer and span list they share with the
        /// connection's machine); called only on a box no head holds any more.
        func releaseFields() {
            if !headers.isEmpty { headers = HTTPFields() }
        }

        func copy() -> Storage {
            Storage(
                version: version, status: status, reason: reason, otherReasonBytes: otherReasonBytes, headers: headers,
                framing: framing, isKeepAlive: isKeepAlive, undecodedContentCodings: undecodedContentCodings,
                contentEncodingAbsent: contentEncodingAbsent)
        }
    }

    private(set) var storage: Storage

    /// The box to mutate: this head's own.
    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    public var version: HTTPVersion {
        _read { yield storage.version }
        _modify { yield &uniqueStorage().version }
    }
    /// The status code (RFC 9110 §15).
    public var status: Int {
        _read { yield storage.status }
        _modify { yield &uniqueStorage().status }
    }
    /// The reason phrase (RFC 9112 §4) as text, decoded like a field value (UTF-8 when valid,
    /// else ISO-8859-1); informative only.
    public var reason: String {
        _read { yield storage.reason }
        _modify { yield &uniqueStorage().reason }
    }
    /// The reason phrase's exact bytes (it may hold obs-text, RFC 9112 §4): `reason`'s UTF-8
    /// unless the phrase was not UTF-8 (then `reason` is its ISO-8859-1 reading).
    public var reasonBytes: [UInt8] {
        get { storage.otherReasonBytes ?? Array(storage.reason.utf8) }
        set {
            let box = uniqueStorage()
            box.otherReasonBytes = newValue.elementsEqual(box.reason.utf8) ? nil : newValue
        }
    }
    /// The header fields; each keeps its exact bytes (``HTTPField/valueBytes``, RFC 9110 §5.5).
    public var headers: HTTPFields {
        _read { yield storage.headers }
        _modify {
            let box = uniqueStorage()
            box.contentEncodingAbsent = false
            yield &box.headers
        }
    }
    /// How the body was delimited.
    public var framing: BodyFraming {
        _read { yield storage.framing }
        _modify { yield &uniqueStorage().framing }
    }
    /// Whether the server allowed the connection to be reused (RFC 9112 §9.3).
    public var isKeepAlive: Bool {
        _read { yield storage.isKeepAlive }
        _modify { yield &uniqueStorage().isKeepAlive }
    }
    /// The content codings still applied to the body the delegate receives, in the order the
    /// sender applied them (RFC 9110 §8.4); empty when the body has none or all were undone.
    /// Set by ``HTTPRequestExecution`` when a coding cannot be undone (`br`, `zstd`, an unknown one,
    /// more layers than `ContentDecodingPlan.maximumLayers`) or decompression is off: then no
    /// coding is undone and the body arrives exactly as received (`ContentDecodingPlan`).
    public var undecodedContentCodings: [String] {
        _read { yield storage.undecodedContentCodings }
        _modify { yield &uniqueStorage().undecodedContentCodings }
    }
    /// The parser saw no `Content-Encoding` among `headers` (RFC 9110 §8.4), so the client need
    /// not search for one. False when not known: a head made by hand, or once `headers` changed.
    /// Not part of `==`: it only says something about `headers`.
    var contentEncodingAbsent: Bool { storage.contentEncodingAbsent }

    /// - Parameter reasonBytes: the reason phrase's bytes; nil means `reason`'s UTF-8.
    public init(
        version: HTTPVersion, status: Int, reason: String, headers: HTTPFields, framing: BodyFraming,
        isKeepAlive: Bool, reasonBytes: [UInt8]? = nil
    ) {
        storage = Storage(
            version: version, status: status, reason: reason,
            otherReasonBytes: reasonBytes.flatMap { $0.elementsEqual(reason.utf8) ? nil : $0 }, headers: headers,
            framing: framing, isKeepAlive: isKeepAlive, undecodedContentCodings: [], contentEncodingAbsent: false)
    }

    /// Copies a parsed head out of the read buffer.
    public init(_ head: HTTPResponseHead) {
        var storage = ByteBuffer()
        var box: Storage?
        self = Self.reused(head, reusing: &storage, box: &box)
    }

    /// Copies a parsed head out of the read buffer into `storage` when nothing else holds it
    /// (``HTTPHeaderView/owned(reusing:)``), in `box` when nothing else holds that. On return
    /// `box` is the head's box and `storage` its fields' buffer.
    static func reused(_ head: HTTPResponseHead, reusing storage: inout ByteBuffer, box: inout Storage?) -> Self {
        // Member by member rather than through the public initializer, which compared the
        // reason's bytes with its own UTF-8 again.
        let target: Storage
        // Unique first: the binding below is another reference.
        if isKnownUniquelyReferenced(&box), let kept = box {
            // The last head's fields let go of their buffer first (if the end of its response
            // has not already), so that it can be refilled in place.
            kept.releaseFields()
            target = kept
        } else {
            // A new box, its members filled below like a kept one's.
            target = Storage(
                version: .http1_1, status: 0, reason: "", otherReasonBytes: nil, headers: HTTPFields(), framing: .none,
                isKeepAlive: false, undecodedContentCodings: [], contentEncodingAbsent: false)
            box = target
        }
        let reason = head.reasonText
        target.version = head.version
        target.status = head.status
        target.reason = reason.text
        target.otherReasonBytes = reason.otherBytes
        target.headers = head.headers.owned(reusing: &storage)
        target.framing = head.framing
        target.isKeepAlive = head.isKeepAlive
        if !target.undecodedContentCodings.isEmpty { target.undecodedContentCodings = [] }
        target.contentEncodingAbsent = !head.hasContentEncoding
        return Self(storage: target)
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    public static func == (lhs: HTTPClientResponseHead, rhs: HTTPClientResponseHead) -> Bool {
        if lhs.storage === rhs.storage { return true }
        let l = lhs.storage, r = rhs.storage
        return l.version == r.version && l.status == r.status && l.reason == r.reason
            && l.otherReasonBytes == r.otherReasonBytes && l.headers == r.headers && l.framing == r.framing
            && l.isKeepAlive == r.isKeepAlive && l.undecodedContentCodings == r.undecodedContentCodings
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.version)
        hasher.combine(storage.status)
        hasher.combine(storage.reason)
        hasher.combine(storage.otherReasonBytes)
        hasher.combine(storage.headers)
        hasher.combine(storage.framing)
        hasher.combine(storage.isKeepAlive)
        hasher.combine(storage.undecodedContentCodings)
    }
}
