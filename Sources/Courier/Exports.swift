// The lower-layer types that appear in Courier's public API, re-exported so that `import Courier`
// is enough to use it. Everything else below CourierClient's public API stays hidden.
@_exported import struct CourierCore.ByteBuffer
@_exported import struct CourierHTTP1.HTTPField
@_exported import struct CourierHTTP1.HTTPFieldError
@_exported import struct CourierHTTP1.HTTPFields
@_exported import struct CourierHTTP1.HTTPMethod
@_exported import protocol CourierClient.HTTPClientBodyStream
@_exported import struct CourierClient.HTTPClientConfiguration
@_exported import struct CourierClient.HTTPClientMetrics
@_exported import struct CourierClient.ClientError
@_exported import struct CourierTLS.TLSCertificate
