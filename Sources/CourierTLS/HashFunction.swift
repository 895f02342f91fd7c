import CCourierOpenSSL

/// A message digest computed by OpenSSL's EVP interface: the one place the library hashes bytes
/// (certificate fingerprints and public-key pins, RFC 7469 §2.4; HTTP Digest access
/// authentication, RFC 7616 §3.2 and §6.1).
public enum HashFunction: String, Sendable, Hashable, CaseIterable {
    /// MD5 (RFC 1321): only where a protocol still requires it (Digest `algorithm=MD5`,
    /// RFC 7616 §6.1).
    case md5 = "MD5"
    /// SHA-256 (FIPS 180-4).
    case sha256 = "SHA-256"
    /// SHA-512/256 (FIPS 180-4 §6.7): SHA-512 with its own initial values, truncated to 256 bits.
    case sha512_256 = "SHA-512-256"

    /// The digest of `bytes`.
    public func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let algorithm: OpaquePointer? = switch self {
        case .md5: EVP_md5()
        case .sha256: EVP_sha256()
        case .sha512_256: EVP_sha512_256()
        }
        let ok = bytes.withUnsafeBytes { input in
            // Safe: EVP_Digest reads `input.count` bytes and writes at most EVP_MAX_MD_SIZE bytes.
            EVP_Digest(input.baseAddress, input.count, &digest, &length, algorithm, nil)
        }
        precondition(ok == 1, "EVP_Digest(\(rawValue)) failed")
        return Array(digest.prefix(Int(length)))
    }

    /// The digest of `bytes` in lowercase hexadecimal (the form RFC 7616 §3.4.1 sends).
    public func hexHash(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in hash(bytes) {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
