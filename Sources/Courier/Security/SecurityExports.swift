// The lower-layer types that appear in the security policy's public API, re-exported so that
// `import Courier` is enough to configure pinning.
@_exported import enum CourierTLS.CertificateVerification
@_exported import enum CourierTLS.CertificateVerificationFailure
@_exported import struct CourierTLS.TLSConfiguration
@_exported import struct CourierTLS.TLSConnectionInfo
@_exported import struct CourierTLS.RevocationPolicy
@_exported import enum CourierTLS.TrustRoot
@_exported import struct CourierClient.ServerTrustContext
@_exported import typealias CourierClient.ServerTrustEvaluator
@_exported import struct CourierClient.HTTPClientRequest
