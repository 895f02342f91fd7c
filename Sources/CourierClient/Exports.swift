// CourierClient's public API is made of its own types and of these lower-layer ones, re-exported
// one by one: a module above CourierClient (the session layer, the demo) imports CourierClient
// and CourierCore and never CourierHTTP1, CourierTLS or CourierPosix (`make linkage` refuses
// those imports; docs/ARCHITECTURE.md, "Modules that exist"). Everything not listed stays hidden.

// HTTP vocabulary (RFC 9110): fields, methods, and the parser and decoder settings a client is
// configured with.
@_exported import struct CourierHTTP1.HTTPField
@_exported import struct CourierHTTP1.HTTPFieldError
@_exported import struct CourierHTTP1.HTTPFields
@_exported import struct CourierHTTP1.HTTPMethod
@_exported import struct CourierHTTP1.HTTPVersion
@_exported import struct CourierHTTP1.HTTPRequestHead
@_exported import enum CourierHTTP1.RequestTarget
@_exported import struct CourierHTTP1.HTTPParserConfiguration
@_exported import struct CourierHTTP1.ContentDecoderLimits
@_exported import enum CourierHTTP1.ContentDecodingPlan
// Basic credentials (RFC 7617) and their Base64 (RFC 4648).
@_exported import enum CourierHTTP1.Base64
@_exported import func CourierHTTP1.basicAuthorizationValue
@_exported import struct CourierHTTP1.BasicAuthorizationError
// Authentication challenges as the server sends them (RFC 9110 §11.6.1).
@_exported import struct CourierHTTP1.AuthChallenge
@_exported import struct CourierHTTP1.AuthParameter
@_exported import struct CourierHTTP1.AuthChallengeError
// The hash functions Digest authentication names (RFC 7616 §6.1); the one hasher is CourierTLS's.
@_exported import enum CourierTLS.HashFunction

// TLS: the configuration, certificates and the verification a trust evaluator sees.
@_exported import struct CourierTLS.TLSConfiguration
@_exported import struct CourierTLS.TLSCertificate
@_exported import struct CourierTLS.TLSConnectionInfo
@_exported import struct CourierTLS.TLSError
@_exported import enum CourierTLS.TLSVersion
@_exported import enum CourierTLS.CertificateVerification
@_exported import enum CourierTLS.CertificateVerificationFailure
@_exported import struct CourierTLS.RevocationPolicy
@_exported import enum CourierTLS.TrustRoot

// POSIX: addresses, errors, file I/O (the one syscall wrapper) and routing-table reachability.
@_exported import struct CourierPosix.SocketAddress
@_exported import struct CourierPosix.PosixError
@_exported import struct CourierPosix.FileDescriptor
@_exported import struct CourierPosix.FileStatus
@_exported import enum CourierPosix.FileSystem
@_exported import class CourierPosix.FileReader
@_exported import enum CourierPosix.PathStatus
@_exported import struct CourierPosix.RouteDestination
// The DNS cache's settings and where a connection's addresses came from (metrics).
@_exported import struct CourierPosix.DNSCacheConfiguration
@_exported import enum CourierPosix.ResolutionSource
