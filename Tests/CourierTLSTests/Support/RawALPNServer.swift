import CCourierOpenSSL
import CourierCore
import CourierTLS

/// A misbehaving TLS server written directly against OpenSSL: it selects a fixed ALPN protocol
/// whatever the client offered. CourierTLS's own server cannot be made to do that.
final class RawALPNServer {
    private let ctx: OpaquePointer
    private let ssl: OpaquePointer
    /// The forced selection as [length, bytes...]; the C callback reads it through `arg`.
    private let selection: UnsafeMutableRawBufferPointer

    init(selecting name: String) {
        let bytes = Array(name.utf8)
        selection = .allocate(byteCount: bytes.count + 1, alignment: 1)
        selection[0] = UInt8(bytes.count)
        UnsafeMutableRawBufferPointer(rebasing: selection[1...]).copyBytes(from: bytes)
        ctx = SSL_CTX_new(TLS_server_method())!
        precondition(SSL_CTX_use_certificate_chain_file(ctx, Certificates.path("valid-chain.pem")) == 1)
        precondition(SSL_CTX_use_PrivateKey_file(ctx, Certificates.path("valid.key"), SSL_FILETYPE_PEM) == 1)
        SSL_CTX_set_alpn_select_cb(ctx, { _, out, outLength, _, _, arg in
            // Safe: `arg` is `selection`, alive as long as this object.
            let selection = arg!.assumingMemoryBound(to: UInt8.self)
            out!.pointee = UnsafePointer(selection + 1)
            outLength!.pointee = selection.pointee
            return SSL_TLSEXT_ERR_OK
        }, selection.baseAddress)
        ssl = SSL_new(ctx)!
        SSL_set_bio(ssl, BIO_new(BIO_s_mem()), BIO_new(BIO_s_mem()))
        SSL_set_accept_state(ssl)
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(ctx)
        selection.deallocate()
    }

    /// Takes the client's pending ciphertext, advances the server handshake, returns its reply.
    func exchange(with client: TLSEngine) {
        var toServer = ByteBuffer()
        client.drainCiphertext(into: &toServer)
        toServer.withUnsafeReadableBytes { bytes in
            if bytes.count > 0 { _ = BIO_write(SSL_get_rbio(ssl), bytes.baseAddress, Int32(bytes.count)) }
        }
        _ = SSL_do_handshake(ssl)
        ERR_clear_error()
        let wbio = SSL_get_wbio(ssl)
        let pending = Int(BIO_ctrl_pending(wbio))
        guard pending > 0 else { return }
        var reply = [UInt8](repeating: 0, count: pending)
        let n = BIO_read(wbio, &reply, Int32(pending))
        reply.withUnsafeBytes { client.feedCiphertext(UnsafeRawBufferPointer(rebasing: $0[0..<Int(n)])) }
    }
}
