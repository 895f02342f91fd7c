#if canImport(Glibc)
import Glibc
#endif
import CCourierLinux
import CourierCore

/// A thin epoll set: level-triggered registrations tagged with a ``RegistrationID`` token, and
/// one preallocated event array reused by every wait.
///
/// Owned by one event loop thread; not thread-safe.
struct Selector: ~Copyable {
    let epollDescriptor: Int32
    private var events: UnsafeMutableBufferPointer<epoll_event>

    init(capacity: Int = 256) throws(PosixError) {
        epollDescriptor = try Syscall.blocking("epoll_create1", epoll_create1(Int32(EPOLL_CLOEXEC)))
        events = .allocate(capacity: capacity)
        events.initialize(repeating: epoll_event())
    }

    deinit {
        events.deallocate()
        Syscall.close(epollDescriptor)
    }

    func add(_ fd: Int32, interest: Interest, id: RegistrationID) throws(PosixError) {
        // `init(u64:)` sets all 8 bytes of the union (`init(fd:)` would leave 4 undefined).
        var event = epoll_event(events: interest.epollMask, data: epoll_data_t(u64: id.token))
        try Syscall.blocking("epoll_ctl(ADD)", epoll_ctl(epollDescriptor, EPOLL_CTL_ADD, fd, &event))
    }

    func modify(_ fd: Int32, interest: Interest, id: RegistrationID) throws(PosixError) {
        var event = epoll_event(events: interest.epollMask, data: epoll_data_t(u64: id.token))
        try Syscall.blocking("epoll_ctl(MOD)", epoll_ctl(epollDescriptor, EPOLL_CTL_MOD, fd, &event))
    }

    func remove(_ fd: Int32) {
        var event = epoll_event()
        // Failure only means the fd is already gone from the set (closed); nothing to undo.
        _ = epoll_ctl(epollDescriptor, EPOLL_CTL_DEL, fd, &event)
    }

    /// Waits up to `timeoutMilliseconds` (-1: forever) and calls `body` for each ready token,
    /// busy polling and pausing for the batch window first as ``WaitPlan`` says (see
    /// ``EventLoop/init(name:busyPoll:batchWindow:)``).
    func wait(timeoutMilliseconds: Int32, busyPoll: TimeAmount? = nil, batchWindow: TimeAmount? = nil, _ body: (RegistrationID, SelectorEvents) -> Void) throws(PosixError) {
        var plan = WaitPlan(timeoutMilliseconds: timeoutMilliseconds, busyPoll: busyPoll, batchWindow: batchWindow)
        var ready: Int32 = 0
        steps: while true {
            switch plan.next(ready: Int(ready), now: { .now() }) {
            case .poll:
                ready = try Syscall.blocking("epoll_wait", courier_epoll_wait(epollDescriptor, events.baseAddress, Int32(events.count), 0))
            case .pause(let amount):
                var duration = timespec(tv_sec: Int(amount.nanoseconds / 1_000_000_000), tv_nsec: Int(amount.nanoseconds % 1_000_000_000))
                // An interrupted pause (EINTR) only ends the window early.
                _ = clock_nanosleep(CLOCK_MONOTONIC, 0, &duration, nil)
            case .block(let milliseconds):
                ready = try Syscall.blocking("epoll_wait", courier_epoll_wait(epollDescriptor, events.baseAddress, Int32(events.count), milliseconds))
            case .finished:
                break steps
            }
        }
        for index in 0..<Int(ready) {
            let event = events[index]
            body(RegistrationID(token: event.data.u64), SelectorEvents(epoll: event.events))
        }
    }
}
