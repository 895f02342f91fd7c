import CCourierOpenSSL
import Glibc

/// One X.509 certificate as exported from a TLS session: its DER encoding, the SHA-256 of its
/// SubjectPublicKeyInfo (the value HPKP-style public-key pins compare, RFC 7469 §2.4), its
/// SHA-256 fingerprint, and its subject for diagnostics.
public struct TLSCertificate: Sendable, Hashable, CustomStringConvertible {
    /// The certificate's DER encoding.
    public let der: [UInt8]
    /// SHA-256 of the DER-encoded SubjectPublicKeyInfo.
    public let spkiSHA256: [UInt8]
    private let _subject: String

    /// SHA-256 of the DER encoding: the certificate's fingerprint, which certificate pins by
    /// digest compare (what `openssl x509 -fingerprint -sha256` prints, in hex).
    public var sha256Fingerprint: [UInt8] { Self.sha256(der) }

    /// The subject name on one line, as `X509_NAME_oneline` prints it: "/CN=localhost".
    public var subject: String { _subject }

    public var description: String { "TLSCertificate(\(_subject))" }

    /// Exports an OpenSSL `X509*` (borrowed; not freed).
    init(x509 x: OpaquePointer) {
        self.der = Self.encode(x) { x, out in i2d_X509(x, out) }
        let spki = Self.encode(X509_get0_pubkey(x)) { key, out in i2d_PUBKEY(key, out) }
        self.spkiSHA256 = Self.sha256(spki)
        self._subject = Self.oneLineName(X509_get_subject_name(x))
    }

    /// Parses one DER-encoded certificate.
    public init(der: [UInt8]) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        let x: OpaquePointer? = der.withUnsafeBufferPointer { bytes in
            // Safe: d2i_X509 reads at most `bytes.count` bytes from the array's storage during the call.
            var cursor: UnsafePointer<UInt8>? = bytes.baseAddress
            return d2i_X509(nil, &cursor, bytes.count)
        }
        guard let x else { throw OpenSSLErrorQueue.error(.configuration, "not a DER certificate") }
        defer { X509_free(x) }
        self.init(x509: x)
    }

    /// A new `X509*` parsed from ``der``; the caller frees it with `X509_free`.
    func makeX509() throws(TLSError) -> OpaquePointer {
        OpenSSLErrorQueue.clear()
        let x: OpaquePointer? = der.withUnsafeBufferPointer { bytes in
            // Safe: d2i_X509 reads at most `bytes.count` bytes from the array's storage during the call.
            var cursor: UnsafePointer<UInt8>? = bytes.baseAddress
            return d2i_X509(nil, &cursor, bytes.count)
        }
        guard let x else { throw OpenSSLErrorQueue.error(.configuration, "not a DER certificate") }
        return x
    }

    /// Whether this certificate names `host`, judged the way `.full` verification judges the
    /// leaf: a DNS name against the DNS subjectAltNames only — never the subject Common Name
    /// (RFC 9525 §6.3, RFC 9110 §4.3.4) — with a wildcard only as the whole left-most label
    /// (`X509_check_host` with ``ServerIdentity/dnsCheckFlags``), an
    /// IP literal (IPv4, or IPv6 with or without brackets) against the IP subjectAltNames
    /// (`X509_check_ip_asc`). For a policy that checks the name itself when chain verification
    /// is off. False for an empty host or a certificate OpenSSL cannot parse.
    public func matches(host: String) -> Bool {
        guard let identity = try? ServerIdentity(host), let x = try? makeX509() else { return false }
        defer { X509_free(x) }
        defer { OpenSSLErrorQueue.clear() }
        switch identity {
        case .dns(let name):
            return name.withCString { X509_check_host(x, $0, strlen($0), ServerIdentity.dnsCheckFlags, nil) } == 1
        case .ip(let address):
            return X509_check_ip_asc(x, address, 0) == 1
        }
    }

    /// SHA-256 (FIPS 180-4) of `bytes`, through OpenSSL. Of a DER certificate it is the
    /// certificate's fingerprint (``sha256Fingerprint``); of a DER SubjectPublicKeyInfo, its
    /// public-key pin (RFC 7469 §2.4, ``spkiSHA256``).
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] { HashFunction.sha256.hash(bytes) }

    /// SHA-256 of the SubjectPublicKeyInfo of a DER certificate (RFC 7469 §2.4): the public-key
    /// pin of a certificate that is not at hand as a ``TLSCertificate``.
    ///
    /// - Throws: ``TLSError/Reason/configuration`` when `der` is not a DER certificate.
    public static func spkiSHA256(certificateDER der: [UInt8]) throws(TLSError) -> [UInt8] {
        try TLSCertificate(der: der).spkiSHA256
    }

    /// Reads every certificate in a PEM file, in file order.
    public static func load(pemFile path: String) throws(TLSError) -> [TLSCertificate] {
        OpenSSLErrorQueue.clear()
        guard let bio = BIO_new_file(path, "r") else {
            throw OpenSSLErrorQueue.error(.configuration, "cannot open \(path)")
        }
        defer { BIO_free(bio) }
        var certificates: [TLSCertificate] = []
        while let x = PEM_read_bio_X509(bio, nil, nil, nil) {
            certificates.append(TLSCertificate(x509: x))
            X509_free(x)
        }
        // The loop ends with a "no start line" error at the end of the file; that is not a failure.
        OpenSSLErrorQueue.clear()
        if certificates.isEmpty { throw TLSError(.configuration, message: "no certificate in \(path)") }
        return certificates
    }

    /// Runs an OpenSSL `i2d_*` function twice: once for the length, once to fill an array.
    private static func encode(
        _ object: OpaquePointer?,
        _ i2d: (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    ) -> [UInt8] {
        let length = Int(i2d(object, nil))
        guard length > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: length) { buffer, initialised in
            // Safe: i2d writes exactly `length` bytes (the size it just reported) at the cursor.
            var cursor = buffer.baseAddress
            let written = Int(i2d(object, &cursor))
            initialised = Swift.max(0, Swift.min(written, length))
        }
    }

    private static func oneLineName(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        var text = [CChar](repeating: 0, count: 512)
        return text.withUnsafeMutableBufferPointer { buffer in
            // Safe: X509_NAME_oneline writes at most `count` bytes including the terminator.
            guard let p = X509_NAME_oneline(name, buffer.baseAddress, Int32(buffer.count)) else { return "" }
            return String(cString: p)
        }
    }
}
