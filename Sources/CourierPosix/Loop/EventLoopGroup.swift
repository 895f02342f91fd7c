#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import CourierCore

/// A fixed set of event loops handed out round-robin.
public final class EventLoopGroup: Sendable {
    public let loops: [EventLoop]
    private let counter = Atomic<Int>(0)

    /// Starts `numberOfThreads` loops (default: one per online CPU); `busyPoll` and
    /// `batchWindow` as in ``EventLoop/init(name:busyPoll:batchWindow:)``.
    public init(numberOfThreads: Int = EventLoopGroup.coreCount, busyPoll: TimeAmount? = nil, batchWindow: TimeAmount? = nil) throws(PosixError) {
        precondition(numberOfThreads > 0, "an event loop group needs at least one loop")
        var loops: [EventLoop] = []
        for index in 0..<numberOfThreads {
            loops.append(try EventLoop(name: "courier-loop-\(index)", busyPoll: busyPoll, batchWindow: batchWindow))
        }
        self.loops = loops
    }

    /// The next loop, round-robin.
    public func next() -> EventLoop {
        let index = counter.add(1, ordering: .relaxed).oldValue
        return loops[index % loops.count]
    }

    /// The loop whose thread is the caller's, if any.
    public var currentLoop: EventLoop? {
        loops.first { $0.inEventLoop }
    }

    /// Stops every loop and waits for their threads.
    public func shutdown() {
        for loop in loops { loop.shutdown() }
    }

    /// Online CPUs.
    public static var coreCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}
