// Links every library module below `Courier` into a binary whose dynamic dependencies
// `make test` checks: none of them may pull in Foundation.
import CourierClient
import CourierCore
import CourierHTTP1
import CourierPosix
import CourierTLS

var buffer = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
var parser = HTTPResponseParser()
var events = 0
do {
    while try parser.next(&buffer) != .needMoreData { events += 1 }
} catch {
    print("parse failed: \(error)")
}
let url = try? HTTPURL("https://example.com/")
let address = try? SocketAddress(ipAddress: "127.0.0.1", port: 80)
print("linkage probe: \(events) events, deadline \(Deadline.now() > .distantPast), \(url?.host ?? "-"), \(address?.description ?? "-"), TLS \(TLSConfiguration.clientDefault.minimumVersion)")
