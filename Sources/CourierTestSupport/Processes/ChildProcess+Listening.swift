#if canImport(Glibc)
import Glibc
#endif

extension ChildProcess {
    /// Waits until something accepts TCP connections on 127.0.0.1:`port` (the server this
    /// process starts), checking every `poll` whether the process ended instead. False when
    /// `deadline` passed or the process's output ended first (it exited).
    func waitUntilListening(port: Int, deadline: ContinuousClock.Instant, poll: Duration) -> Bool {
        while true {
            if let fd = try? Socket.connect(host: "127.0.0.1", port: port) {
                close(fd)
                return true
            }
            if ContinuousClock.now >= deadline || outputEnded(within: poll) { return false }
        }
    }
}
