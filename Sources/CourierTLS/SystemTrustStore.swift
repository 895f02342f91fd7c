import CCourierOpenSSL
import Glibc

/// The system's trust anchors (`X509_STORE_set_default_paths`: on Debian the bundle
/// `/etc/ssl/certs/ca-certificates.crt` and the hashed directory `/etc/ssl/certs`, or
/// `SSL_CERT_FILE` / `SSL_CERT_DIR`), parsed once per process and shared.
///
/// Parsing the bundle takes milliseconds, so it must never happen on an event loop: the client
/// builds its ``TLSContext``s off the loops, and the first context that trusts the system store
/// parses it there. A context that trusts only the system store uses this `X509_STORE` itself
/// (`SSL_CTX_set1_cert_store`, which takes a reference); a context that adds other roots gets a
/// store of its own, seeded with references to the certificates parsed here
/// (``addCertificates(to:)``), so the bundle is still parsed once.
///
/// `@unchecked Sendable`: `store` is not changed after `init` except by OpenSSL itself, which
/// adds certificates found in the hashed directory during verification under the store's own
/// lock (an `X509_STORE` is made to be shared by contexts on many threads). Nothing may add to
/// it: anything a configuration adds (CA files, anchors, CRLs) goes into a context's own store.
final class SystemTrustStore: @unchecked Sendable {
    /// The `X509_STORE*`. Lives as long as the process (``shared`` is never released).
    let store: OpaquePointer
    /// The name of the thread that parsed the store (`/proc/thread-self/comm`): tests check it
    /// was not an event loop (`courier-loop…`). A name rather than a `pthread_t`: thread ids are
    /// reused once a thread exits, so an id recorded by an earlier run could match a loop started
    /// since.
    let loadingThreadName: String

    /// The process's one store, parsed by the first caller (callers that come meanwhile wait for
    /// it: a Swift `static let` is initialised exactly once, thread-safely).
    static let shared: Result<SystemTrustStore, TLSError> = Result { () throws(TLSError) in try SystemTrustStore() }

    private init() throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let store = X509_STORE_new() else { throw OpenSSLErrorQueue.error(.configuration, "X509_STORE_new failed") }
        guard X509_STORE_set_default_paths(store) == 1 else {
            X509_STORE_free(store)
            throw OpenSSLErrorQueue.error(.configuration, "cannot load the system trust store")
        }
        // A missing default file or directory is not an error, but leaves entries in the queue.
        OpenSSLErrorQueue.clear()
        self.store = store
        self.loadingThreadName = Self.currentThreadName()
    }

    /// The calling thread's name as the kernel has it, or "" if it cannot be read.
    private static func currentThreadName() -> String {
        let fd = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 32)
        // Safe: `read` writes at most the buffer's count of bytes into it.
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return "" }
        return String(decoding: bytes[..<count].prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }

    deinit { X509_STORE_free(store) }

    /// Adds references to every certificate and CRL parsed so far to `target` (no parsing), and
    /// the system's hashed directory as a lookup of `target`'s own (read lazily, by subject hash,
    /// when a verification needs an issuer, as in the shared store).
    func addCertificates(to target: OpaquePointer) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard X509_STORE_lock(store) == 1 else { throw OpenSSLErrorQueue.error(.configuration, "cannot lock the system trust store") }
        defer { X509_STORE_unlock(store) }
        guard let objects = X509_STORE_get0_objects(store) else { return }
        for i in 0..<OPENSSL_sk_num(objects) {
            guard let raw = OPENSSL_sk_value(objects, i) else { continue }
            let object = OpaquePointer(raw)
            // X509_STORE_add_cert / _add_crl take their own references.
            switch X509_OBJECT_get_type(object) {
            case X509_LU_X509:
                guard let certificate = X509_OBJECT_get0_X509(object), X509_STORE_add_cert(target, certificate) == 1 else {
                    throw OpenSSLErrorQueue.error(.configuration, "cannot share a system trust anchor")
                }
            case X509_LU_CRL:
                guard let crl = X509_OBJECT_get0_X509_CRL(object), X509_STORE_add_crl(target, crl) == 1 else {
                    throw OpenSSLErrorQueue.error(.configuration, "cannot share a system CRL")
                }
            default:
                continue
            }
        }
        let directory = getenv(X509_get_default_cert_dir_env()).map { String(cString: $0) }
            ?? String(cString: X509_get_default_cert_dir())
        guard X509_STORE_load_path(target, directory) == 1 else {
            throw OpenSSLErrorQueue.error(.configuration, "cannot use the system CA directory \(directory)")
        }
    }
}
