import CourierClient
import CourierCore
import FoundationEssentials
#if canImport(Glibc)
import Glibc  // usleep only: waiting for an inner stream on the caller's thread
#endif

extension MultipartFormData {
    /// Writes the whole body to a file, piece by piece (AFNetworking's
    /// `requestWithMultipartFormRequest:writingStreamContentsToFile:`), for uploading later as a
    /// ``RequestBody/file(_:)`` with the same ``contentType``. The file is created or truncated;
    /// on failure it is removed rather than left with a partial body. Not throttled. Blocks the
    /// calling thread: do not call it on an event loop.
    ///
    /// - Throws: `CourierError(.fileWriteFailed)` when the file cannot be written; the error of a
    ///   part that cannot be read (a file that changed size, a stream of the wrong length).
    public func writeBody(to fileURL: URL) throws(CourierError) {
        guard fileURL.isFileURL else {
            throw CourierError(.fileWriteFailed, detail: "\(fileURL.absoluteString) is not a file URL")
        }
        let path = fileURL.path
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, .write(truncate: true, permissions: 0o644))
        } catch {
            throw CourierError(.fileWriteFailed, detail: "cannot create \(path): \(error.message)")
        }
        do throws(CourierError) {
            try writeBody(to: file, path: path)
        } catch {
            try? file.close()
            FileSystem.remove(path)
            throw error
        }
        // On Linux the descriptor is released even when close fails: never close it twice.
        do {
            try file.close()
        } catch {
            FileSystem.remove(path)
            throw CourierError(.fileWriteFailed, detail: "cannot close \(path): \(error.message)")
        }
    }

    private func writeBody(to file: FileDescriptor, path: String) throws(CourierError) {
        var stream = makeStream(throttled: false)
        var written: Int64 = 0
        while true {
            let next: ByteBuffer?
            do {
                next = try stream.next()
            } catch let error as CourierError {
                throw error
            } catch {
                throw CourierError(.fileWriteFailed, underlying: error, detail: "a multipart stream part failed")
            }
            guard let piece = next else { break }
            if piece.readableBytes == 0 {
                // An inner stream part has nothing yet. This is the caller's thread, not a loop,
                // so waiting here is allowed.
                if let wait = stream.waitAfterEmptyPiece, wait > .zero {
                    usleep(UInt32(clamping: wait.nanoseconds / 1000))
                }
                continue
            }
            do {
                try file.writeAll(piece)
            } catch {
                throw CourierError(.fileWriteFailed, detail: "cannot write \(path): \(error.message)")
            }
            written += Int64(piece.readableBytes)
        }
        guard written == stream.contentLength else {
            throw CourierError(.fileWriteFailed, detail: "wrote \(written) of \(stream.contentLength) bytes")
        }
    }
}
