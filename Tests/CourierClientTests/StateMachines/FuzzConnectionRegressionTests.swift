import CourierCore
import CourierHTTP1
import Testing
@testable import CourierClient

/// Inputs the `FuzzConnection` fuzzer (Fuzz/) found, replayed through the same checks with the
/// `ConnectionHarness`. Each test names the reproducer saved under
/// `Fuzz/FailCases/FuzzConnection/`; the operations there are spelled out here.
@Suite struct FuzzConnectionRegressionTests {
    /// `Fuzz/FailCases/FuzzConnection/connect-204-kept-alive`: start `CONNECT example.com:443`,
    /// receive `HTTP/1.1 204 No Content`, start a GET. RFC 9110 §9.3.6: any 2xx answer to CONNECT
    /// switches the connection to a tunnel, so the request must end with `then: .tunnel` and the
    /// connection must never carry another request. The parser used to frame a 204 to CONNECT as
    /// `.none` (BodyFraming.decide checked 204 before the CONNECT tunnel), and the machine kept
    /// the connection alive: the GET would have been written into the tunnel.
    @Test func connect204BecomesATunnel() {
        var h = ConnectionHarness()
        let connect = HTTPRequestHead(method: .CONNECT, target: .authority(host: "example.com", port: 443))
        guard case .write = h.start(connect) else {
            Issue.record("CONNECT was not written")
            return
        }
        let actions = summary(h.receive("HTTP/1.1 204 No Content\r\n\r\n"))
        #expect(actions == ["head 204", "end tunnel"])
        #expect(actions.filter { $0.hasPrefix("end") || $0.hasPrefix("fail") }.count == 1)
        #expect(!h.machine.isReusable)
        let next = h.start()
        #expect(summary([next]) == ["fail connectionClosed close"])
    }
}
