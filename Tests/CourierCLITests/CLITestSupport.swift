import Courier
import CourierCore
import CourierTestSupport
import FoundationEssentials
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Shared pieces of the `courier` end-to-end tests: a scratch directory, JSON, the request log.
enum CLI {
    /// A fresh empty directory under the system's temporary directory, removed with everything
    /// in it when the test process exits.
    static func scratchDirectory() throws -> String {
        let path = try ScratchDirectory("cli").path
        scratchDirectories.withLock { paths in
            if paths.isEmpty { atexit { CLI.removeScratchDirectories() } }
            paths.append(path)
        }
        return path
    }

    /// The directories ``scratchDirectory()`` made.
    private static let scratchDirectories = Mutex<[String]>([])

    private static func removeScratchDirectories() {
        for path in scratchDirectories.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }

    static func write(_ text: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
    }

    static func read(_ path: String) -> String? { TestFiles.text(at: path) }

    static func json(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// A plain server answering `/hello` with "hello" and `/echo` with what it was sent.
    static func server(tls: ServerTLS? = nil) throws -> ScriptedServer {
        let server = try ScriptedServer(tls: tls)
        server.route("/hello") { _, connection in
            try connection.respond(headers: [("Content-Type", "text/plain")], body: "hello")
        }
        server.route("/echo") { request, connection in
            try connection.respond(headers: [("Content-Type", "application/octet-stream")], body: request.body)
        }
        return server
    }

    /// Whether a program is on PATH (curl for the golden tests).
    static func installed(_ program: String) -> Bool {
        for directory in ["/usr/bin", "/usr/local/bin", "/bin"] where access(directory + "/" + program, X_OK) == 0 { return true }
        return false
    }
}
