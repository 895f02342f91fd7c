import CNIOLLHTTP

/// One field as llhttp reported it: pointers into the caller's bytes, no copy.
struct LLHTTPField {
    var name: UnsafePointer<CChar>? = nil
    var nameLength = 0
    var value: UnsafePointer<CChar>? = nil
    var valueLength = 0
}

/// What the callbacks write: a preallocated field array and counters. Reached through the
/// parser's `data` pointer; the callbacks allocate nothing.
struct LLHTTPState {
    var fields: UnsafeMutablePointer<LLHTTPField>
    var capacity: Int
    var count = 0
    /// Whether the last span was a value, so the next name span starts a new field (llhttp may
    /// report one name or value in several spans when its input is split).
    var inValue = true
    var bodyBytes = 0
    var status = 0
    var complete = false
}

/// Drives llhttp (swift-nio's vendored copy, `c_nio_llhttp_*`) directly through its C API over one
/// response, again and again, with one parser instance: `c_nio_llhttp_reset` before each response,
/// then one `c_nio_llhttp_execute` over the whole response.
///
/// The callbacks do the work Courier's parser does internally: record each field's name and value
/// spans (pointer and length into a preallocated array), count body bytes, note completion. After
/// the parse the fields are walked, as the Courier driver walks its head's fields.
package final class LLHTTPDriver {
    private let parser: UnsafeMutablePointer<llhttp_t>
    private let settings: UnsafeMutablePointer<llhttp_settings_t>
    private let state: UnsafeMutablePointer<LLHTTPState>
    private let fields: UnsafeMutablePointer<LLHTTPField>
    private let bytes: UnsafeMutableRawBufferPointer
    /// Received mode: each parse first copies `bytes` here, as a socket read would (see
    /// ``CourierDriver``), and llhttp parses this copy.
    private let readBuffer: UnsafeMutableRawBufferPointer?

    static let fieldCapacity = 256

    package init(_ testCase: Case, receive: Bool = false) {
        bytes = .allocate(byteCount: testCase.bytes.count, alignment: 16)
        bytes.copyBytes(from: testCase.bytes)
        readBuffer = receive ? .allocate(byteCount: testCase.bytes.count, alignment: 16) : nil
        fields = .allocate(capacity: Self.fieldCapacity)
        fields.initialize(repeating: LLHTTPField(), count: Self.fieldCapacity)
        state = .allocate(capacity: 1)
        state.initialize(to: LLHTTPState(fields: fields, capacity: Self.fieldCapacity))

        settings = .allocate(capacity: 1)
        settings.initialize(to: llhttp_settings_t())
        c_nio_llhttp_settings_init(settings)
        settings.pointee.on_message_begin = { parser in
            let s = LLHTTPDriver.state(parser)
            s.pointee.count = 0
            s.pointee.inValue = true
            s.pointee.bodyBytes = 0
            s.pointee.status = 0
            s.pointee.complete = false
            return 0
        }
        settings.pointee.on_header_field = { parser, at, length in
            let s = LLHTTPDriver.state(parser)
            if s.pointee.inValue {
                guard s.pointee.count < s.pointee.capacity else { return -1 }
                s.pointee.fields[s.pointee.count] = LLHTTPField(name: at, nameLength: length)
                s.pointee.count &+= 1
                s.pointee.inValue = false
            } else {
                s.pointee.fields[s.pointee.count &- 1].nameLength &+= length
            }
            return 0
        }
        settings.pointee.on_header_value = { parser, at, length in
            let s = LLHTTPDriver.state(parser)
            let i = s.pointee.count &- 1
            if !s.pointee.inValue || s.pointee.fields[i].value == nil {
                s.pointee.fields[i].value = at
                s.pointee.fields[i].valueLength = length
            } else {
                s.pointee.fields[i].valueLength &+= length
            }
            s.pointee.inValue = true
            return 0
        }
        settings.pointee.on_headers_complete = { parser in
            LLHTTPDriver.state(parser).pointee.status = Int(parser!.pointee.status_code)
            return 0
        }
        settings.pointee.on_body = { parser, _, length in
            LLHTTPDriver.state(parser).pointee.bodyBytes &+= length
            return 0
        }
        settings.pointee.on_message_complete = { parser in
            LLHTTPDriver.state(parser).pointee.complete = true
            return 0
        }

        parser = .allocate(capacity: 1)
        parser.initialize(to: llhttp_t())
        c_nio_llhttp_init(parser, HTTP_RESPONSE, settings)
        parser.pointee.data = UnsafeMutableRawPointer(state)
    }

    deinit {
        parser.deinitialize(count: 1)
        parser.deallocate()
        settings.deinitialize(count: 1)
        settings.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
        fields.deinitialize(count: Self.fieldCapacity)
        fields.deallocate()
        bytes.deallocate()
        readBuffer?.deallocate()
    }

    @inline(__always)
    private static func state(_ parser: UnsafeMutablePointer<llhttp_t>?) -> UnsafeMutablePointer<LLHTTPState> {
        parser!.pointee.data.assumingMemoryBound(to: LLHTTPState.self)
    }

    /// Parses the response once per element of `iterations`.
    package func run(_ iterations: Range<Int>) -> Int {
        var sum = 0
        if let readBuffer {
            for _ in iterations {
                readBuffer.copyMemory(from: UnsafeRawBufferPointer(bytes))
                let r = Self.parse(parser, state, UnsafeRawBufferPointer(readBuffer))
                sum &+= r.bodyBytes &+ r.headerBytes
            }
            return sum
        }
        for _ in iterations {
            let r = Self.parse(parser, state, UnsafeRawBufferPointer(bytes))
            sum &+= r.bodyBytes &+ r.headerBytes
        }
        return sum
    }

    package func parseOnce() -> ParseResult {
        Self.parse(parser, state, UnsafeRawBufferPointer(bytes))
    }

    /// The fields of the last parse, for the startup cross-check.
    package func lastFields() -> [(name: [UInt8], value: [UInt8])] {
        (0..<state.pointee.count).map { i in
            let f = fields[i]
            return (Self.copy(f.name, f.nameLength), Self.copy(f.value, f.valueLength))
        }
    }

    private static func copy(_ p: UnsafePointer<CChar>?, _ n: Int) -> [UInt8] {
        guard let p, n > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }

    @inline(never)
    static func parse(
        _ parser: UnsafeMutablePointer<llhttp_t>, _ state: UnsafeMutablePointer<LLHTTPState>,
        _ bytes: UnsafeRawBufferPointer
    ) -> ParseResult {
        c_nio_llhttp_reset(parser)
        let rc = c_nio_llhttp_execute_swift(parser, bytes.baseAddress, bytes.count)
        guard rc == HPE_OK, state.pointee.complete else {
            fatalError("llhttp failed: \(rc) \(String(cString: c_nio_llhttp_errno_name(rc)))")
        }
        var r = ParseResult(status: state.pointee.status, bodyBytes: state.pointee.bodyBytes, complete: true)
        let fields = state.pointee.fields
        for i in 0..<state.pointee.count {
            r.headerCount &+= 1
            r.headerBytes &+= fields[i].nameLength &+ fields[i].valueLength
        }
        return r
    }
}
