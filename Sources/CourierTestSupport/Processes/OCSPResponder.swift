#if canImport(Glibc)
import Glibc
#endif

/// A real OCSP responder for the intermediate of the certificate matrix: `openssl ocsp` serving
/// `intermediate-index.txt` on a loopback port, and `openssl ocsp` as its client, so every
/// response a test staples came from a responder that really answered a request (RFC 6960 §2.1).
///
/// The responder signs with `ocsp.pem` (a delegated responder, RFC 6960 §4.2.2.2) unless told
/// otherwise, and gives each response a nextUpdate one day ahead. Always ``stop()`` it.
public final class OCSPResponder {
    /// The port the responder listens on (its `ACCEPT` line says which).
    public let port: Int
    private let process: ChildProcess
    private let directory: String
    private var fetched = 0

    /// Starts the responder, signing with `signer`/`signerKey` (matrix names), and waits until it
    /// listens (it prints `ACCEPT [::]:port` once its socket is bound), up to `deadline`.
    /// Certificates whose serial (hex, as in the index) is in `omittingSerials` are left out of
    /// its database, so it answers "unknown" for them (RFC 6960 §2.2).
    public init(
        signer: String = "ocsp.pem", signerKey: String = "ocsp.key", omittingSerials: Set<String> = [],
        deadline: ContinuousClock.Instant = .now + .seconds(10)
    ) throws(ChildProcessError) {
        let directory = try ScratchDirectory("ocsp").path
        self.directory = directory
        // `openssl ocsp -index` reads the CA database with its attribute file beside it; the
        // matrix names several certificates /CN=localhost, which needs unique_subject = no.
        // Index lines: status, expiry, revocation, serial, file, subject (tab-separated).
        let lines = TestFiles.text(at: TestCertificates.path("intermediate-index.txt"))?.split(separator: "\n").filter { line in
            let serial = line.split(separator: "\t", omittingEmptySubsequences: false).dropFirst(3).first
            return !omittingSerials.contains(String(serial ?? ""))
        }
        guard let lines, Self.write(directory + "/index.txt", Array(lines.map { $0 + "\n" }.joined().utf8)),
            Self.write(directory + "/index.txt.attr", Array("unique_subject = no\n".utf8))
        else {
            Self.removeDirectory(directory, files: ["index.txt", "index.txt.attr"])
            throw ChildProcessError("cannot prepare the OCSP index in \(directory)")
        }
        let process: ChildProcess
        do {
            process = try ChildProcess([
                "openssl", "ocsp", "-index", directory + "/index.txt", "-CA", TestCertificates.path("intermediate.pem"),
                "-rsigner", TestCertificates.path(signer), "-rkey", TestCertificates.path(signerKey),
                "-port", "0", "-ndays", "1",
            ])
            self.port = try process.waitForLine(until: deadline) { line -> Int? in
                guard line.hasPrefix("ACCEPT "), let colon = line.lastIndex(of: ":") else { return nil }
                return Int(line[line.index(after: colon)...].prefix { $0.isNumber })
            }
        } catch {
            Self.removeDirectory(directory, files: ["index.txt", "index.txt.attr"])
            throw error
        }
        self.process = process
    }

    deinit { stop() }

    /// Asks the responder about `certificate` (a matrix name; `issuer` its issuer) with the
    /// `openssl ocsp` client and returns the DER OCSPResponse it answered, unverified (the client
    /// under test does the verifying).
    public func response(
        for certificate: String, issuer: String = "intermediate.pem",
        deadline: ContinuousClock.Instant = .now + .seconds(10)
    ) throws(ChildProcessError) -> [UInt8] {
        fetched += 1
        let file = directory + "/response-\(fetched).der"
        let client = try ChildProcess([
            "openssl", "ocsp", "-issuer", TestCertificates.path(issuer), "-cert", TestCertificates.path(certificate),
            "-url", "http://127.0.0.1:\(port)", "-respout", file, "-noverify",
        ])
        let status = client.waitForExit(until: deadline)
        defer { unlink(file) }
        guard let bytes = TestFiles.bytes(at: file), !bytes.isEmpty else {
            throw ChildProcessError("no OCSP response for \(certificate) (exit \(String(describing: status))): \(client.outputText)")
        }
        return bytes
    }

    /// Stops the responder and removes its directory. Safe to call more than once.
    public func stop() {
        process.stop()
        Self.removeDirectory(directory, files: ["index.txt", "index.txt.attr"])
    }

    static func write(_ path: String, _ bytes: [UInt8]) -> Bool {
        guard let file = fopen(path, "wb") else { return false }
        defer { fclose(file) }
        return fwrite(bytes, 1, bytes.count, file) == bytes.count
    }

    static func removeDirectory(_ directory: String, files: [String]) {
        for file in files { unlink(directory + "/" + file) }
        rmdir(directory)
    }
}
