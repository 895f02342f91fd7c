#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The part of a test server that the scripted server and the proxy share: a listening socket,
/// a pipe that wakes the accept thread out of `poll`, the accept thread and one thread per
/// connection, the registry that can wake those connections, and an idempotent shutdown.
final class Listener: Sendable {
    let port: Int
    let listenFD: Int32
    /// The write end of the wake pipe.
    let wakeFD: Int32
    let wakeReadFD: Int32
    /// Set once shutdown began; every wait of the server's threads also ends on it.
    let stopped = TestEvent()
    let registry = ConnectionRegistry()
    private let stopStarted = Atomic(false)
    private let stopDone = TestEvent()
    private let acceptThread = ThreadGroup()
    private let connectionThreads = ThreadGroup()

    /// Listens on `address` and makes the wake pipe (closing the listener again if that fails).
    init(address: ServerAddress, backlog: Int32) throws(TestServerError) {
        let (fd, port) = try Socket.listen(on: address, backlog: backlog)
        self.listenFD = fd
        self.port = port
        do {
            (self.wakeReadFD, self.wakeFD) = try Socket.makeWakePipe()
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// Starts `acceptLoop` on the accept thread; if the thread cannot be created, runs
    /// `shutdown` (which frees the descriptors) and throws.
    func start(_ acceptLoop: @escaping @Sendable () -> Void, orElse shutdown: () -> Void) throws(TestServerError) {
        guard acceptThread.spawn(acceptLoop) else {
            shutdown()
            throw TestServerError("pthread_create", errno: EAGAIN)
        }
    }

    /// Wakes the accept thread (to see a stop or a changed accept state).
    func wake() { Socket.wake(wakeFD) }

    /// What ``waitForConnection(listening:)`` saw.
    enum Readiness {
        /// `poll` failed: the accept thread should end.
        case failed
        /// A wake-up (drained) or an interrupted `poll`: look at the state again.
        case woken
        /// A connection is waiting to be accepted.
        case connectionPending
    }

    /// Blocks in `poll` on the wake pipe and, when `listening`, on the listening socket.
    func waitForConnection(listening: Bool = true) -> Readiness {
        var fds = [
            pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
        ]
        let rc = Glibc.poll(&fds, listening ? 2 : 1, -1)
        if rc < 0 { return errno == EINTR ? .woken : .failed }
        if fds[0].revents != 0 {
            Socket.drainWake(wakeReadFD)
            return .woken
        }
        return fds[1].revents != 0 ? .connectionPending : .woken
    }

    /// Accepts a pending connection (close-on-exec); nil if `accept` failed.
    func accept() -> Int32? {
        let fd = Glibc.accept(listenFD, nil, nil)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }

    /// Runs `serve` on a new connection thread for the accepted `fd`, already registered as
    /// connection `id`. If no thread can be created, unregisters and closes `fd` and returns false.
    func spawnConnection(_ fd: Int32, id: Int, _ serve: @escaping @Sendable () -> Void) -> Bool {
        guard connectionThreads.spawn(serve) else {
            _ = registry.remove(id)
            Glibc.close(fd)
            return false
        }
        return true
    }

    /// The accept loop of a server that always listens (the proxies): until shutdown, accepts
    /// each connection, calls `accepted`, registers it under the next id and serves it with
    /// `serve(fd, id)` on a thread of its own.
    func acceptUntilStopped(accepted: () -> Void = {}, _ serve: @escaping @Sendable (Int32, Int) -> Void) {
        var nextID = 0
        while !stopped.isSignaled {
            switch waitForConnection() {
            case .failed: return
            case .woken: continue
            case .connectionPending: break
            }
            guard !stopped.isSignaled else { return }
            guard let fd = accept() else { continue }
            Socket.setNoDelay(fd)
            let id = nextID
            nextID += 1
            accepted()
            registry.add(id, fds: [fd])
            _ = spawnConnection(fd, id: id) { serve(fd, id) }
        }
    }

    /// Stops accepting, wakes and closes every connection, waits for all threads, closes the
    /// listener and the wake pipe, then runs `finish`. A later call waits for the first to end.
    func shutdown(finish: () -> Void = {}) {
        guard !stopStarted.exchange(true, ordering: .acquiringAndReleasing) else {
            stopDone.wait(timeout: .seconds(60))
            return
        }
        stopped.signal()
        wake()
        acceptThread.waitAll()
        // No new connection can appear now; wake the existing ones (reads see EOF, writes fail).
        registry.shutdownAll()
        connectionThreads.waitAll()
        Glibc.close(listenFD)
        Glibc.close(wakeFD)
        Glibc.close(wakeReadFD)
        finish()
        stopDone.signal()
    }
}
