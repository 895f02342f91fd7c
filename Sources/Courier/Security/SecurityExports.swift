// The lower-layer types that appear in the security policy's public API, re-exported so that
// `import Courier` is enough to configure pinning.
@_exported import enum CourierClient.CertificateVerification
@_exported import enum CourierClient.CertificateVerificationFailure
@_exported import struct CourierClient.TLSConfiguration
@_exported import struct CourierClient.TLSConnectionInfo
@_exported import struct CourierClient.RevocationPolicy
@_exported import enum CourierClient.TrustRoot
@_exported import struct CourierClient.ServerTrustContext
@_exported import typealias CourierClient.ServerTrustEvaluator
@_exported import struct CourierClient.HTTPClientRequest
// The TLS failure a transport `ClientError` carries as its cause (handshake, certificate
// verification), so a caller can tell a verification failure from another handshake failure.
@_exported import struct CourierClient.TLSError
