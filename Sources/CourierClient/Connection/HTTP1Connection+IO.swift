#if canImport(Glibc)
import Glibc
#endif
import CourierCore
import CourierHTTP1
import CourierPosix
import CourierTLS

/// Socket I/O: readiness, reads (plain or through TLS), EOF, the outbound queue and `writev`.
extension HTTP1Connection {

    func selectorReady(_ events: SelectorEvents) {
        if events.contains(.writable) { flush() }
        if !events.isDisjoint(with: [.readable, .readHangup, .hangup, .error]), phase != .closed {
            if phase == .ready, interest.isEmpty, let registration {
                // Reading is paused (backpressure) and the peer closed or reset. epoll reports
                // EPOLLRDHUP/EPOLLHUP/EPOLLERR whatever the interest, level-triggered, so the loop
                // would spin until the delegate resumes: leave the selector until then
                // (`setInterest` registers again), and read the end then.
                loop.deregister(registration)
                self.registration = nil
                suspended = true
                return
            }
            readAvailable(force: !events.isDisjoint(with: [.hangup, .error]))
        }
    }

    /// The peer finished sending: nothing more will come, so stop watching the descriptor
    /// (a level-triggered hang-up would otherwise wake the loop until we close it).
    func stopWatching() {
        if let registration { loop.deregister(registration) }
        registration = nil
        interest = []
    }

    func setInterest(_ wanted: Interest) {
        if suspended, !wanted.isEmpty, phase != .closed, let socket {
            suspended = false
            do {
                registration = try loop.register(socket.descriptor, interest: wanted, handler: self)
                interest = wanted
            } catch {
                ioFailed(error)
            }
            return
        }
        guard wanted != interest, let registration, phase != .closed else { return }
        interest = wanted
        do {
            try loop.reregister(registration, interest: wanted)
        } catch {
            ioFailed(error)
        }
    }

    func readAvailable(force: Bool) {
        guard descriptor >= 0 else { return }
        // A few reads per wake-up, then let other connections on the loop run.
        for _ in 0..<4 {
            guard phase != .closed, force || interest.contains(.read) || phase != .ready else { return }
            let result: IOResult<Int>
            if readBuffer.capacity == 0 { readBuffer = loop.borrowReadBuffer() }
            do {
                if tls != nil {
                    result = try Socket.read(descriptor, into: &cipherIn, maximum: readSize)
                } else {
                    result = try Socket.read(descriptor, into: &readBuffer, maximum: readSize)
                }
            } catch {
                if error.code == ECONNRESET {
                    stopWatching()
                    // A reset is an abort, not an end: a body delimited by the close (RFC 9112
                    // §6.3 ¶8) may be cut short, so it fails like a TLS close without close_notify.
                    if responseFraming == .untilClose, execution != nil, phase == .ready {
                        process(machine.errorCaught(ClientError(.remoteClosedDuringBody, cause: error, detail: "connection reset: the body may be truncated")))
                        return
                    }
                    receivedEOF()
                    return
                }
                ioFailed(error)
                return
            }
            switch result {
            case .wouldBlock:
                releaseSmallReadBuffer()
                return
            case .processed(0):
                stopWatching()
                receivedEOF()
                return
            case .processed(let n):
                lastRead = .now()
                // Grow while reads fill the buffer; shrink back after small ones, so a connection
                // that once downloaded something large does not keep reserving 256 KiB per read.
                if n == readSize, readSize < 256 * 1024 {
                    readSize *= 2
                } else if n < readSize / 8, readSize > 4 * 1024 {
                    readSize /= 2
                }
                execution?.firstByteReceived(at: lastRead)
                if let tls {
                    tls.feedCiphertext(cipherIn)
                    cipherIn.clear()
                    if phase == .tlsHandshake { continueTLS() } else { readTLSPlaintext() }
                } else {
                    inbound(eof: false)
                }
                if n < readSize / 2 { return }
            }
        }
    }

    func readTLSPlaintext() {
        guard let tls, phase == .ready || phase == .proxyHandshake else { return }
        while true {
            do {
                switch try tls.readPlaintext(into: &readBuffer, maxBytes: 256 * 1024) {
                case .bytes:
                    continue
                case .wantMoreCiphertext:
                    flushTLS()
                    inbound(eof: false)
                    return
                case .closed:
                    flushTLS()
                    inbound(eof: true)
                    return
                }
            } catch where error.reason == .unexpectedEOF {
                // RFC 8446 §6.1: without close_notify, a body delimited by the close is truncated.
                inbound(eof: false)
                if responseFraming == .untilClose, execution != nil {
                    process(machine.errorCaught(ClientError(.remoteClosedDuringBody, cause: error, detail: "TLS closed without close_notify: the body may be truncated")))
                } else {
                    inbound(eof: true)
                }
                return
            } catch {
                // A TLS failure after the handshake (an alert, a bad record) is reported as the
                // TLS layer's (.tls), not as a socket error. In TLS 1.3 this is also how a server's
                // rejection of the client certificate arrives (RFC 8446 §4.4.2.4). Plaintext
                // decrypted before the failure is parsed first: it may complete the response.
                if phase == .ready, readBuffer.readableBytes > 0 { inbound(eof: false) }
                if phase == .ready, execution != nil {
                    process(machine.errorCaught(ClientError(.tls, cause: error, detail: error.description)))
                } else {
                    ioFailed(error)
                }
                return
            }
        }
    }

    func receivedEOF() {
        // The end of a body delimited by the close is now (see `.succeedRequest`).
        lastRead = .now()
        if let tls {
            tls.feedEOF()
            if phase == .tlsHandshake { continueTLS(); return }
            readTLSPlaintext()
        } else {
            inbound(eof: true)
        }
    }

    func inbound(eof: Bool) {
        switch phase {
        case .proxyHandshake:
            if key.proxy?.scheme.isSOCKS == true { continueSOCKS(eof: eof) } else { continueProxyTunnel(eof: eof) }
        case .ready:
            if eof {
                let action = machine.readEOF(&readBuffer)
                process(action)
                drainInbound()
                if phase != .closed && execution == nil { closeSocket(); pool.connectionClosed(self) }
            } else {
                drainInbound()
            }
        case .connecting, .tlsHandshake:
            if eof { setupFailed(ClientError(.connectionFailed, detail: "closed during setup")) }
        case .closed:
            break
        }
    }

    /// Pulls actions from the state machine until it waits.
    func drainInbound() {
        guard !isDraining else { return }
        isDraining = true
        defer {
            isDraining = false
            releaseSmallReadBuffer()
        }
        while phase == .ready {
            let action = machine.nextInboundAction(&readBuffer)
            let last: Bool
            switch action {
            case .wait, .none, .succeedRequest, .failRequest, .close: last = true
            default: last = false
            }
            // Moved, not copied: `process` consumes it.
            process(consume action)
            if last { return }
        }
    }

    /// A connection waiting for its next response holds no read memory: once everything read
    /// is consumed, a small buffer goes back to the loop, which lends it to the next connection
    /// that reads (``EventLoop/borrowReadBuffer()``). 256 idle connections then cost pages only
    /// for what is in flight, and no read allocates. Large buffers (a download in progress)
    /// are kept: reallocating them per read would fault in fresh pages every time.
    func releaseSmallReadBuffer() {
        if readBuffer.readableBytes == 0, readBuffer.capacity > 0, readBuffer.capacity <= 16 * 1024 {
            loop.returnReadBuffer(readBuffer)
            readBuffer = ByteBuffer()
        }
    }

    func ioFailed(_ error: any Error & Sendable) {
        if phase != .ready {
            setupFailed(ClientError(.connectionFailed, cause: error, detail: "\(error)"))
            return
        }
        if execution != nil {
            process(machine.errorCaught(ClientError(.ioError, cause: error, detail: "\(error)")))
        } else {
            closeSocket()
            pool.connectionClosed(self)
        }
    }

    /// Queues request bytes (encrypting them first on TLS) and writes what the socket takes.
    func write(_ bytes: ByteBuffer) {
        if let tls {
            do {
                try tls.writePlaintext(bytes)
            } catch {
                ioFailed(error)
                return
            }
            flushTLS()
        } else {
            writePlain(bytes)
        }
    }

    func flushTLS() {
        guard let tls, tls.hasPendingCiphertext else { return }
        var out = ByteBuffer(capacity: tls.pendingCiphertextCount)
        tls.drainCiphertext(into: &out)
        writePlain(out)
    }

    func writePlain(_ bytes: ByteBuffer) {
        guard bytes.readableBytes > 0 else { return }
        outboundBytes += bytes.readableBytes
        guard outbound.isEmpty, descriptor >= 0, phase != .closed else {
            outbound.append(bytes)
            return flush()
        }
        // Nothing queued (every request head, most body pieces): one send straight from
        // `bytes`, and only what the socket did not take joins the queue. Queueing first cost an
        // array append and removal, and a retain and release of the buffer, per request.
        let written: Int
        switch send({ (descriptor) throws(PosixError) in
            try bytes.withUnsafeReadableBytes { (raw) throws(PosixError) in try Socket.write(descriptor, raw) }
        }) {
        case .failed:
            return
        case .blocked:
            written = 0
        case .wrote(let count):
            written = count
        }
        outboundBytes -= written
        guard written < bytes.readableBytes else { return flushed() }
        var rest = bytes
        rest.moveReaderIndex(forwardBy: written)
        outbound.append(rest)
        setInterest(interest.union(.write))
    }

    /// What one write to the socket did.
    enum SendOutcome {
        case wrote(Int)
        /// The socket is full (`EAGAIN`).
        case blocked
        /// The write failed; the failure has been handled (the connection is closing or
        /// reading what the peer said before it went).
        case failed
    }

    /// Runs one write to the socket's `descriptor` (open: the caller checked), handling its
    /// failure.
    func send(_ write: (Int32) throws(PosixError) -> IOResult<Int>) -> SendOutcome {
        do {
            guard case .processed(let written) = try write(descriptor) else { return .blocked }
            return .wrote(written)
        } catch {
            if error.code == EPIPE || error.code == ECONNRESET {
                // The peer is gone; what it said before going (if anything) is still to be read.
                // Read it first (a TLS alert such as certificate_required, an early response):
                // the kernel keeps received bytes after a reset, and the read that finds
                // none reports the EOF. Jumping straight to EOF would lose them.
                outbound.removeAll()
                outboundBytes = 0
                if interest.contains(.read) || phase != .ready { readAvailable(force: true) } else { receivedEOF() }
            } else {
                ioFailed(error)
            }
            return .failed
        }
    }

    func flush() {
        guard descriptor >= 0, phase != .closed else { return }
        while !outbound.isEmpty {
            var written: Int
            switch send({ (descriptor) throws(PosixError) in try Socket.write(descriptor, outbound) }) {
            case .failed:
                return
            case .blocked:
                setInterest(interest.union(.write))
                return
            case .wrote(let count):
                written = count
            }
            outboundBytes -= written
            while written > 0 {
                let first = outbound[0].readableBytes
                if written >= first {
                    outbound.removeFirst()
                    written -= first
                } else {
                    outbound[0].moveReaderIndex(forwardBy: written)
                    written = 0
                }
            }
        }
        flushed()
    }

    /// Everything queued is written: stop watching for writability and move the request on.
    func flushed() {
        if interest.contains(.write) { setInterest(interest.subtracting(.write)) }
        if requestWritten { execution?.requestFlushed() }
        if bodyPumpActive { pumpBody() }
    }

    func closeSocket() {
        guard phase != .closed else { return }
        phase = .closed
        if let setupTimer { loop.cancelTimer(setupTimer) }
        setupTimer = nil
        socksLookup?.cancel()
        socksLookup = nil
        socks = nil
        cancelIdleTimer()
        cancelRequestTimers()
        if let idleReadTimer { loop.cancelTimer(idleReadTimer) }
        idleReadTimer = nil
        if let registration { loop.deregister(registration) }
        registration = nil
        socket?.close()
        socket = nil
        tls = nil
        outbound.removeAll()
        outboundBytes = 0
        readBuffer = ByteBuffer()
        stopBody()
    }
}
