// Links CourierCore and CourierHTTP1 into a binary whose dynamic dependencies `make test` checks:
// neither module may pull in Foundation.
import CourierCore
import CourierHTTP1

var buffer = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
var parser = HTTPResponseParser()
var events = 0
do {
    while try parser.next(&buffer) != .needMoreData { events += 1 }
} catch {
    print("parse failed: \(error)")
}
print("linkage probe: \(events) events, deadline \(Deadline.now() > .distantPast)")
