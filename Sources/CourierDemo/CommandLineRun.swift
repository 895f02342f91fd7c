import Glibc

/// Runs the `courier` executable built beside this demo, with the demo's stdout and stderr, and
/// returns its exit status; nil when it is not there (`make demo` builds it) or cannot start.
func runCourier(_ arguments: [String]) -> Int32? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
    guard length > 0 else { return nil }
    let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let slash = path.lastIndex(of: "/") else { return nil }
    let executable = String(path[..<slash]) + "/courier"
    guard access(executable, X_OK) == 0 else { return nil }
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, executable, nil, nil, argv, environ) == 0 else { return nil }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // WEXITSTATUS is a macro Swift does not import.
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}
