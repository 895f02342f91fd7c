import Courier
import Testing

// Imports `Courier` alone: the transport details a command-line client judges are nameable.
@Suite("One import names the transport's TLS failures and no_proxy lists")
struct TransportDetailImportTests {
    @Test func tlsErrorIsNameable() {
        let error = TLSError(.certificateVerificationFailed(.expired), message: "expired")
        let cause: any Error = ClientError(.tls, cause: error)
        let unwrapped = (cause as? ClientError)?.cause as? TLSError
        #expect(unwrapped?.reason == .certificateVerificationFailed(.expired))
    }

    @Test func noProxyListMatchesAsCurlDoes() throws {
        let list = NoProxyList("localhost, .internal")
        #expect(list.matches(try HTTPURL("http://localhost:8080/")))
        #expect(list.matches(try HTTPURL("http://api.internal/")))
        #expect(!list.matches(try HTTPURL("http://example.com/")))
    }
}
