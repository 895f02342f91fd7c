#if canImport(Glibc)
import Glibc
#endif

/// A real nginx serving HTTPS on a loopback port with a stapled OCSP response
/// (`ssl_stapling_file`), for the revocation tests. Its configuration, logs and the staple live
/// in a temporary directory; it runs in the foreground as one process (`daemon off;
/// master_process off;`), so stopping it leaves nothing behind. Always ``stop()`` it.
///
/// It answers `GET /hello` with `hello`.
public final class NginxServer {
    /// The nginx executable: on PATH, or in /usr/sbin or /usr/local/sbin (where Debian installs
    /// it, outside a non-root PATH). nil when nginx is not installed (`make deps` installs it).
    public static let executable: String? = ChildProcess.find("nginx", extraDirectories: ["/usr/sbin", "/usr/local/sbin"])

    public let port: Int
    /// `https://localhost:port`.
    public var baseURL: String { "https://localhost:\(port)" }
    private let process: ChildProcess
    private let directory: String
    private static let files = ["nginx.conf", "staple.der", "error.log", "nginx.pid"]
    private static let directories = ["body", "proxy", "fastcgi", "uwsgi", "scgi"]

    /// Starts nginx with `certificateChain`/`privateKey` (matrix names), stapling `staple` (a DER
    /// OCSPResponse, sent as it is), and waits until it accepts connections (connect attempts,
    /// paced by the process's own output, until `deadline`).
    public init(
        executable: String, certificateChain: String, privateKey: String, staple: [UInt8],
        deadline: ContinuousClock.Instant = .now + .seconds(10)
    ) throws(ChildProcessError) {
        let scratch = try ServerScratch(name: "nginx", remove: Self.remove)
        let directory = scratch.directory
        let port = scratch.port
        self.directory = directory
        self.port = port
        let configuration = Self.configuration(
            directory: directory, port: port, chain: TestCertificates.path(certificateChain),
            key: TestCertificates.path(privateKey))
        for name in Self.directories { mkdir(directory + "/" + name, 0o700) }
        guard OCSPResponder.write(directory + "/staple.der", staple),
            OCSPResponder.write(directory + "/nginx.conf", Array(configuration.utf8))
        else {
            Self.remove(directory)
            throw ChildProcessError("cannot write the nginx configuration in \(directory)")
        }
        do {
            process = try ChildProcess([
                executable, "-p", directory + "/", "-e", directory + "/error.log", "-c", directory + "/nginx.conf",
            ])
        } catch {
            Self.remove(directory)
            throw error
        }
        guard process.waitUntilListening(port: port, deadline: deadline, poll: .milliseconds(20)) else {
            let log = TestFiles.text(at: directory + "/error.log") ?? ""
            stop()
            throw ChildProcessError("nginx did not start listening on port \(port): \(process.outputText) \(log)")
        }
    }

    deinit { stop() }

    /// Stops nginx and removes its directory. Safe to call more than once.
    public func stop() {
        process.stop()
        Self.remove(directory)
    }

    private static func remove(_ directory: String) {
        for name in files { unlink(directory + "/" + name) }
        for name in directories { rmdir(directory + "/" + name) }
        rmdir(directory)
    }

    private static func configuration(directory: String, port: Int, chain: String, key: String) -> String {
        """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(directory)/nginx.pid;
        error_log \(directory)/error.log info;
        events { worker_connections 64; }
        http {
            access_log off;
            client_body_temp_path \(directory)/body;
            proxy_temp_path \(directory)/proxy;
            fastcgi_temp_path \(directory)/fastcgi;
            uwsgi_temp_path \(directory)/uwsgi;
            scgi_temp_path \(directory)/scgi;
            server {
                listen 127.0.0.1:\(port) ssl;
                server_name localhost;
                ssl_certificate \(chain);
                ssl_certificate_key \(key);
                # TLS 1.3 too (nginx before 1.23.4 offers only up to TLS 1.2 by default).
                ssl_protocols TLSv1.2 TLSv1.3;
                ssl_stapling on;
                ssl_stapling_file \(directory)/staple.der;
                location = /hello { default_type text/plain; return 200 "hello"; }
            }
        }

        """
    }
}
