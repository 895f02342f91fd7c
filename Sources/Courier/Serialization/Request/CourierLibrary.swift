/// Facts about this library that go on the wire.
public enum CourierLibrary {
    /// The library version, sent in the default `User-Agent`.
    public static let version = "0.1.0"

    /// The default `User-Agent` (RFC 9110 §10.1.5): `Courier/<version> (Linux; Swift)`.
    public static let userAgent = "Courier/\(version) (Linux; Swift)"
}
