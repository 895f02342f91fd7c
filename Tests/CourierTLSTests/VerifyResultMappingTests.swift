import CCourierOpenSSL
@testable import CourierTLS
import Testing

/// OpenSSL's verify results and error-queue entries to typed reasons, without a handshake: the
/// codes the matrix cannot produce on its own (a CA's weak key) and the version-mismatch rule.
@Suite("Verify-result mapping")
struct VerifyResultMappingTests {
    @Test("weak keys and weak signature digests have their own reasons", arguments: [
        (X509_V_ERR_EE_KEY_TOO_SMALL, CertificateVerificationFailure.weakKey),
        (X509_V_ERR_CA_KEY_TOO_SMALL, .weakKey),
        (X509_V_ERR_CA_MD_TOO_WEAK, .weakSignatureAlgorithm),
        (X509_V_ERR_HOSTNAME_MISMATCH, .hostnameMismatch),
    ])
    func weakness(_ code: Int32, _ expected: CertificateVerificationFailure) {
        #expect(CertificateVerificationFailure(verifyResult: code) == expected)
    }

    static func drained(alert: UInt8? = nil, sslReasons: [Int32]) -> OpenSSLErrorQueue.Drained {
        // ERR_PACK(lib, 0, reason): the library in bits 23..30, the reason in the low 23 bits.
        let entries = sslReasons.map { (code: UInt(UInt32(ERR_LIB_SSL) << 23 | UInt32($0)), function: "") }
        return OpenSSLErrorQueue.Drained(message: "", peerAlert: alert, entries: entries)
    }

    @Test("a protocol_version alert or a refused version is a version mismatch; a non-TLS record is not")
    func versionMismatch() {
        #expect(Self.drained(alert: 70, sslReasons: []).isProtocolVersionMismatch)
        #expect(Self.drained(sslReasons: [SSL_R_UNSUPPORTED_PROTOCOL]).isProtocolVersionMismatch)
        #expect(Self.drained(sslReasons: [SSL_R_WRONG_SSL_VERSION]).isProtocolVersionMismatch)
        #expect(Self.drained(sslReasons: [SSL_R_VERSION_TOO_LOW]).isProtocolVersionMismatch)
        #expect(!Self.drained(sslReasons: [SSL_R_WRONG_VERSION_NUMBER]).isProtocolVersionMismatch)
        #expect(!Self.drained(alert: 40, sslReasons: [SSL_R_NO_SHARED_CIPHER]).isProtocolVersionMismatch)
    }
}
