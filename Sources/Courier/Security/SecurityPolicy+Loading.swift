import CourierClient
import FoundationEssentials

extension SecurityPolicy {
    /// File name extensions ``certificates(inDirectory:)`` reads.
    public static let certificateFileExtensions: Set<String> = ["cer", "der", "crt", "pem"]

    /// Every certificate in the `.cer`, `.der`, `.crt` and `.pem` files of a directory (not its
    /// subdirectories) — AFNetworking's `certificatesInBundle:`, for a folder. Each file may be
    /// DER (one certificate) or PEM (one or more), whatever its extension says: a file starting
    /// with a DER SEQUENCE byte (0x30) is read as DER, any other as PEM.
    ///
    /// - Throws: `CourierError(.invalidSecurityPolicy)` when the directory cannot be listed, a
    ///   file cannot be read or parsed, or there is no certificate file at all.
    public static func certificates(inDirectory path: String) throws(CourierError) -> Set<TLSCertificate> {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw CourierError(.invalidSecurityPolicy, underlying: error, detail: "cannot list the certificate directory \(path)")
        }
        var result = Set<TLSCertificate>()
        var files = 0
        for name in names.sorted() {
            guard let dot = name.lastIndex(of: "."),
                certificateFileExtensions.contains(name[name.index(after: dot)...].lowercased())
            else { continue }
            let file = path.hasSuffix("/") ? path + name : path + "/" + name
            var isDirectory = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory else { continue }
            files += 1
            for certificate in try certificates(inFile: file) { result.insert(certificate) }
        }
        guard files > 0 else {
            throw CourierError(.invalidSecurityPolicy, detail: "no .cer, .der, .crt or .pem file in \(path)")
        }
        return result
    }

    /// The one certificate in a DER file (`.cer` / `.der`, as AFNetworking bundles them).
    public static func certificate(derFile path: String) throws(CourierError) -> TLSCertificate {
        let bytes = try contents(of: path)
        do {
            return try TLSCertificate(der: bytes)
        } catch {
            throw CourierError(.invalidSecurityPolicy, underlying: error, detail: "\(path) is not a DER certificate")
        }
    }

    /// Every certificate in a PEM file, in file order.
    public static func certificates(pemFile path: String) throws(CourierError) -> [TLSCertificate] {
        do {
            return try TLSCertificate.load(pemFile: path)
        } catch {
            throw CourierError(.invalidSecurityPolicy, underlying: error, detail: "cannot read certificates from \(path)")
        }
    }

    /// PEM or DER, by content.
    private static func certificates(inFile path: String) throws(CourierError) -> [TLSCertificate] {
        let bytes = try contents(of: path)
        if bytes.first == 0x30 { return [try certificate(derFile: path)] }
        return try certificates(pemFile: path)
    }

    private static func contents(of path: String) throws(CourierError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CourierError(.invalidSecurityPolicy, detail: "cannot read \(path)")
        }
        return Array(data)
    }
}
