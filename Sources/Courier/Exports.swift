// The lower-layer types that appear in Courier's public API, re-exported so that `import Courier`
// is enough to use it. The lower-layer ones come through CourierClient, which re-exports them
// (Sources/CourierClient/Exports.swift); everything else below its public API stays hidden.
// `Tests/CourierImportTests` imports `Courier` alone and names each of them.
@_exported import struct CourierCore.ByteBuffer
@_exported import struct CourierCore.Deadline
@_exported import struct CourierCore.TimeAmount
@_exported import struct CourierClient.ContentDecoderLimits
@_exported import struct CourierClient.HTTPField
@_exported import struct CourierClient.HTTPFieldError
@_exported import struct CourierClient.HTTPFields
@_exported import struct CourierClient.HTTPMethod
@_exported import struct CourierClient.HTTPVersion
@_exported import struct CourierClient.HTTPRequestHead
@_exported import enum CourierClient.RequestTarget
@_exported import struct CourierClient.HTTPParserConfiguration
@_exported import struct CourierClient.SocketAddress
@_exported import struct CourierClient.DNSCacheConfiguration
@_exported import enum CourierClient.ResolutionSource
@_exported import struct CourierClient.BasicAuthorizationError
@_exported import struct CourierClient.AuthChallenge
@_exported import struct CourierClient.AuthParameter
@_exported import struct CourierClient.AuthChallengeError
@_exported import enum CourierClient.HashFunction
@_exported import struct CourierClient.DigestAlgorithm
@_exported import struct CourierClient.DigestChallenge
@_exported import struct CourierClient.DigestAuthorizationError
@_exported import class CourierClient.HTTPClient
@_exported import class CourierClient.SharedServerTrustEvaluator
@_exported import protocol CourierClient.HTTPClientBodyStream
@_exported import struct CourierClient.HTTPClientConfiguration
@_exported import struct CourierClient.HTTPClientMetrics
@_exported import struct CourierClient.HTTPClientTimeouts
@_exported import struct CourierClient.ClientError
@_exported import struct CourierClient.HTTPURL
@_exported import struct CourierClient.HTTPURLError
@_exported import enum CourierClient.HTTPScheme
@_exported import struct CourierClient.HTTPOrigin
@_exported import enum CourierClient.ProxyConfiguration
@_exported import struct CourierClient.ProxyCredentials
@_exported import struct CourierClient.ProxyError
@_exported import struct CourierClient.ProxyServer
@_exported import enum CourierClient.SOCKSError
@_exported import enum CourierClient.SOCKS5Reply
@_exported import struct CourierClient.RedirectConfiguration
@_exported import enum CourierClient.RedirectError
@_exported import struct CourierClient.RedirectVisit
@_exported import struct CourierClient.TLSCertificate
@_exported import enum CourierClient.TLSVersion
// Foundation types in the public API (URL, Data, Date, the JSON and property-list coders) and
// Dispatch's queues: Courier links FoundationEssentials only, so these come from there.
@_exported import struct FoundationEssentials.Data
@_exported import struct FoundationEssentials.Date
@_exported import class FoundationEssentials.JSONDecoder
@_exported import class FoundationEssentials.JSONEncoder
@_exported import class FoundationEssentials.PropertyListDecoder
@_exported import class FoundationEssentials.PropertyListEncoder
@_exported import struct FoundationEssentials.URL
@_exported import class Dispatch.DispatchGroup
@_exported import class Dispatch.DispatchQueue
// curl's `no_proxy` list (`NO_PROXY`, `--noproxy`): which URLs bypass a proxy.
@_exported import struct CourierClient.NoProxyList
