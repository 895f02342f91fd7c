/// The committed TLS test matrix in `Sources/CourierTestSupport/Certificates/` (see the header
/// of `make-certs.sh` there for what each file is).
///
/// Files are found relative to this source file (`#filePath`), so no machine path is committed
/// and the package may live anywhere.
public enum TestCertificates {
    /// The directory holding the matrix, without a trailing slash.
    public static let directory: String = {
        let file = "\(#filePath)"
        guard let slash = file.lastIndex(of: "/") else { return "Certificates" }
        return String(file[..<slash]) + "/Certificates"
    }()

    /// The full path of the matrix file `name` (e.g. `"ca.pem"`). An absolute path is returned unchanged.
    public static func path(_ name: String) -> String {
        name.hasPrefix("/") ? name : directory + "/" + name
    }
}
