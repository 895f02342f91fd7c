import CourierTestSupport
import Dispatch
import Testing

extension SupportTests {
    @Test func testEventTimesOutThenWakesWaiters() {
        let event = TestEvent()
        #expect(!event.isSignaled)
        #expect(!event.wait(timeout: .milliseconds(20)))
        let woke = TestEvent()
        DispatchQueue.global().async {
            if event.wait(timeout: .seconds(10)) { woke.signal() }
        }
        event.signal()
        event.signal()  // idempotent
        #expect(woke.wait(timeout: .seconds(10)))
        #expect(event.wait(timeout: .zero))
    }

    @Test func waitAnyOfReturnsWhenOneFires() {
        let a = TestEvent(), b = TestEvent()
        #expect(!TestEvent.wait(anyOf: [a, b], timeout: .milliseconds(20)))
        DispatchQueue.global().async { b.signal() }
        #expect(TestEvent.wait(anyOf: [a, b], timeout: .seconds(10)))
        #expect(!a.isSignaled)
        #expect(TestEvent.wait(anyOf: [b], timeout: .zero))
    }
}
