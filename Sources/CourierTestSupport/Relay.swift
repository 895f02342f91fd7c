#if canImport(Glibc)
import Glibc
#endif

/// The byte relay of the test proxies (the CONNECT proxy's tunnels and forwards, the SOCKS5
/// proxy's tunnels).
enum Relay {
    /// Copies bytes both ways until both directions have ended (or one fails). A direction that
    /// ends is passed on as a half close (`SHUT_WR`) of the other socket.
    static func pipe(_ a: Int32, _ b: Int32) {
        var open = [true, true]  // a→b, b→a
        var scratch = [UInt8](repeating: 0, count: 32 * 1024)
        while open[0] || open[1] {
            var fds = [
                pollfd(fd: a, events: open[0] ? Int16(POLLIN) : 0, revents: 0),
                pollfd(fd: b, events: open[1] ? Int16(POLLIN) : 0, revents: 0),
            ]
            let rc = Glibc.poll(&fds, 2, -1)
            if rc < 0 { if errno == EINTR { continue } else { return } }
            for (index, (from, to)) in [(a, b), (b, a)].enumerated() where open[index] && fds[index].revents != 0 {
                let n = scratch.withUnsafeMutableBytes { Glibc.recv(from, $0.baseAddress, $0.count, 0) }
                if n <= 0 {
                    if n < 0 && errno == EINTR { continue }
                    open[index] = false
                    _ = Glibc.shutdown(to, Int32(SHUT_WR))
                    if n < 0 { return }
                    continue
                }
                let ok = scratch.withUnsafeBytes { raw in
                    (try? Socket.sendAll(to, UnsafeRawBufferPointer(rebasing: raw[0..<n]))) != nil
                }
                if !ok { return }
            }
        }
    }
}
