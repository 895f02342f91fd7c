#if canImport(Glibc)
import Glibc
#endif

/// What a real server under test needs before it starts: a fresh temporary directory of its
/// own (`$TMPDIR/courier-<name>-XXXXXX`) and a free loopback port (bound, read, released for
/// the server). On failure nothing is left behind.
struct ServerScratch {
    let directory: String
    let port: Int

    /// - Parameter remove: how the caller cleans its directory, used when no port is found.
    init(name: String, remove: (String) -> Void) throws(ChildProcessError) {
        directory = try ScratchDirectory(name).path
        do {
            let (fd, free) = try Socket.listen(on: .loopbackIPv4, backlog: 1)
            close(fd)
            port = free
        } catch {
            remove(directory)
            throw ChildProcessError("no free port: \(error)")
        }
    }
}
