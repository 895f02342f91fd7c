/// The version `courier --version` prints.
enum CourierVersion {
    static let string = "courier 0.1.0 (Courier HTTP/1.1, OpenSSL, zlib)"
}
