import Glibc

/// The name of the calling thread, e.g. `courier-loop-0`: glibc's `pthread_getname_np`, which
/// the Glibc module does not declare (it is a GNU extension), looked up with `dlsym`; the
/// kernel's `/proc/thread-self/comm` (the same name) if that fails.
public func currentThreadName() -> String {
    typealias GetName = @convention(c) (pthread_t, UnsafeMutablePointer<CChar>?, Int) -> Int32
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getname_np") {
        let getName = unsafeBitCast(symbol, to: GetName.self)
        var buffer = [CChar](repeating: 0, count: 64)
        if getName(pthread_self(), &buffer, buffer.count) == 0 {
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
    var name = TestFiles.text(at: "/proc/thread-self/comm") ?? ""
    while name.hasSuffix("\n") { name.removeLast() }
    return name
}

/// The prefix CourierPosix gives its event loop threads (`EventLoopGroup`: `courier-loop-N`).
public let eventLoopThreadPrefix = "courier-loop"
