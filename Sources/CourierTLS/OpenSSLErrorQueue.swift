import CCourierOpenSSL

/// OpenSSL's per-thread error queue. It is sticky: every SSL call is preceded by `clear()`, and
/// after a failure the queue is drained into the error's message.
enum OpenSSLErrorQueue {
    /// Empties the queue so the next call's failures are its own.
    @inline(__always)
    static func clear() {
        ERR_clear_error()
    }

    /// What the queue held.
    struct Drained {
        /// Each entry's text, joined with "; ".
        var message: String
        /// The alert description the peer sent, when an entry is `SSL_R_*_ALERT_*`.
        var peerAlert: UInt8?
        /// Every entry's packed code and the OpenSSL function that raised it, oldest first.
        var entries: [(code: UInt, function: String)]

        /// Whether an entry has library `ERR_LIB_SSL` and this reason (`SSL_R_*`), optionally
        /// raised by the named OpenSSL function.
        func contains(sslReason reason: Int32, in function: String? = nil) -> Bool {
            contains(library: ERR_LIB_SSL, reason: reason, in: function)
        }

        /// Whether the entries say the two sides share no protocol version: the peer's
        /// protocol_version alert (70, RFC 8446 §6.2), or OpenSSL refusing the version the peer
        /// offered or chose. (Not `SSL_R_WRONG_VERSION_NUMBER`: that is a record header that is
        /// not TLS at all, such as a plain-HTTP answer.)
        var isProtocolVersionMismatch: Bool {
            if peerAlert == UInt8(SSL_AD_PROTOCOL_VERSION) { return true }
            return [SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_UNSUPPORTED_SSL_VERSION, SSL_R_WRONG_SSL_VERSION,
                    SSL_R_VERSION_TOO_LOW, SSL_R_VERSION_TOO_HIGH].contains { contains(sslReason: $0) }
        }

        /// Whether an entry has this library (`ERR_LIB_*`) and reason, optionally raised by the
        /// named OpenSSL function.
        func contains(library: Int32, reason: Int32, in function: String? = nil) -> Bool {
            entries.contains {
                ERR_GET_LIB($0.code) == library && ERR_GET_REASON($0.code) == reason
                    && (function == nil || $0.function == function)
            }
        }
    }

    /// Removes every entry from the queue and returns their text. Only on failure paths.
    static func drain() -> Drained {
        var drained = Drained(message: "", peerAlert: nil, entries: [])
        var text = [CChar](repeating: 0, count: 256)
        while true {
            var function: UnsafePointer<CChar>? = nil
            let code = ERR_get_error_all(nil, nil, &function, nil, nil)
            if code == 0 { break }
            drained.entries.append((code, function.map { String(cString: $0) } ?? ""))
            let reason = ERR_GET_REASON(code)
            if drained.peerAlert == nil, ERR_GET_LIB(code) == ERR_LIB_SSL,
                reason >= SSL_AD_REASON_OFFSET, reason - SSL_AD_REASON_OFFSET <= 255
            {
                drained.peerAlert = UInt8(reason - SSL_AD_REASON_OFFSET)
            }
            ERR_error_string_n(code, &text, text.count)
            let line = text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            drained.message += drained.message.isEmpty ? line : "; " + line
        }
        return drained
    }

    /// A ``TLSError`` with `reason` and the queue's text (or `fallback` when the queue is empty).
    static func error(_ reason: TLSError.Reason, _ fallback: String) -> TLSError {
        let drained = drain()
        return TLSError(reason, message: drained.message.isEmpty ? fallback : fallback + ": " + drained.message,
                        peerAlert: drained.peerAlert)
    }
}
